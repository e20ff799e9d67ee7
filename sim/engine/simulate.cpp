#include "sim/engine/simulate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "sim/engine/clock/clock_model.h"

namespace tgsim::engine {
namespace {

// A replay at the given kernel clocks; the trace only on the final pass (the critical path is
// kept on every pass, so the pass that converges is the answer without one more replay).
Result run_at(const graph::TileGraph& graph, const hw::GpuSpec& spec, const SimOptions& options,
              const std::vector<double>& hz, bool final_pass) {
  SimOptions o = options;
  if (!final_pass) o.trace = nullptr;
  o.kernel_clock_hz = hz;
  return Simulator(graph, spec, o).run();
}

bool differ(const std::vector<double>& a, const std::vector<double>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::abs(a[i] - b[i]) > 0.002 * a[i]) return true;
  }
  return false;
}

}  // namespace

// The clock a kernel settles at solves f x duty(f) = K (its power product): lowering the clock
// raises the duty of a kernel that also waits on memory, and g(f) = f x duty(f) (tensor cycles
// per second) grows with f. Pass 1 runs at each kernel's ceiling and gives its duty and its K; pass 2
// runs at min(ceiling, K / duty). Each later pass models each kernel's time as T(f) = a/f + b
// from its last two passes and solves f duty(f) = K in closed form, kept inside the bracket of
// clocks known to give g below and above K (else bisection), until every kernel's g is within
// 1% of its K or its clock moves by less than 0.5%; at most kMaxPasses replays (the clock that
// came closest is kept).
Result simulate(const graph::TileGraph& graph, const hw::GpuSpec& spec, const SimOptions& options) {
  constexpr int kMaxPasses = 6;
  const auto clock = make_clock_model(spec);
  const double boost = spec.clock.boost.value;
  const std::size_t n = graph.kernels.size();
  if (!options.kernel_clock_hz.empty()) return Simulator(graph, spec, options).run();
  if (clock->name() == "constant") return run_at(graph, spec, options, std::vector<double>(n, clock->sm_clock({}).value), true);

  // Pass 1 runs each kernel at its ceiling: boost, or clock.tensor_max for a kernel with MMAs (for
  // one that issues wgmma, clock.tensor_max_wgmma at vanishing duty, the highest it may run at). It
  // keeps the critical path (it is the answer when no power limit binds and the ceiling does not
  // depend on the duty) but no trace.
  std::vector<double> f0(n, boost);
  std::vector<char> wgmma(n, 0);
  for (std::size_t k = 0; k < n; ++k) {
    bool mma = false;
    for (const auto& t : graph.kernels[k].templates) {
      for (const auto& node : t.nodes) {
        if (node.kind != graph::NodeKind::mma) continue;
        mma = true;
        wgmma[k] = wgmma[k] || node.inst == TensorInst::wgmma;
      }
    }
    if (mma) f0[k] = clock->top_ceiling(wgmma[k] != 0).value;
  }
  SimOptions first = options;
  first.trace = nullptr;
  first.kernel_clock_hz = f0;
  const Result r0 = Simulator(graph, spec, first).run();
  // Each GPU's average power duty (the tensor duty unless the spec sets the power-duty terms) over
  // the run plus the idle gap of a repeated measurement: what its slow power limit sees.
  std::vector<double> busy;
  for (const auto& k : r0.kernels) {
    if (static_cast<std::size_t>(k.gpu) >= busy.size()) busy.resize(static_cast<std::size_t>(k.gpu) + 1, 0.0);
    busy[static_cast<std::size_t>(k.gpu)] += k.power_duty * to_seconds(k.end - k.start);
  }
  const double window = to_seconds(r0.latency) + to_seconds(options.repeat_gap);
  // From rest: the load has run until the middle of the median repetition (at pass 1's clocks).
  const double under_load = options.from_rest_reps > 0 ? (options.from_rest_reps / 2 + 0.5) * window : -1.0;
  const auto activity = [&](std::size_t k) {
    const auto g = static_cast<std::size_t>(r0.kernels[k].gpu);
    const double window_duty = options.window_duty >= 0 ? options.window_duty : window > 0 ? busy[g] / window : 0;
    KernelActivity a{r0.kernels[k].tensor_utilisation, r0.kernels[k].eight_bit, window_duty, under_load};
    a.wgmma = wgmma[k] != 0;
    a.power_duty = r0.kernels[k].power_duty;
    return a;
  };
  // Each kernel's ceiling at the duty pass 1 measured (below f0 where it falls with the duty). A
  // kernel whose power product K binds below it (K / duty < ceiling) solves f x duty(f) = K below
  // the ceiling; the others run at it.
  std::vector<double> f(n), target(n, 0.0), cap = f0;
  for (std::size_t k = 0; k < n; ++k) {
    const KernelActivity a = activity(k);
    if (a.tensor_duty > 0) cap[k] = std::min(f0[k], clock->ceiling(a).value);
    f[k] = std::min(cap[k], clock->sm_clock(a).value);
    const double p = clock->power_product(a).value;
    if (a.tensor_duty > 0 && p > 0 && p / a.duty_for_power() < cap[k] - 1.0) target[k] = p;
  }
  if (!differ(f0, f)) return options.trace == nullptr ? r0 : run_at(graph, spec, options, f0, true);

  // Per kernel: the closest clocks known to give g below (lo) and above (hi) its K with their g,
  // the previous pass's clock and time (for the guess), and the best clock seen so far.
  std::vector<double> lo(n, 0.0), g_lo(n, 0.0), hi = cap, g_hi(n), f_prev = f0, t_prev(n);
  std::vector<double> best = f, best_err(n, 1e300);
  for (std::size_t k = 0; k < n; ++k) {
    t_prev[k] = to_seconds(r0.kernels[k].end - r0.kernels[k].start);
    g_hi[k] = cap[k] * r0.kernels[k].power_duty;  // at f0; taken for the ceiling (a few % below)
  }
  for (int pass = 2; pass <= kMaxPasses; ++pass) {
    Result r = run_at(graph, spec, options, f, false);
    std::vector<double> next = f;
    bool moved = false;
    for (std::size_t k = 0; k < n; ++k) {
      if (target[k] <= 0) continue;
      const double t = to_seconds(r.kernels[k].end - r.kernels[k].start);
      const double g = f[k] * r.kernels[k].power_duty;
      const double fp = f_prev[k], tp = t_prev[k];
      f_prev[k] = f[k];
      t_prev[k] = t;
      // At its ceiling with the power product not reached: that is the answer.
      const bool at_cap = f[k] >= cap[k] - 1.0 && g <= target[k] * 1.01;
      const double err = at_cap ? 0.0 : std::abs(g - target[k]) / target[k];
      if (err < best_err[k] || err <= 0.01) {  // a converged clock is kept even if an earlier one was closer
        best_err[k] = err;
        best[k] = f[k];
      }
      if (g <= 0 || err <= 0.01) continue;
      if (g > target[k]) {
        hi[k] = f[k];
        g_hi[k] = g;
      } else {
        lo[k] = f[k];
        g_lo[k] = g;
      }
      // Guess: the kernel's time as T(f) = a/f + b through this pass and the previous one, so
      // duty(f) = cycles / (a + b f) and f duty(f) = K at f = K a / (cycles - K b); else regula
      // falsi inside the bracket; else bisection, or f K / g while only one side is known.
      double fn = 0;
      const double a = (t - tp) / (1.0 / f[k] - 1.0 / fp);
      const double b = t - a / f[k];
      const double cycles = r.kernels[k].power_duty * t * f[k];
      if (std::abs(fp - f[k]) > 1.0 && a > 0 && b >= 0 && cycles - target[k] * b > 0) {
        fn = target[k] * a / (cycles - target[k] * b);
      }
      const bool bracketed = lo[k] > 0;
      const double margin = bracketed ? 0.02 * (hi[k] - lo[k]) : 0.0;
      if (!(fn > (bracketed ? lo[k] + margin : 0.25 * f[k]) && fn < hi[k] - margin)) {
        if (bracketed && g_hi[k] > g_lo[k]) {
          fn = lo[k] + (target[k] - g_lo[k]) * (hi[k] - lo[k]) / (g_hi[k] - g_lo[k]);
          if (!(fn > lo[k] + margin && fn < hi[k] - margin)) fn = 0.5 * (lo[k] + hi[k]);
        } else {
          fn = bracketed ? 0.5 * (lo[k] + hi[k]) : f[k] * target[k] / g;
        }
      }
      fn = std::clamp(fn, bracketed ? lo[k] : 0.25 * f[k], hi[k]);
      if (std::abs(fn - f[k]) > 0.005 * f[k]) {
        next[k] = fn;
        moved = true;
      }
    }
    if (!moved && !differ(best, f)) return options.trace == nullptr ? r : run_at(graph, spec, options, f, true);
    if (!moved) break;
    f = next;
  }
  return run_at(graph, spec, options, best, true);
}

}  // namespace tgsim::engine
