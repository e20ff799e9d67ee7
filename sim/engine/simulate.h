// The entry point for a simulation: replays the graph, and where the GPU's clock model lowers the
// clock under load (power limit), replays it again at the clock each kernel would run at.
#pragma once

#include "sim/engine/simulator.h"

namespace tgsim::engine {

// Pass 1 at each kernel's ceiling (boost, or clock.tensor_max for kernels with MMAs) gives its
// tensor duty; the clock model turns that into the kernel's clock; further passes (only where a
// clock moves, at most 6 in all) solve the clock's fixed point (simulate.cpp). With options.kernel_clock_hz set, one pass at those clocks. Throws like Simulator.
Result simulate(const graph::TileGraph& graph, const hw::GpuSpec& spec, const SimOptions& options = {});

}  // namespace tgsim::engine
