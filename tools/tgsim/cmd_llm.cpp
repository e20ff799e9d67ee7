// `tgsim llm`: one prefill or decode step of an LLM (configs/models) as the kernel sequence an
// inference engine runs; per-kernel table, totals, time per token.
#include <iostream>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "frontend/llm/run.h"
#include "frontend/multigpu/collectives.h"
#include "sim/hw/system_json.h"
#include "sim/report/chrome_trace.h"
#include "sim/engine/simulate.h"
#include "sim/graph/validate.h"
#include "sim/units/atomic_file.h"
#include "sim/units/error.h"
#include "tools/tgsim/cli_common.h"

namespace tgsim::cli {
namespace {

nlohmann::json to_json(const llm::StepResult& r, const llm::ModelConfig& m, const llm::StepRequest& q, const std::string& gpu) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& k : r.rows) {
    rows.push_back({{"group", k.group}, {"name", k.name}, {"schedule", k.schedule}, {"calls", k.calls},
                    {"us_per_call", k.us_per_call}, {"total_us", k.total_us}});
  }
  return {{"command", "llm"},
          {"model", m.name},
          {"gpu", gpu},
          {"phase", q.phase == llm::Phase::prefill ? "prefill" : "decode"},
          {"batch", q.batch},
          {"seq", q.seq},
          {"context", q.context},
          {"tp", q.tp},
          {"tokens", r.tokens},
          {"latency_us", r.total_us},
          {"kernel_us", r.kernel_us},
          {"gap_us", r.gap_us},
          {"kernels_launched", r.kernels},
          {"us_per_token", r.total_us / static_cast<double>(r.tokens)},
          {"tokens_per_s", static_cast<double>(r.tokens) / (r.total_us * 1e-6)},
          {"kernels", rows},
          {"notes", r.notes}};
}

void print_text(const llm::StepResult& r, const llm::ModelConfig& m, const llm::StepRequest& q, const std::string& gpu) {
  const bool prefill = q.phase == llm::Phase::prefill;
  std::cout << fmt::format("{} {} on {}: batch {}, {} {}, tp {}\n", m.name, prefill ? "prefill" : "decode", gpu, q.batch,
                           prefill ? "seq" : "context", prefill ? q.seq : q.context, q.tp);
  std::cout << fmt::format("\n{:<13} {:<22} {:>7} {:>11} {:>11} {:>6}  {}\n", "group", "kernel", "calls", "us/call", "total us",
                           "share", "schedule");
  for (const auto& k : r.rows) {
    std::cout << fmt::format("{:<13} {:<22} {:>7} {:>11.2f} {:>11.1f} {:>5.1f}%  {}\n", k.group, k.name, k.calls, k.us_per_call,
                             k.total_us, 100.0 * k.total_us / r.total_us, k.schedule);
  }
  std::cout << fmt::format("\nstep latency   {:.1f} us ({:.1f} in kernels, {:.1f} in launch gaps; {} kernels)\n", r.total_us,
                           r.kernel_us, r.gap_us, r.kernels);
  if (prefill) {
    std::cout << fmt::format("throughput     {:.0f} tokens/s ({:.2f} us per token)\n", static_cast<double>(r.tokens) / (r.total_us * 1e-6),
                             r.total_us / static_cast<double>(r.tokens));
  } else {
    std::cout << fmt::format("time per token {:.1f} us per sequence ({:.0f} tokens/s over the batch)\n", r.total_us,
                             static_cast<double>(r.tokens) / (r.total_us * 1e-6));
  }
  for (const auto& n : r.notes) std::cout << "note: " << n << "\n";
}

}  // namespace

