// Predicting a `gemm` measurement row: the kernel name(s) in the row give the schedule (empty:
// the default rule); the row's order says how M, N, K map to the library's m, n, k.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "frontend/gemm/lower.h"
#include "frontend/gemm/request.h"
#include "frontend/validate/validate.h"
#include "sim/engine/simulate.h"
#include "sim/graph/validate.h"
#include "sim/units/error.h"

namespace tgsim::validate {
namespace {

std::string category(const gemm::Request& r, const gemm::Schedule& s) {
  if (r.dtype == DType::fp8_e4m3 || r.dtype == DType::fp8_e5m2) return "fp8";
  if (s.split_k > 1) return "split_k";
  const std::int64_t small = std::min(r.m, r.n);
  if (small <= 64) return "skinny";
  if (r.k >= 4 * std::max(r.m, r.n)) return "k_heavy";
  if (r.m == r.n && r.n == r.k) return "square";
  return "other";
}

}  // namespace

Prediction predict_gemm(const Row& row, const std::string& origin, const SpecLoader& specs) {
  Prediction p;
  gemm::Request req;
  const auto m = row.number("M", origin), n = row.number("N", origin), k = row.number("K", origin);
  if (!m || !n || !k) {
    p.skip_reason = "gemm row without M, N and K";
    return p;
  }
  req.m = static_cast<std::int64_t>(*m);
  req.n = static_cast<std::int64_t>(*n);
  req.k = static_cast<std::int64_t>(*k);
  const std::string dtype = row.get("dtype").empty() ? "bf16" : row.get("dtype");
  const auto t = parse_dtype(dtype);
  if (!t) {
    p.skip_reason = fmt::format("unknown dtype \"{}\"", dtype);
    return p;
  }
  req.dtype = *t;
  const std::string order = row.get("order").empty() ? "row" : row.get("order");
  if (order != "row" && order != "col") {
    p.skip_reason = fmt::format("order must be row or col, got \"{}\"", order);
    return p;
  }
  req.row_major = order == "row";
  req.kernel = row.get("kernel");
  const std::string gpu = row.get("gpu").empty() ? "h100" : row.get("gpu");
  const hw::GpuSpec& spec = specs(gpu);
  gemm::Resolved r;
  try {
    r = gemm::resolve(req, spec);
  } catch (const InputError& e) {
    p.skip_reason = e.what();
    return p;
  }
  const auto lowered = gemm::lower_gemm(r.problem, r.schedule, spec);
  graph::validate_tile_graph(lowered.graph, lowered.graph.name);
  engine::SimOptions opts;
  // docs/measurements.md: L2 is flushed before each repetition by writing a buffer larger than
  // L2, so every measured run starts with L2 full of dirty lines.
  opts.l2_starts_dirty = true;
  opts.repeat_gap = measurement_flush_gap(spec);
  opts.critical_path = false;
  p.predicted_us = to_us(engine::simulate(lowered.graph, spec, opts).latency);
  p.ok = true;
  p.category = category(req, lowered.schedule);
  p.schedule = lowered.schedule.name;
  return p;
}

}  // namespace tgsim::validate
