#include "frontend/gemm/default_schedule.h"

#include <algorithm>

#include <fmt/format.h>

#include "frontend/gemm/lower.h"
#include "frontend/gemm/tile_order.h"

namespace tgsim::gemm {
namespace {

// 128 bytes of K per stage (64 for 16-bit types, 128 for fp8, 32 for tf32), as CUTLASS/cuBLAS do.
int k_tile(DType t) { return static_cast<int>(1024 / dtype_bits(t)); }

// Deepest pipeline whose stages fit next to the epilogue staging buffer.
int max_stages(const Problem& p, const Schedule& s, const hw::GpuSpec& spec) {
  const double stage = (s.tile.m * element_bytes(p.a_type) + s.tile.n * element_bytes(p.b_type)) * s.tile.k;
  const double epilogue = s.family == Family::ampere_multistage
                              ? 0.0
                              : std::min<double>(s.tile.m * s.tile.n * element_bytes(p.c_type), 32.0 * 1024);
  const double room = static_cast<double>(spec.sm.shared_memory_per_cta.value) - epilogue - 1024;
  return std::clamp(static_cast<int>(room / stage), 1, s.family == Family::ampere_multistage ? 5 : 8);
}

std::int64_t next_pow2(std::int64_t x) {
  std::int64_t p = 1;
  while (p < x) p *= 2;
  return p;
}

Family family_for(const hw::GpuSpec& spec) {
  if (spec.arch == "ampere") return Family::ampere_multistage;
  if (spec.arch == "blackwell") return Family::blackwell_tcgen05;
  return Family::hopper_warpspecialized;
}

Schedule base(const Problem& p, const hw::GpuSpec& spec) {
  Schedule s;
  s.family = family_for(spec);
  s.a_type = p.a_type;
  s.b_type = p.b_type;
  s.c_type = p.c_type;
  s.tile.k = k_tile(p.a_type);
  s.persistent = s.family != Family::ampere_multistage;
  s.raster = Raster::along_n;
  s.swizzle = 1;
  return s;
}

// CUTLASS's raster heuristic, resolved for this problem (so the schedule shows the direction).
Raster heuristic_raster(const Problem& p, const Schedule& s) {
  return resolve_raster(Raster::heuristic, (p.m + s.tile.m - 1) / s.tile.m, (p.n + s.tile.n - 1) / s.tile.n);
}

}  // namespace

// What torch._grouped_mm (PyTorch 2.11, CUTLASS ptr-array kernels) ran for every bf16 shape of
// traces/h200/grouped_gemm.csv: M per group <= 128 -> ping-pong 64x128x128, else cooperative
// 128x256x64; both 4 stages, cluster 2x1, persistent, CUTLASS's raster heuristic.
Schedule grouped_default_schedule(const Problem& p, const hw::GpuSpec& spec) {
  Schedule s = base(p, spec);
  s.grouped = true;
  s.grouped_setup = true;
  const bool small = p.m <= 128;
  s.tile = small ? TileShape{64, 128, 128} : TileShape{128, 256, 64};
  s.warp_specialization = small ? WarpSpecialization::pingpong : WarpSpecialization::cooperative;
  s.consumer_warpgroups = 2;
  s.stages = 4;
  s.cluster = ClusterShape{2, 1};
  s.epilogue_tile_m = 64;  // Sm90PtrArrayTmaWarpSpecialized<4, 2, ...> with a 64x32 epilogue tile
  s.epilogue_tile_n = 32;
  s.epilogue_stages = 2;
  s.raster = heuristic_raster(p, s);
  s.name = fmt::format("default_grouped_{}_{}x{}x{}_s4_c2x1", small ? "pingpong" : "cooperative", s.tile.m, s.tile.n,
                       s.tile.k);
  return s;
}

Schedule default_schedule(const Problem& p, const hw::GpuSpec& spec, bool grouped) {
  if ((grouped || p.groups > 1) && family_for(spec) == Family::hopper_warpspecialized && dtype_bits(p.a_type) == 16) {
    return grouped_default_schedule(p, spec);
  }
  Schedule s = base(p, spec);
  s.grouped = grouped || p.groups > 1;
  if (s.family == Family::ampere_multistage) {
    s.tile = {p.n <= 64 ? 64 : 128, p.n <= 64 ? static_cast<int>(std::clamp<std::int64_t>(next_pow2(p.n), 32, 64)) : 128,
              k_tile(p.a_type) / 2};
    s.warps = 4;
    s.warp_specialization = WarpSpecialization::none;
  } else {
    // Skinny n (few tokens): a narrow tile along n, 64 rows along m; otherwise 128x256 (128x128
    // when the grid of 128x256 tiles would not fill the GPU once).
    if (p.n <= 64) {
      s.tile.m = 64;
      s.tile.n = static_cast<int>(std::clamp<std::int64_t>(next_pow2(p.n), 16, 64));
      s.warp_specialization = WarpSpecialization::pingpong;
      s.consumer_warpgroups = 1;
    } else {
      s.tile.m = 128;
      const std::int64_t tiles_256 = ((p.m + 127) / 128) * ((p.n + 255) / 256);
      s.tile.n = tiles_256 >= spec.sm.count ? 256 : 128;
      s.warp_specialization = WarpSpecialization::cooperative;
      s.consumer_warpgroups = 2;
    }
    const std::int64_t tiles = ((p.m + s.tile.m - 1) / s.tile.m) * ((p.n + s.tile.n - 1) / s.tile.n);
    s.cluster = tiles >= 2 * spec.sm.count ? ClusterShape{2, 1} : ClusterShape{1, 1};
  }
  s.stages = max_stages(p, s, spec);
  const std::int64_t tiles = ((p.m + s.tile.m - 1) / s.tile.m) * ((p.n + s.tile.n - 1) / s.tile.n);
  const std::int64_t k_iters = (p.k + s.tile.k - 1) / s.tile.k;
  if (!s.grouped && tiles * 2 <= spec.sm.count && k_iters >= 8) s.split_k = pick_split_k(p, s, spec);
  s.name = fmt::format("default_{}x{}x{}_s{}{}", s.tile.m, s.tile.n, s.tile.k, s.stages,
                       s.split_k > 1 ? fmt::format("_splitk{}", s.split_k) : "");
  return s;
}

std::vector<Schedule> candidate_schedules(const Problem& p, const hw::GpuSpec& spec) {
  std::vector<Schedule> out;
  out.push_back(default_schedule(p, spec));
  const bool ampere = family_for(spec) == Family::ampere_multistage;
  const std::vector<std::pair<int, int>> tiles = ampere
      ? std::vector<std::pair<int, int>>{{64, 64}, {128, 64}, {64, 128}, {128, 128}, {256, 128}, {128, 256}}
      : std::vector<std::pair<int, int>>{{64, 16}, {64, 32}, {64, 64}, {64, 128}, {128, 64}, {128, 128}, {128, 256}, {256, 128}};
  for (auto [tm, tn] : tiles) {
    for (int cluster : {1, 2}) {
      if (ampere && cluster == 2) continue;
      for (int split : {1, 2, 4, 8}) {
        Schedule s = base(p, spec);
        s.tile.m = tm;
        s.tile.n = tn;
        if (ampere) {
          s.tile.k = k_tile(p.a_type) / 2;
          s.warps = tm * tn >= 128 * 128 ? 8 : 4;
          s.warp_specialization = WarpSpecialization::none;
        } else if (tm >= 128) {
          s.warp_specialization = WarpSpecialization::cooperative;
          s.consumer_warpgroups = 2;
        } else {
          s.warp_specialization = WarpSpecialization::pingpong;
          s.consumer_warpgroups = 2;
        }
        s.cluster = ClusterShape{cluster, 1};
        s.split_k = split;
        const std::int64_t k_iters = (p.k + s.tile.k - 1) / s.tile.k;
        if (split > 1 && k_iters < 4 * split) continue;
        s.stages = max_stages(p, s, spec);
        s.name = fmt::format("cand_{}x{}x{}_c{}_s{}{}", tm, tn, s.tile.k, cluster, s.stages,
                             split > 1 ? fmt::format("_splitk{}", split) : "");
        out.push_back(s);
      }
    }
  }
  return out;
}

}  // namespace tgsim::gemm
