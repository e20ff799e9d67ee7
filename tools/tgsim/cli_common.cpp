#include "tools/tgsim/cli_common.h"

#include <algorithm>
#include <cstdlib>

#include <unistd.h>
#include <iostream>

#include <fmt/format.h>

#include "sim/engine/simulate.h"
#include "sim/graph/validate.h"
#include "sim/hw/spec_json.h"
#include "sim/units/atomic_file.h"
#include "sim/units/error.h"
#include "sim/units/parse.h"
#include "sim/report/chrome_trace.h"
#include "sim/report/report.h"

namespace tgsim::cli {
std::filesystem::path Context::config_dir() const {
  if (!config_dir_flag.empty()) return config_dir_flag;
  if (const char* env = std::getenv("TGSIM_CONFIG_DIR"); env != nullptr && *env != '\0') return env;
  return TGSIM_DEFAULT_CONFIG_DIR;
}

void add_gpu_options(CLI::App& cmd, GpuOptions& o) {
  cmd.add_option("--gpu", o.gpu, "GPU preset (see `tgsim gpus`) or a spec file path")->capture_default_str();
  cmd.add_option("--set", o.overrides,
                 "Override a spec field, e.g. --set hbm.bandwidth=5TB/s --set sm.count=120 (repeatable)")
      ->take_all();
}

void add_output_options(CLI::App& cmd, OutputOptions& o) {
  cmd.add_flag("--json", o.json, "Print one JSON object instead of the text report");
  cmd.add_option("--trace", o.trace, "Write a Chrome/Perfetto trace (open in ui.perfetto.dev)");
  cmd.add_option("--trace-sms", o.trace_sms, "SMs per GPU whose tile ops go into the trace (-1: all; CTAs always)")
      ->capture_default_str();
  cmd.add_option("--l2-model", o.l2_model, "L2 hit model: tile_lru (reuse of whole tiles) or none (always miss)")
      ->capture_default_str()
      ->check(CLI::IsMember({"tile_lru", "none"}));
  cmd.add_option("--l2-start", o.l2_start,
                 "L2 at kernel start: dirty (full of written lines, as after an L2 flush or an earlier kernel; "
                 "evicting them costs HBM writes) or clean (empty)")
      ->capture_default_str()
      ->check(CLI::IsMember({"dirty", "clean"}));
  add_limit_options(cmd, o.max_nodes, o.max_memory);
}

void add_limit_options(CLI::App& cmd, double& max_nodes, std::string& max_memory) {
  cmd.add_option("--max-nodes", max_nodes, "Refuse runs of more node executions than this (about 20 M/s; 0: no limit)")
      ->capture_default_str();
  cmd.add_option("--max-memory", max_memory, "Refuse runs estimated to need more memory (e.g. 8GB; default: half of RAM)");
}

graph::Limits make_limits(double max_nodes, const std::string& max_memory) {
  graph::Limits l = graph::default_limits();
  l.max_node_executions = max_nodes;
  if (!max_memory.empty()) {
    try {
      l.max_memory_bytes = static_cast<double>(parse_bytes(max_memory).value);
    } catch (const InputError& e) {
      throw InputError(fmt::format("--max-memory: {}", e.what()));
    }
  }
  return l;
}

graph::Limits limits_of(const OutputOptions& out) { return make_limits(out.max_nodes, out.max_memory); }

namespace {

double traced_fraction(const OutputOptions& out, const hw::GpuSpec& spec) {
  if (out.trace.empty()) return 0;
  return out.trace_sms < 0 ? 1.0 : std::min(1.0, static_cast<double>(out.trace_sms) / std::max(1, spec.sm.count));
}

}  // namespace

hw::GpuSpec load_gpu(const Context& ctx, const GpuOptions& o) {
  return hw::load_gpu_preset(o.gpu, ctx.config_dir(), o.overrides);
}

engine::Result simulate(const graph::TileGraph& g, const hw::GpuSpec& spec, const OutputOptions& out) {
  graph::validate_tile_graph(g, g.name);
  graph::check_limits(g, limits_of(out));
  engine::SimOptions opts;
  opts.l2_model = out.l2_model;
  opts.l2_starts_dirty = out.l2_start == "dirty";
  opts.system = out.system;
  opts.critical_path = false;
  return engine::simulate(g, spec, opts);
}

engine::Result simulate_and_report(const graph::TileGraph& g, const hw::GpuSpec& spec, const GpuOptions& gpu,
                                   const OutputOptions& out, const nlohmann::json& inputs, const std::string& preface) {
  graph::validate_tile_graph(g, g.name);
  graph::check_limits(g, limits_of(out), traced_fraction(out, spec));
  report::ChromeTrace trace(report::ChromeTraceOptions{out.trace_sms});
  engine::SimOptions opts;
  opts.l2_model = out.l2_model;
  opts.l2_starts_dirty = out.l2_start == "dirty";
  opts.system = out.system;
  if (!out.trace.empty()) opts.trace = &trace;
  const engine::Result r = engine::simulate(g, spec, opts);
  report::RunContext ctx{gpu.gpu, hw::to_json(spec), inputs};
  if (!out.trace.empty()) write_file_atomically(out.trace, trace.to_json_text(g.name));
  if (out.json) {
    std::cout << report::result_to_json(r, ctx).dump(2) << "\n";
  } else {
    std::cout << preface << report::result_to_text(r, ctx);
    if (!out.trace.empty()) std::cout << fmt::format("trace written to {}\n", out.trace);
  }
  return r;
}

}  // namespace tgsim::cli
