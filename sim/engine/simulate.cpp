#include "sim/engine/simulate.h"

#include <algorithm>
#include <cmath>

#include "sim/engine/clock/clock_model.h"

namespace tgsim::engine {
namespace {

Result run_at(const graph::TileGraph& graph, const hw::GpuSpec& spec, const SimOptions& options,
              const std::vector<double>& hz, bool final_pass) {
  SimOptions o = options;
  if (!final_pass) {
    o.trace = nullptr;
    o.critical_path = false;
  }
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

// The clock a kernel settles at solves f = clock(duty(f)): lowering the clock raises the duty of
// a kernel that also waits on memory. Pass 1 runs at boost; pass 2 at the clock that pass-1 duty
// implies. Each kernel's time is then modelled as T(f) = a/f + b (clock-bound and fixed parts,
// from the two passes), so duty(f) = tensor_cycles / (a + b f) and the fixed point is solved in
// closed form; pass 3 runs there when it moved by more than 0.2%.
Result simulate(const graph::TileGraph& graph, const hw::GpuSpec& spec, const SimOptions& options) {
  const auto clock = make_clock_model(spec);
  const double boost = spec.clock.boost.value;
  const std::size_t n = graph.kernels.size();
  if (!options.kernel_clock_hz.empty()) return Simulator(graph, spec, options).run();
  if (clock->name() == "constant") return run_at(graph, spec, options, std::vector<double>(n, clock->sm_clock({}).value), true);

  const std::vector<double> f0(n, boost);
  // Pass 1 keeps the critical path (it is the answer when the clock stays at boost) but no trace.
  SimOptions first = options;
  first.trace = nullptr;
  first.kernel_clock_hz = f0;
  const Result r0 = Simulator(graph, spec, first).run();
  // Each GPU's average tensor activity over the run plus the idle gap of a repeated measurement:
  // what its slow power limit sees.
  std::vector<double> busy;
  for (const auto& k : r0.kernels) {
    if (static_cast<std::size_t>(k.gpu) >= busy.size()) busy.resize(static_cast<std::size_t>(k.gpu) + 1, 0.0);
    busy[static_cast<std::size_t>(k.gpu)] += k.tensor_utilisation * to_seconds(k.end - k.start);
  }
  const double window = to_seconds(r0.latency) + to_seconds(options.repeat_gap);
  const auto activity = [&](std::size_t k) {
    const auto g = static_cast<std::size_t>(r0.kernels[k].gpu);
    const double window_duty = options.window_duty >= 0 ? options.window_duty : window > 0 ? busy[g] / window : 0;
    return KernelActivity{r0.kernels[k].tensor_utilisation, r0.kernels[k].eight_bit, window_duty};
  };
  std::vector<double> f1(n);
  for (std::size_t k = 0; k < n; ++k) f1[k] = clock->sm_clock(activity(k)).value;
  if (!differ(f0, f1)) return options.trace == nullptr ? r0 : run_at(graph, spec, options, f0, true);
  const Result r1 = run_at(graph, spec, options, f1, false);
  std::vector<double> f2 = f1;
  for (std::size_t k = 0; k < n; ++k) {
    if (std::abs(f1[k] - boost) < 1.0) continue;
    const double t0 = to_seconds(r0.kernels[k].end - r0.kernels[k].start);
    const double t1 = to_seconds(r1.kernels[k].end - r1.kernels[k].start);
    const double a = (t1 - t0) / (1.0 / f1[k] - 1.0 / boost);  // clock-bound cycles
    const double b = t0 - a / boost;                            // clock-independent seconds
    const double tensor_cycles = r0.kernels[k].tensor_utilisation * t0 * boost;
    if (a <= 0 || b < 0 || tensor_cycles <= 0) continue;
    // f * duty(f) = K  with duty(f) = tensor_cycles / (a + b f)  =>  f = K a / (tensor_cycles - K b)
    const double k_hz = clock->power_product(activity(k)).value;
    const double denom = tensor_cycles - k_hz * b;
    f2[k] = denom > 0 ? std::clamp(k_hz * a / denom, k_hz, boost) : boost;
  }
  if (!differ(f1, f2)) return run_at(graph, spec, options, f1, true);
  return run_at(graph, spec, options, f2, true);
}

}  // namespace tgsim::engine
