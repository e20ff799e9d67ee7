// The SM-split kernel family as a tile graph: one persistent kernel, one CTA per SM on GPU 0;
// CTAs [0, c) push `bytes` to GPU 1 over NVLink in chunks taken from an atomic counter, the rest
// run tensor-core tiles (mma.sync loops on registers) taken from a second counter; with `steal`
// the communication CTAs take tiles too once the copy is done (tools/bench/sm_split_kernel.h is
// the measured kernel, run by tools/bench/sm_split.cu; docs/multigpu.md the model).
//
// A static graph cannot take work items at run time, so the counters are replayed by a plan:
//   * plan_sm_split: chunk i goes to communication CTA i mod c and tile j to compute CTA
//     j mod (CTAs - c) -- what the counter hands out when every worker of a kind runs at the
//     same speed, which the model's workers do;
//   * plan_steal (two passes): from a first run without stealing, each communication CTA's
//     copy end and the time of one tile; tiles then go one by one to the worker that is free
//     first (ties: the lower CTA), which is what an atomic counter does with equal tile times.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/graph/tile_graph.h"
#include "sim/hw/gpu_spec.h"
#include "sim/hw/system_spec.h"
#include "sim/units/units.h"

namespace tgsim::multigpu {

struct SmSplitParams {
  int comm_blocks = 0;     // c: communication CTAs
  std::int64_t bytes = 0;  // pushed GPU 0 -> GPU 1
  std::int64_t chunk_bytes = 1 << 20;
  std::int64_t tiles = 0;  // compute tiles
  int mma_per_warp_per_tile = 1024;
  int mma_chains = 4;  // independent accumulator chains per warp
  int threads = 256;   // per CTA (every CTA)
  bool steal = false;
  DType dtype = DType::bf16;  // mma.sync m16n8k16
  int ctas = 0;               // grid size; 0: one per SM of the GPU
};

// Work of each CTA (index = blockIdx): chunk sizes it pushes, then tiles it computes.
struct SmSplitPlan {
  std::vector<std::vector<std::int64_t>> chunks;
  std::vector<std::int64_t> tiles;
};

// Throws InputError for impossible parameters (c > CTAs, no compute CTA left for tiles, ...).
void check_sm_split(const SmSplitParams& p, const hw::GpuSpec& gpu);
int sm_split_ctas(const SmSplitParams& p, const hw::GpuSpec& gpu);

SmSplitPlan plan_sm_split(const SmSplitParams& p, const hw::GpuSpec& gpu);

// copy_end[k]: when communication CTA k finished its chunks (relative to the CTAs' start),
// tile_time: one tile on one CTA. Reassigns every tile as the shared counter would.
SmSplitPlan plan_steal(const SmSplitParams& p, const hw::GpuSpec& gpu, const std::vector<Duration>& copy_end,
                       Duration tile_time);

// Cycles one CTA spends per tile, from the GPU's mma.sync rate and chain latency
// (tensor.mma_sync_latency): the issue model of docs/multigpu.md.
double sm_split_tile_cycles(const SmSplitParams& p, const hw::GpuSpec& gpu);

// The GPU as the SM-split kernel runs on it: with clock.mma_sync_loop known, a constant clock
// at that value (the GEMM-calibrated power model does not cover register-only mma.sync loops;
// docs/multigpu.md); otherwise the spec unchanged.
hw::GpuSpec sm_split_gpu(const hw::GpuSpec& gpu);

// Cycles a worker spends taking the next item from a counter (atomicAdd by one thread, then a
// barrier): an L2 round trip; a chunk then refills its load pipeline from HBM (hbm.latency).
double take_tile_cycles(const hw::GpuSpec& gpu);
double take_chunk_cycles(const hw::GpuSpec& gpu);

// The graph: 2 GPUs, one kernel on GPU 0. Communication CTAs: take, put, take, put, ... then a
// fence (__threadfence_system: the last stores become visible, nvlink.latency); compute CTAs:
// per tile an mma node (the tensor pipe's share) beside a delay node (take + issue time).
graph::TileGraph lower_sm_split(const SmSplitParams& p, const SmSplitPlan& plan, const hw::GpuSpec& gpu,
                                const hw::SystemSpec& sys);

}  // namespace tgsim::multigpu
