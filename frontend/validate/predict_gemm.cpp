// Predicting a `gemm` measurement row: the kernel name(s) in the row give the schedule (empty:
// the default rule); the row's order says how M, N, K map to the library's m, n, k.
#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "frontend/gemm/lower.h"
#include "frontend/gemm/request.h"
#include "frontend/text.h"
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

namespace {

// Simulates the request as the row's measurement ran it (measurement_options: the flush's dirty L2
// and idle gap, the card at rest or in steady state).
Prediction simulate_measured(const gemm::Request& req, const hw::GpuSpec& spec, const engine::SimOptions& opts) {
  Prediction p;
  gemm::Resolved r;
  try {
    r = gemm::resolve(req, spec);
  } catch (const InputError& e) {
    p.skip_reason = e.what();
    return p;
  }
  gemm::LoweredGemm lowered;
  try {
    lowered = gemm::lower_gemm(r.problem, r.schedule, spec);
  } catch (const InputError& e) {
    p.skip_reason = e.what();
    return p;
  }
  graph::validate_tile_graph(lowered.graph, lowered.graph.name);
  p.predicted_us = to_us(engine::simulate(lowered.graph, spec, opts).latency);
  p.ok = true;
  p.category = category(req, lowered.schedule);
  p.schedule = lowered.schedule.name;
  return p;
}

// The first kernel's launch dims from a `grid` / `cluster` cell ("66x2x1;32x16x1": one per kernel).
std::array<int, 3> first_launch_dims(const Row& row, const std::string& column) {
  const std::string& cell = row.get(column);
  const auto parts = frontend::split(cell, ';');
  if (parts.empty()) return {0, 0, 0};
  return frontend::dims3(frontend::trim(parts.front())).value_or(std::array<int, 3>{0, 0, 0});
}

std::optional<DType> row_dtype(const Row& row, Prediction& p) {
  const std::string dtype = row.get("dtype").empty() ? "bf16" : row.get("dtype");
  const auto t = parse_dtype(dtype);
  if (!t) p.skip_reason = fmt::format("unknown dtype \"{}\"", dtype);
  return t;
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
  const auto t = row_dtype(row, p);
  if (!t) return p;
  req.dtype = *t;
  const std::string order = row.get("order").empty() ? "row" : row.get("order");
  if (order != "row" && order != "col") {
    p.skip_reason = fmt::format("order must be row or col, got \"{}\"", order);
    return p;
  }
  req.row_major = order == "row";
  req.kernel = row.get("kernel");
  req.launch_grid = first_launch_dims(row, "grid");
  req.launch_cluster = first_launch_dims(row, "cluster");
  const hw::GpuSpec& spec = specs(row.get("gpu").empty() ? "h100" : row.get("gpu"));
  return simulate_measured(req, spec, measurement_options(row, origin, spec));
}

// A `grouped_gemm` row: `experts` problems of M = `tokens_per_expert` (else M) by N by K. Grouped
// kernels (CUTLASS ptr-array, torch._grouped_mm) tile the row-major problem as it is stated: the
// kernel's m is the tokens, so no m/n swap whatever `order` says.
Prediction predict_grouped_gemm(const Row& row, const std::string& origin, const SpecLoader& specs) {
  Prediction p;
  const auto e = row.number("experts", origin);
  auto m = row.number("tokens_per_expert", origin);
  if (!m) m = row.number("M", origin);
  const auto n = row.number("N", origin), k = row.number("K", origin);
  if (!e || !m || !n || !k || *e < 1) {
    p.skip_reason = "grouped_gemm row without experts, tokens_per_expert (or M), N and K";
    return p;
  }
  gemm::Request req;
  req.m = static_cast<std::int64_t>(*m);
  req.n = static_cast<std::int64_t>(*n);
  req.k = static_cast<std::int64_t>(*k);
  req.groups = static_cast<std::int64_t>(*e);
  req.grouped = true;
  const auto t = row_dtype(row, p);
  if (!t) return p;
  req.dtype = *t;
  req.row_major = false;
  req.kernel = row.get("kernel");
  const hw::GpuSpec& spec = specs(row.get("gpu").empty() ? "h100" : row.get("gpu"));
  p = simulate_measured(req, spec, measurement_options(row, origin, spec));
  if (p.ok) p.category = req.m <= 64 ? "grouped_skinny" : "grouped";
  return p;
}

}  // namespace tgsim::validate
