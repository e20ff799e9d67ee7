// MoE layer + schedule -> one tile graph over the system's GPUs (docs/moe.md).
#pragma once

#include <cstdint>
#include <vector>

#include "frontend/moe/layer.h"
#include "frontend/moe/schedule.h"
#include "sim/graph/tile_graph.h"
#include "sim/hw/gpu_spec.h"
#include "sim/hw/system_spec.h"

namespace tgsim::moe {

struct LoweredLayer {
  graph::TileGraph graph;
  std::vector<int> comm_sms;           // per GPU: C (sequential: the all-to-all's channels)
  std::vector<CostModelTerms> cost;    // per GPU (every schedule: what dynamic would pick)
  std::vector<std::int64_t> tiles;     // per GPU: expert tiles
  std::vector<std::int64_t> stolen;    // per GPU: tiles run by communication SMs (dynamic)
};

// Throws InputError when the system's GPU count differs from the layer's or C leaves no SM.
LoweredLayer lower_layer(const MoeLayer& l, const MoeSchedule& s, const hw::GpuSpec& gpu, const hw::SystemSpec& sys);

// The pieces (lower_sequential.cpp, lower_persistent.cpp).
graph::TileGraph lower_sequential(const MoeLayer& l, const hw::GpuSpec& gpu, const hw::SystemSpec& sys);
graph::TileGraph lower_persistent(const MoeLayer& l, const MoeSchedule& s, const std::vector<int>& comm_sms,
                                  const hw::GpuSpec& gpu, const hw::SystemSpec& sys, std::vector<std::int64_t>& stolen);

// NCCL-like all-to-all channels for the sequential schedule and its chunk (Simple protocol step);
// the per-pair chunking of dispatch in the persistent kernels uses the same chunk size.
constexpr int kA2aChannels = 16;
constexpr int kA2aThreads = 512;
constexpr std::int64_t kChunkBytes = 512 * 1024;

}  // namespace tgsim::moe
