// `tgsim moe`: one MoE layer under expert parallelism on a multi-GPU system (docs/moe.md):
// dispatch, expert GEMMs, combine, under one of the schedules of frontend/moe/schedule.h.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "frontend/llm/model.h"
#include "frontend/moe/run.h"
#include "sim/graph/graph_size.h"
#include "sim/hw/spec_json.h"
#include "sim/hw/system_json.h"
#include "sim/report/chrome_trace.h"
#include "sim/units/atomic_file.h"
#include "sim/units/error.h"
#include "tools/tgsim/cli_common.h"

namespace tgsim::cli {
namespace {

struct MoeOpts {
  std::string system = "4xh100";
  std::string model;
  std::int64_t tokens = 4096;
  std::string routing = "uniform";
  std::string schedule = "sequential";
  std::vector<std::string> gpu_overrides, system_overrides;
  bool json = false;
  std::string trace;
  int trace_sms = 4;
};

nlohmann::json to_json(const moe::MoeLayer& l, const moe::MoeSchedule& s, const moe::LayerRun& r,
                       const hw::SystemSpec& sys) {
  nlohmann::json gpus = nlohmann::json::array();
  for (std::size_t g = 0; g < r.gpus.size(); ++g) {
    const auto& m = r.gpus[g];
    gpus.push_back({{"gpu", g},
                    {"comm_sms", m.comm_sms},
                    {"cost_model_c", m.cost.chosen},
                    {"cost_model_c_star", m.cost.c_star},
                    {"expert_rows", nlohmann::json::array()},
                    {"tiles", m.tiles},
                    {"stolen_tiles", m.stolen},
                    {"push_bytes", m.push_bytes},
                    {"expert_tflop", m.expert_tflop},
                    {"tensor_busy_pct", 100 * m.tensor_busy},
                    {"sm_active_pct", 100 * m.sm_active},
                    {"comm_active_us", to_us(m.comm_active)},
                    {"compute_active_us", to_us(m.compute_active)},
                    {"overlap_pct", 100 * m.overlap},
                    {"nvlink_egress_pct", 100 * m.nvlink_egress},
                    {"nvlink_ingress_pct", 100 * m.nvlink_ingress},
                    {"work_end_us", to_us(m.work_end)},
                    {"clock_mhz", m.clock_mhz}});
    for (int e = 0; e < l.experts_per_gpu(); ++e)
      gpus.back()["expert_rows"].push_back(l.expert_rows(l.global_expert(static_cast<int>(g), e)));
  }
  return {{"command", "moe"},
          {"system", sys.name},
          {"model", l.shape.model},
          {"hidden", l.shape.hidden},
          {"expert_intermediate", l.shape.intermediate},
          {"experts", l.shape.experts},
          {"top_k", l.shape.top_k},
          {"tokens_per_gpu", l.tokens_per_gpu},
          {"routing", l.routing.spec},
          {"schedule", moe::to_string(s)},
          {"latency_us", to_us(r.result.latency)},
          {"gpus", gpus},
          {"inputs", {{"system", hw::to_json(sys)}}}};
}

void print_text(const moe::MoeLayer& l, const moe::MoeSchedule& s, const moe::LayerRun& r, const hw::SystemSpec& sys) {
  std::cout << fmt::format("{} MoE layer on {}: H {}, I {}, {} experts top-{}, {} tokens per GPU, routing {}\n",
                           l.shape.model, sys.full_name, l.shape.hidden, l.shape.intermediate, l.shape.experts,
                           l.shape.top_k, l.tokens_per_gpu, l.routing.spec);
  std::cout << fmt::format("schedule {}: latency {:.1f} us\n\n", moe::to_string(s), to_us(r.result.latency));
  std::cout << fmt::format("{:>3} {:>4} {:>7} {:>9} {:>8} {:>7} {:>7} {:>10} {:>10} {:>8} {:>7} {:>7} {:>6} {:>5}\n",
                           "gpu", "C", "model C", "rows", "TFLOP", "tensor", "active", "comm us", "compute us",
                           "overlap", "NVL out", "NVL in", "stolen", "MHz");
  for (std::size_t g = 0; g < r.gpus.size(); ++g) {
    const auto& m = r.gpus[g];
    std::int64_t rows = 0;
    for (int e = 0; e < l.experts_per_gpu(); ++e) rows += l.expert_rows(l.global_expert(static_cast<int>(g), e));
    std::cout << fmt::format("{:>3} {:>4} {:>7} {:>9} {:>8.2f} {:>6.1f}% {:>6.1f}% {:>10.1f} {:>10.1f} {:>7.1f}% {:>6.1f}% "
                             "{:>6.1f}% {:>6} {:>5.0f}\n",
                             g, m.comm_sms, m.cost.chosen, rows, m.expert_tflop, 100 * m.tensor_busy, 100 * m.sm_active,
                             to_us(m.comm_active), to_us(m.compute_active), 100 * m.overlap, 100 * m.nvlink_egress,
                             100 * m.nvlink_ingress, m.stolen, m.clock_mhz);
  }
  std::cout << "\nC: communication SMs (sequential: all-to-all channels); model C: the cost model's pick (dynamic "
               "uses it);\ntensor: tensor-pipe busy / (latency x SMs); overlap: share of comm-active time with "
               "compute active.\n";
}

}  // namespace

void register_moe(CLI::App& app, const Context& ctx) {
  auto o = std::make_shared<MoeOpts>();
  auto* cmd = app.add_subcommand("moe", "Simulate one MoE layer under expert parallelism (dispatch, expert GEMMs, "
                                        "combine) on a multi-GPU system");
  cmd->add_option("--system", o->system, "System preset (configs/systems/) or spec file")->capture_default_str();
  cmd->add_option("--model", o->model, "MoE model preset (mixtral-8x7b, qwen3-30b-a3b, deepseek-v3, ...) or JSON file")
      ->required();
  cmd->add_option("--tokens", o->tokens, "Tokens per GPU")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--routing", o->routing, "uniform, zipf:S (expert e gets 1/(e+1)^S) or a JSON/CSV file")
      ->capture_default_str();
  cmd->add_option("--schedule", o->schedule, "sequential, fixed-split:C, tile-overlap[:C] or dynamic; C may be one value per GPU: 8,10,10,10")
      ->capture_default_str();
  cmd->add_option("--set", o->gpu_overrides, "Override a GPU spec field: key=value (repeatable)");
  cmd->add_option("--system-set", o->system_overrides, "Override a system spec field, e.g. nvlink.bandwidth=900GB/s");
  cmd->add_flag("--json", o->json, "Print one JSON object");
  cmd->add_option("--trace", o->trace, "Write a Chrome/Perfetto trace (one process per GPU)");
  cmd->add_option("--trace-sms", o->trace_sms, "SMs per GPU whose tile ops go into the trace (-1: all)")
      ->capture_default_str();
  cmd->footer(
      "Examples:\n"
      "  tgsim moe --system 4xh100 --model mixtral-8x7b --tokens 4096 --schedule sequential\n"
      "  tgsim moe --system 4xh100 --model qwen3-30b-a3b --tokens 4096 --routing zipf:1.2 --schedule dynamic\n"
      "  tgsim moe --system 4xh100 --model deepseek-v3 --tokens 2048 --schedule fixed-split:24 --json");
  cmd->callback([&ctx, o] {
    const moe::MoeSchedule sched = moe::parse_schedule(o->schedule);
    const hw::SystemSpec sys = hw::load_system_preset(o->system, ctx.config_dir(), o->system_overrides);
    const hw::GpuSpec gpu = hw::load_gpu_preset(sys.gpu, ctx.config_dir(), o->gpu_overrides);
    const llm::ModelConfig model = llm::load_model(o->model, ctx.config_dir());
    if (!model.moe) throw InputError(fmt::format("--model {}: \"{}\" has no MoE layer", o->model, model.name));
    const moe::MoeShape shape{model.name, model.hidden, model.moe->expert_intermediate, model.moe->experts,
                              model.moe->top_k};
    const moe::MoeLayer layer = moe::make_layer(shape, sys.gpu_count, o->tokens, o->routing);
    const moe::LoweredLayer lowered = moe::lower_layer(layer, sched, gpu, sys);
    graph::check_limits(lowered.graph, graph::default_limits());  // refuse a run too big for the machine
    report::ChromeTrace trace(report::ChromeTraceOptions{o->trace_sms});
    const moe::LayerRun run = moe::run_layer(layer, lowered, gpu, sys, o->trace.empty() ? nullptr : &trace);
    if (!o->trace.empty()) write_file_atomically(o->trace, trace.to_json_text(lowered.graph.name));
    if (o->json) {
      std::cout << to_json(layer, sched, run, sys).dump(2) << "\n";
    } else {
      print_text(layer, sched, run, sys);
      if (!o->trace.empty()) std::cout << fmt::format("trace written to {}\n", o->trace);
    }
  });
}

}  // namespace tgsim::cli