void register_llm(CLI::App& app, const Context& ctx) {
  struct Opts {
    std::string model;
    std::string phase = "prefill";
    llm::StepRequest req;
    bool cuda_graph = false;
    std::string system;
    GpuOptions gpu;
    OutputOptions out;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("llm", "Simulate one LLM prefill or decode step (configs/models) as its kernel sequence");
  cmd->add_option("--model", o->model, "Model preset (llama3-8b, llama3-70b, mixtral-8x7b, qwen3-30b-a3b, deepseek-v3) or JSON file")
      ->required();
  cmd->add_option("--phase", o->phase, "prefill (batch x seq tokens) or decode (one token per sequence)")
      ->capture_default_str()
      ->check(CLI::IsMember({"prefill", "decode"}));
  cmd->add_option("--batch", o->req.batch, "Sequences")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--seq", o->req.seq, "Prefill: tokens per sequence")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--context", o->req.context, "Decode: tokens already in the KV cache")->capture_default_str()->check(CLI::NonNegativeNumber);
  cmd->add_option("--layers", o->req.layers, "Simulate only this many layers (default: all)")->check(CLI::PositiveNumber);
  cmd->add_option("--tp", o->req.tp, "Tensor-parallel GPUs (needs a system with an all-reduce model)")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_flag("--cuda-graph", o->cuda_graph, "Kernels launched from a CUDA graph (smaller launch gaps)");
  cmd->add_option("--system", o->system, "With --tp: the multi-GPU system for the all-reduces (default: <tp>x<gpu>, configs/systems)");
  add_gpu_options(*cmd, o->gpu);
  add_output_options(*cmd, o->out);
  cmd->footer(
      "Examples:\n"
      "  tgsim llm --model llama3-8b --gpu h100 --phase prefill --batch 1 --seq 2048\n"
      "  tgsim llm --model llama3-70b --gpu h200 --phase decode --batch 16 --context 4096 --tp 4\n"
      "  tgsim llm --model llama3-8b --gpu h200 --phase decode --batch 32 --context 4096 --cuda-graph\n"
      "  tgsim llm --model qwen3-30b-a3b --gpu h100 --phase prefill --seq 4096 --layers 4 --json\n"
      "The per-step time is the sum over layer groups of (kernels + launch gaps of one layer) x layers;\n"
      "--trace shows one layer of each kind and the LM head.");
  cmd->callback([&ctx, o] {
    o->req.phase = o->phase == "prefill" ? llm::Phase::prefill : llm::Phase::decode;
    const hw::GpuSpec spec = load_gpu(ctx, o->gpu);
    const llm::ModelConfig model = llm::load_model(o->model, ctx.config_dir());
    const llm::StepPlan plan = llm::plan_step(model, o->req);
    llm::StepOptions so;
    so.cuda_graph = o->cuda_graph;
    so.l2_starts_dirty = o->out.l2_start == "dirty";
    std::shared_ptr<hw::SystemSpec> system;
    if (o->req.tp > 1) {
      const std::string name = o->system.empty() ? fmt::format("{}x{}", o->req.tp, o->gpu.gpu) : o->system;
      system = std::make_shared<hw::SystemSpec>(hw::load_system_preset(name, ctx.config_dir()));
      if (system->gpu_count != o->req.tp)
        throw InputError(fmt::format("--system {}: {} GPUs, but --tp is {}", name, system->gpu_count, o->req.tp));
      // NCCL ring all-reduce of the hidden state (frontend/multigpu/collectives), simulated once per size.
      auto cache = std::make_shared<std::map<double, double>>();
      so.all_reduce_us = [system, cache, spec](double bytes) {
        auto [it, fresh] = cache->try_emplace(bytes, 0.0);
        if (fresh) {
          multigpu::CollectiveParams c;
          c.kind = multigpu::Collective::all_reduce;
          c.gpus = system->gpu_count;
          c.bytes = static_cast<std::int64_t>(bytes);
          const auto plan = multigpu::plan_collective(c, spec, *system);
          const graph::TileGraph g = multigpu::lower_collective(c, plan, spec, *system);
          graph::validate_tile_graph(g, g.name);
          engine::SimOptions opts;
          opts.system = system.get();
          opts.critical_path = false;
          it->second = to_us(engine::simulate(g, spec, opts).latency);
        }
        return it->second;
      };
    }
    so.progress = [](int done, int total) { std::cerr << fmt::format("\rllm: simulated {}/{} layer kinds", done, total) << std::flush; };
    const llm::StepResult r = llm::simulate_step(plan, model, spec, so);
    std::cerr << "\n";
    if (!o->out.trace.empty()) {
      const graph::TileGraph g = llm::sample_graph(plan, model, spec, o->cuda_graph);
      graph::validate_tile_graph(g, g.name);
      report::ChromeTrace trace(report::ChromeTraceOptions{o->out.trace_sms});
      engine::SimOptions opts;
      opts.l2_starts_dirty = so.l2_starts_dirty;
      opts.critical_path = false;
      opts.trace = &trace;
      engine::simulate(g, spec, opts);
      write_file_atomically(o->out.trace, trace.to_json_text(g.name));
    }
    if (o->out.json) {
      std::cout << to_json(r, model, o->req, o->gpu.gpu).dump(2) << "\n";
    } else {
      print_text(r, model, o->req, o->gpu.gpu);
      if (!o->out.trace.empty()) std::cout << fmt::format("trace written to {} (one layer of each kind + LM head)\n", o->out.trace);
    }
  });
}

}  // namespace tgsim::cli
