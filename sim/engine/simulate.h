// The entry point for a simulation: replays the graph, and where the GPU's clock model lowers the
// clock under load (power limit), replays it again at the clock each kernel would run at.
#pragma once

#include "sim/engine/simulator.h"

namespace tgsim::engine {

// Pass 1 at the boost clock gives each kernel's tensor duty; the clock model turns that into the
// kernel's clock; pass 2 (only if some clock differs) gives the result. Throws like Simulator.
Result simulate(const graph::TileGraph& graph, const hw::GpuSpec& spec, const SimOptions& options = {});

}  // namespace tgsim::engine
