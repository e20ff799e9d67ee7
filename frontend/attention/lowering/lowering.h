// The attention kernel lowerings (one per schedule family) and the split-KV combine kernel.
#pragma once

#include "frontend/attention/lowering/work.h"
#include "frontend/attention/problem.h"
#include "frontend/attention/schedule.h"
#include "sim/graph/tile_graph.h"
#include "sim/hw/gpu_spec.h"

namespace tgsim::attention {

// FlashAttention-2: cp.async + mma.sync, every warp loads and computes (fa2.cpp).
graph::Kernel build_fa2_kernel(const Problem& p, const Schedule& s, const Tiling& t, const hw::GpuSpec& spec);
// Hopper warp-specialised (FlashAttention-3, cuDNN): TMA producer + wgmma consumer warpgroups (warp_specialized.cpp).
graph::Kernel build_ws_kernel(const Problem& p, const Schedule& s, const Tiling& t, const hw::GpuSpec& spec);
// Merges the split-KV partial outputs (combine.cpp).
graph::Kernel build_combine_kernel(const Problem& p, const Schedule& s, const Tiling& t, const hw::GpuSpec& spec);

}  // namespace tgsim::attention
