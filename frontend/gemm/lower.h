// GEMM problem + schedule -> tile graph: the main kernel of the schedule's family (registry in
// frontend/gemm/lowering/) and, for split-K, the reduction kernel that follows it.
#pragma once

#include <string>
#include <vector>

#include "frontend/gemm/problem.h"
#include "frontend/gemm/schedule.h"
#include "sim/graph/tile_graph.h"
#include "sim/hw/gpu_spec.h"

namespace tgsim::gemm {

struct LoweredGemm {
  graph::TileGraph graph;
  Schedule schedule;               // as lowered (a run-time split-K factor resolved, etc.)
  std::vector<std::string> notes;  // decisions the lowering made that the schedule did not state
};

// Throws InputError for schedules the GPU cannot run or that do not fit (shared memory, tile).
LoweredGemm lower_gemm(const Problem& p, const Schedule& s, const hw::GpuSpec& spec);

// Split-K factor a library would pick when only "split-K" is known: enough CTAs to fill the GPU
// once, and at least 4 K iterations per split.
int pick_split_k(const Problem& p, const Schedule& s, const hw::GpuSpec& spec);

}  // namespace tgsim::gemm
