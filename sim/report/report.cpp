#include "sim/report/report.h"

#include <algorithm>

#include <fmt/format.h>

namespace tgsim::report {
namespace {

std::string pct(double x) { return fmt::format("{:.1f}%", 100.0 * x); }

std::string resource_amount(const engine::ResourceStat& s) {
  if (s.name == "tensor") return fmt::format("{:.3g} TFLOP", s.amount * 1e-12);
  if (s.amount > 0) return fmt::format("{:.3g} MB", s.amount * 1e-6);
  return "";
}

}  // namespace

nlohmann::json result_to_json(const engine::Result& r, const RunContext& ctx) {
  using nlohmann::json;
  json j;
  j["latency_us"] = to_us(r.latency);
  j["gpu"] = ctx.gpu;
  json res = json::object();
  for (const auto& s : r.resources) {
    res[s.name] = {{"instances", s.instances},
                   {"busy_us", to_us(s.busy)},
                   {"utilisation", s.utilisation},
                   {s.name == "tensor" ? "flops" : "bytes", s.amount}};
  }
  j["resources"] = res;
  j["bottleneck"] = {{"resource", r.bottleneck}, {"utilisation", r.bottleneck_utilisation}};
  json kernels = json::array();
  for (const auto& k : r.kernels) {
    kernels.push_back({{"name", k.name},
                       {"gpu", k.gpu},
                       {"stream", k.stream},
                       {"start_us", to_us(k.start)},
                       {"end_us", to_us(k.end)},
                       {"duration_us", to_us(k.end - k.start)},
                       {"ctas", k.ctas},
                       {"ctas_per_sm", k.max_ctas_per_sm},
                       {"waves", k.waves},
                       {"sm_clock_mhz", k.sm_clock_mhz},
                       {"tensor_utilisation", k.tensor_utilisation},
                       {"simt_utilisation", k.simt_utilisation},
                       {"smem_utilisation", k.smem_utilisation},
                       {"l2_bytes", k.l2_bytes},
                       {"hbm_bytes", k.hbm_bytes},
                       {"power_duty", k.power_duty}});
  }
  j["kernels"] = kernels;
  json cp = json::array();
  for (const auto& c : r.critical_path) {
    cp.push_back({{"what", c.what}, {"us", to_us(c.time)},
                  {"share", r.latency.count() > 0 ? static_cast<double>(c.time.count()) / static_cast<double>(r.latency.count()) : 0}});
  }
  j["critical_path"] = cp;
  j["stats"] = {{"node_executions", r.node_executions},
                {"events", r.events},
                {"l2_hits", r.l2_hits},
                {"l2_misses", r.l2_misses},
                {"l2_hit_rate", r.l2_hits + r.l2_misses > 0
                                    ? static_cast<double>(r.l2_hits) / static_cast<double>(r.l2_hits + r.l2_misses)
                                    : 0.0}};
  j["inputs"] = ctx.inputs;
  j["gpu_spec"] = ctx.gpu_spec;
  return j;
}

std::string result_to_text(const engine::Result& r, const RunContext& ctx) {
  std::string out;
  out += fmt::format("latency      {:.3f} us  on {}\n", to_us(r.latency), ctx.gpu);
  out += fmt::format("bottleneck   {} ({} utilised)\n", r.bottleneck.empty() ? "none" : r.bottleneck,
                     pct(r.bottleneck_utilisation));
  out += "\nkernels\n";
  for (const auto& k : r.kernels) {
    out += fmt::format("  {:<40} {:>10.3f} us  {:>6} CTAs  {:>2}/SM  {:>5.2f} waves  {:>5.0f} MHz  tensor {}\n",
                       k.name.size() > 40 ? k.name.substr(0, 37) + "..." : k.name, to_us(k.end - k.start), k.ctas,
                       k.max_ctas_per_sm, k.waves, k.sm_clock_mhz, pct(k.tensor_utilisation));
  }
  out += "\nresources (busy share of the run, averaged over instances)\n";
  for (const auto& s : r.resources) {
    out += fmt::format("  {:<9} x{:<4} {:>6}  {}\n", s.name, s.instances, pct(s.utilisation), resource_amount(s));
  }
  if (!r.critical_path.empty()) {
    out += "\ncritical path of the last CTA to finish\n";
    for (const auto& c : r.critical_path) {
      out += fmt::format("  {:<46} {:>10.3f} us  {:>6}\n", c.what, to_us(c.time),
                         pct(static_cast<double>(c.time.count()) / std::max<double>(1.0, static_cast<double>(r.latency.count()))));
    }
  }
  out += fmt::format("\n{} node executions, L2 hit rate {}\n", r.node_executions,
                     pct(r.l2_hits + r.l2_misses > 0
                             ? static_cast<double>(r.l2_hits) / static_cast<double>(r.l2_hits + r.l2_misses)
                             : 0.0));
  return out;
}

}  // namespace tgsim::report
