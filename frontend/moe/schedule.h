// How one MoE layer's dispatch, expert GEMMs and combine are placed in time and on SMs
// (docs/moe.md). Explicit registry of names: parse_schedule lists them on an unknown one.
//   sequential      : all-to-all kernel, grouped GEMM0 (+ activation), grouped GEMM1, all-to-all;
// C may also be a list with one value per GPU ("tile-overlap:8,10,10,10").
//   fixed-split:C   : one persistent kernel per GPU, C SMs communicate, the rest compute; GEMMs
//                     start when all tokens have arrived, the combine when all GEMMs are done;
//   tile-overlap[:C]: the same kernel with per-m-block arrival flags and per-tile done flags:
//                     tiles start as their tokens land, results go back as soon as they exist;
//   dynamic         : tile-overlap with C chosen per GPU by the cost model (layer.h) and idle
//                     communication SMs stealing GEMM0 tiles after their dispatch.
#pragma once

#include <string>
#include <vector>

namespace tgsim::moe {

enum class ScheduleKind { sequential, fixed_split, tile_overlap, dynamic };

struct MoeSchedule {
  ScheduleKind kind = ScheduleKind::sequential;
  int comm_sms = 0;  // C for fixed-split and tile-overlap (0: the default)
  std::vector<int> comm_per_gpu;  // "C0,C1,...": one C per GPU instead (empty: comm_sms everywhere)
  bool steal = false;
};

// "sequential", "fixed-split:C", "tile-overlap", "tile-overlap:C", "dynamic"; C may be
// "C0,C1,..." (one per GPU). Throws InputError
// naming --schedule and listing the valid forms.
MoeSchedule parse_schedule(const std::string& text);
std::string to_string(const MoeSchedule& s);
std::vector<std::string> schedule_names();

// assumed: 16 communication SMs when none is given (NCCL's channel count on NVSwitch systems,
// also what frontend/multigpu/collectives uses; 16 x 45 GB/s saturates every preset's link).
constexpr int kDefaultCommSms = 16;

}  // namespace tgsim::moe
