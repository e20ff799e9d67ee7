// Validating and simulating one graph as `tgsim gemm` does by default (tile_lru L2 that starts
// full of dirty lines, no critical path, no trace): the evaluators' shared last step.
#pragma once

#include "frontend/sweep/evaluator.h"
#include "sim/engine/result.h"
#include "sim/graph/graph_size.h"
#include "sim/graph/tile_graph.h"
#include "sim/hw/gpu_spec.h"

namespace tgsim::sweep {

engine::Result simulate_point(const graph::TileGraph& g, const hw::GpuSpec& spec, const graph::Limits& limits);

// simulate_point, summarised as a sweep row's result (`flops` > 0: TFLOP/s too).
Outcome simulate_outcome(const graph::TileGraph& g, const hw::GpuSpec& spec, const graph::Limits& limits, double flops,
                         std::string schedule);

}  // namespace tgsim::sweep
