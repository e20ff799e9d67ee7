#include "sim/engine/simulate.h"

#include <cmath>

#include "sim/engine/clock/clock_model.h"

namespace tgsim::engine {

Result simulate(const graph::TileGraph& graph, const hw::GpuSpec& spec, const SimOptions& options) {
  const auto clock = make_clock_model(spec);
  if (clock->name() == "constant" && options.kernel_clock_hz.empty()) {
    SimOptions fixed = options;
    fixed.kernel_clock_hz.assign(graph.kernels.size(), clock->sm_clock({}).value);
    return Simulator(graph, spec, fixed).run();
  }
  SimOptions first = options;
  first.trace = nullptr;
  first.critical_path = false;
  first.kernel_clock_hz.assign(graph.kernels.size(), spec.clock.boost.value);
  const Result at_boost = Simulator(graph, spec, first).run();
  SimOptions second = options;
  second.kernel_clock_hz.clear();
  bool changed = false;
  for (const auto& k : at_boost.kernels) {
    const double hz = clock->sm_clock(KernelActivity{k.tensor_utilisation, k.eight_bit}).value;
    changed = changed || std::abs(hz - spec.clock.boost.value) > 1.0;
    second.kernel_clock_hz.push_back(hz);
  }
  if (!changed && options.trace == nullptr && options.critical_path == first.critical_path) return at_boost;
  return Simulator(graph, spec, second).run();
}

}  // namespace tgsim::engine
