// `tgsim attention` (simulate one attention forward) and `tgsim lower attention` (write its graph).
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "frontend/attention/lower.h"
#include "frontend/attention/request.h"
#include "sim/graph/graph_json.h"
#include "sim/units/error.h"
#include "tools/tgsim/cli_common.h"

namespace tgsim::cli {
namespace {

struct AttentionArgs {
  attention::Request req;
  std::string dtype = "bf16";
  std::string family;
  std::string causal_align;
  std::int64_t heads_kv = 0;
  std::int64_t seq_kv = 0;
};

void add_attention_options(CLI::App& cmd, AttentionArgs& a) {
  auto& p = a.req.problem;
  cmd.add_option("--batch", p.batch, "Batch size")->capture_default_str()->check(CLI::PositiveNumber);
  cmd.add_option("--heads", p.heads, "Query heads")->required()->check(CLI::PositiveNumber);
  cmd.add_option("--heads-kv", a.heads_kv, "Key/value heads (GQA/MQA; default: --heads)")->check(CLI::PositiveNumber);
  cmd.add_option("--seq-q", p.seq_q, "Query length (1 for decode)")->required()->check(CLI::PositiveNumber);
  cmd.add_option("--seq-kv", a.seq_kv, "Key/value length (default: --seq-q)")->check(CLI::PositiveNumber);
  cmd.add_option("--head-dim", p.head_dim, "Head dimension (multiple of 8, up to 256)")->capture_default_str()->check(CLI::PositiveNumber);
  cmd.add_flag("--causal", p.causal, "Causal mask (fully masked KV blocks are skipped)");
  cmd.add_option("--causal-align", a.causal_align,
                 "Where the causal mask's diagonal sits when --seq-q differs from --seq-kv: bottom-right (default; "
                 "FlashAttention's own API, query i sees keys <= i + seq_kv - seq_q) or top-left (PyTorch's "
                 "scaled_dot_product_attention(is_causal=True): query i sees keys <= i)")
      ->check(CLI::IsMember({"bottom-right", "top-left"}));
  cmd.add_option("--dtype", a.dtype, "Input type: fp16, bf16, fp8_e4m3 (fa3/cudnn)")->capture_default_str();
  auto* kernel = cmd.add_option("--kernel", a.req.kernel,
                                "Kernel name(s) from a profile: FlashAttention-2/3, cuDNN SDPA (docs/kernel-names.md)");
  auto* schedule = cmd.add_option("--schedule", a.req.schedule_file, "Schedule JSON file (docs/attention.md)")->excludes(kernel);
  cmd.add_option("--family", a.family, "Default schedule of this family: fa2 (PyTorch flash backend), fa3, cudnn")
      ->check(CLI::IsMember({"fa2", "fa3", "cudnn"}))
      ->excludes(kernel)
      ->excludes(schedule);
}

void finish_args(AttentionArgs& a) {
  auto t = parse_dtype(a.dtype);
  if (!t) throw InputError(fmt::format("--dtype: unknown type \"{}\"", a.dtype));
  auto& p = a.req.problem;
  p.dtype = *t;
  p.heads_kv = a.heads_kv > 0 ? a.heads_kv : p.heads;
  p.seq_kv = a.seq_kv > 0 ? a.seq_kv : p.seq_q;
  if (!a.family.empty()) a.req.family = attention::parse_family(a.family);
  if (!a.causal_align.empty()) {
    if (!p.causal) throw InputError("--causal-align: needs --causal");
    p.causal_align = *attention::parse_causal_align(a.causal_align);
  }
  if (p.heads % p.heads_kv != 0)
    throw InputError(fmt::format("--heads ({}) must be a multiple of --heads-kv ({})", p.heads, p.heads_kv));
}

nlohmann::json describe(const attention::Resolved& r, const attention::LoweredAttention& l) {
  const auto& p = r.problem;
  return {{"command", "attention"},
          {"batch", p.batch},
          {"heads", p.heads},
          {"heads_kv", p.heads_kv},
          {"seq_q", p.seq_q},
          {"seq_kv", p.seq_kv},
          {"head_dim", p.head_dim},
          {"causal", p.causal},
          {"causal_align", attention::to_string(p.causal_align)},
          {"dtype", to_string(p.dtype)},
          {"flops", p.flops()},
          {"paper_flops", p.paper_flops()},
          {"schedule_source", r.source},
          {"schedule", attention::to_json(l.schedule)},
          {"notes", r.notes}};
}

}  // namespace

void register_attention(CLI::App& app, const Context& ctx) {
  struct Opts {
    AttentionArgs attn;
    GpuOptions gpu;
    OutputOptions out;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("attention", "Simulate one attention forward pass (FlashAttention-2/3, cuDNN, flash-decoding)");
  add_attention_options(*cmd, o->attn);
  add_gpu_options(*cmd, o->gpu);
  add_output_options(*cmd, o->out);
  cmd->footer(
      "Examples:\n"
      "  tgsim attention --gpu h100 --batch 4 --heads 32 --heads-kv 8 --seq-q 4096 --head-dim 128 --causal\n"
      "  tgsim attention --gpu h100 --batch 16 --heads 16 --seq-q 1024 --head-dim 128 --family fa3 --trace fa3.json\n"
      "  tgsim attention --gpu h200 --batch 8 --heads 32 --heads-kv 8 --seq-q 1 --seq-kv 16384 --head-dim 128");
  cmd->callback([&ctx, o] {
    finish_args(o->attn);
    const hw::GpuSpec spec = load_gpu(ctx, o->gpu);
    attention::Resolved r = attention::resolve(o->attn.req, spec);
    const auto lowered = attention::lower_attention(r.problem, r.schedule, spec);
    r.notes.insert(r.notes.end(), lowered.notes.begin(), lowered.notes.end());
    const auto& p = r.problem;
    const std::string preface =
        fmt::format("attention    batch {} heads {}/{} seq {}x{} d {}{} {}\nschedule     {} ({})\n", p.batch, p.heads,
                    p.heads_kv, p.seq_q, p.seq_kv, p.head_dim,
                    !p.causal ? "" : p.causal_align == attention::CausalAlign::top_left ? " causal (top-left)" : " causal",
                    to_string(p.dtype),
                    lowered.schedule.name, r.source);
    const auto res = simulate_and_report(lowered.graph, spec, o->gpu, o->out, describe(r, lowered), preface);
    if (!o->out.json) {
      std::cout << fmt::format("throughput   {:.1f} TFLOP/s (papers' convention: {:.1f})\n",
                               p.flops() / to_us(res.latency) * 1e-6, p.paper_flops() / to_us(res.latency) * 1e-6);
      for (const auto& n : r.notes) std::cout << "note: " << n << "\n";
    }
  });
}

void register_lower_attention(CLI::App& lower, const Context& ctx) {
  struct Opts {
    AttentionArgs attn;
    GpuOptions gpu;
    std::string out;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = lower.add_subcommand("attention", "Lower an attention forward pass to a tile graph (then: tgsim run-graph FILE)");
  add_attention_options(*cmd, o->attn);
  add_gpu_options(*cmd, o->gpu);
  cmd->add_option("--out", o->out, "Output tile-graph JSON file")->required();
  cmd->callback([&ctx, o] {
    finish_args(o->attn);
    const hw::GpuSpec spec = load_gpu(ctx, o->gpu);
    const auto r = attention::resolve(o->attn.req, spec);
    const auto lowered = attention::lower_attention(r.problem, r.schedule, spec);
    graph::write_tile_graph(lowered.graph, o->out);
    std::cout << fmt::format("wrote {} ({} kernels, schedule {})\n", o->out, lowered.graph.kernels.size(), lowered.schedule.name);
  });
}

}  // namespace tgsim::cli
