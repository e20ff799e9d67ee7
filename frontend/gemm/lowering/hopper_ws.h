// The warp-specialised template shared by the Hopper (wgmma) and Blackwell (tcgen05) lowerings.
#pragma once

#include "frontend/gemm/lowering/lowering.h"

namespace tgsim::gemm {

struct WsVariant {
  TensorInst inst = TensorInst::wgmma;
  int accumulator_buffers = 1;                // Blackwell: 2 TMEM buffers let the next tile start early
  bool accumulators_free_after_convert = false;  // TMEM read done once converted
  double store_fence_cycles = 0;        // per staged epilogue sub-tile (tma.store_fence)
  double group_scan_cycles = 0;         // grouped kernels: per group the tile scheduler steps over (one dependent L2 read)
  // The consumers' shortest K step (full-barrier wait, wgmma group, commit, wait, release:
  // tensor.ws_k_step_floor) and what a K step's MMAs take: where the floor is longer, a delay
  // node per K step holds the loop to it. 0: no floor.
  double k_step_floor_cycles = 0;
  double k_step_mma_cycles = 0;
};

std::int64_t ws_shared_memory(const Problem& p, const Schedule& s, const hw::GpuSpec& spec);
graph::CtaTemplate build_ws_template(const Problem& p, const Schedule& s, const Plan& plan, const WsVariant& v,
                                     const std::vector<WorkItem>& items);

}  // namespace tgsim::gemm
