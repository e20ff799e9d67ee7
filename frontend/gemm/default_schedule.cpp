#include "frontend/gemm/default_schedule.h"

#include <algorithm>

#include <fmt/format.h>

#include "frontend/gemm/lower.h"
#include "frontend/gemm/tile_order.h"
#include "sim/units/error.h"

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

// TMA (Hopper, Blackwell) needs 16-byte aligned global strides (cuTensorMapEncodeTiled), so a
// problem whose rows are not 16-byte aligned runs a CUTLASS 2.x cp.async kernel, as cuBLASLt does.
Family family_for(const Problem& p, const hw::GpuSpec& spec) {
  if (spec.arch == "ampere" || operand_alignment_bytes(p) < 16) return Family::ampere_multistage;
  if (spec.arch == "blackwell") return Family::blackwell_tcgen05;
  return Family::hopper_warpspecialized;
}

// Misaligned problems the model cannot run: cuBLASLt's fp8 GEMMs require 16-byte aligned leading
// dimensions. (16-bit operands on 2-byte boundaries run the sm75 register-staged kernels below.)
void check_alignment(const Problem& p) {
  const int a = operand_alignment_bytes(p);
  if (a >= 16) return;
  const std::string where = fmt::format("m={} n={} k={} {} (library view: A and B rows of k elements, C columns of m)", p.m,
                                        p.n, p.k, to_string(p.a_type));
  if (dtype_bits(p.a_type) == 8)
    throw InputError(fmt::format("{}: leading dimensions are {}-byte aligned; fp8 GEMMs need 16-byte aligned ones", where, a));
}


Schedule base(const Problem& p, const hw::GpuSpec& spec) {
  Schedule s;
  s.family = family_for(p, spec);
  s.a_type = p.a_type;
  s.b_type = p.b_type;
  s.c_type = p.c_type;
  s.tile.k = k_tile(p.a_type);
  s.persistent = s.family != Family::ampere_multistage;
  s.raster = Raster::along_n;
  s.swizzle = 1;
  return s;
}

// 16-bit operands on 2-byte boundaries (odd K, or odd C columns): cp.async copies 4, 8 or 16
// bytes, so cuBLASLt 13 runs CUTLASS's sm75 register-staged kernels there
// (cutlass_75_tensorop_*_s1688gemm_*_align1, traces/h200/gemm_settled.csv and
// gemm_misaligned.csv: 26 rows): K tile 32, 2 stages, mma.sync m16n8k8, 2-byte loads. What it ran
// most (17 of 26 rows): 128 x 128 tiles of 4 warps with serial split-K (grid z, no reduction
// kernel), mostly 4 slices; for n <= 64, 64 x 64 tiles and split-K with a reduction kernel.
Schedule sm75_schedule(const Problem& p, const hw::GpuSpec& spec) {
  Schedule s = base(p, spec);  // ampere_multistage: the rows rule out TMA
  s.warp_specialization = WarpSpecialization::none;
  s.stages = 2;
  s.mma_k = 8;
  s.load_alignment = 2;
  const bool skinny = p.n <= 64;
  s.tile = skinny ? TileShape{64, 64, 32} : TileShape{128, 128, 32};
  s.warps = 4;
  const std::int64_t k_iters = (p.k + 31) / 32;
  if (skinny) {
    const std::int64_t tiles = ((p.m + 63) / 64) * ((p.n + 63) / 64);
    if (tiles * 2 <= spec.sm.count && k_iters >= 8) s.split_k = pick_split_k(p, s, spec);
  } else {
    // Slices until the CTAs fill two waves of 2 per SM, at most 4, each of at least 8 K steps.
    const std::int64_t tiles = ((p.m + 127) / 128) * ((p.n + 127) / 128);
    const std::int64_t fill = (4 * spec.sm.count + tiles - 1) / tiles;
    s.split_k = static_cast<int>(std::clamp<std::int64_t>(std::min<std::int64_t>(fill, k_iters / 8), 1, 4));
    s.split_k_serial = s.split_k > 1;
  }
  s.name = fmt::format("default_sm75_{}x{}x32_s2{}_align2B", s.tile.m, s.tile.n,
                       s.split_k > 1 ? fmt::format("_splitk{}{}", s.split_k, s.split_k_serial ? "_serial" : "") : "");
  return s;
}

// CUTLASS's raster heuristic, resolved for this problem (so the schedule shows the direction).
Raster heuristic_raster(const Problem& p, const Schedule& s) {
  return resolve_raster(Raster::heuristic, (p.m + s.tile.m - 1) / s.tile.m, (p.n + s.tile.n - 1) / s.tile.n);
}

}  // namespace

int operand_alignment_bytes(const Problem& p) {
  return std::min(row_alignment_bytes(p.k, std::min(element_bytes(p.a_type), element_bytes(p.b_type)), 16),
                  row_alignment_bytes(p.m, element_bytes(p.c_type), 16));
}

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
  check_alignment(p);
  if (dtype_bits(p.a_type) == 16 && operand_alignment_bytes(p) < 4) {
    if (grouped || p.groups > 1)
      throw InputError(fmt::format("grouped GEMM m={} n={} k={}: leading dimensions are only 2-byte aligned; grouped GEMMs "
                                   "are modelled with 16-byte aligned ones only", p.m, p.n, p.k));
    return sm75_schedule(p, spec);
  }
  if ((grouped || p.groups > 1) && family_for(p, spec) == Family::hopper_warpspecialized && dtype_bits(p.a_type) == 16) {
    return grouped_default_schedule(p, spec);
  }
  Schedule s = base(p, spec);
  s.grouped = grouped || p.groups > 1;
  const int align = operand_alignment_bytes(p);
  if (s.family == Family::ampere_multistage && spec.arch != "ampere" && p.n > 64) {
    // cuBLASLt 13's fallback for rows that are not 16-byte aligned on the H200 (traces/h200: bf16
    // 2500^3 and 333x4444x2222 ran cutlass_80_..._256x128_64x3_tn_align2, 1500x2500x3500
    // 128x256_64x3_align2; tf32 4097^3 256x128_32x3_align1): a 256 x 128 tile of 128 bytes of K,
    // 3 stages, 8 warps, copies of 4 bytes (align2 for 16-bit types even where 8 would do).
    s.tile = {256, 128, k_tile(p.a_type)};
    s.warps = 8;
    s.warp_specialization = WarpSpecialization::none;
    s.load_alignment = 4;
  } else if (s.family == Family::ampere_multistage) {
    s.tile = {p.n <= 64 ? 64 : 128, p.n <= 64 ? static_cast<int>(std::clamp<std::int64_t>(next_pow2(p.n), 32, 64)) : 128,
              k_tile(p.a_type) / 2};
    s.warps = 4;
    s.warp_specialization = WarpSpecialization::none;
    s.load_alignment = std::min(16, align);
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
  const bool sm80_fallback = s.family == Family::ampere_multistage && spec.arch != "ampere" && p.n > 64;
  s.stages = sm80_fallback ? 3 : max_stages(p, s, spec);
  const std::int64_t tiles = ((p.m + s.tile.m - 1) / s.tile.m) * ((p.n + s.tile.n - 1) / s.tile.n);
  const std::int64_t k_iters = (p.k + s.tile.k - 1) / s.tile.k;
  if (!s.grouped && tiles * 2 <= spec.sm.count && k_iters >= 8) s.split_k = pick_split_k(p, s, spec);
  s.name = fmt::format("default_{}x{}x{}_s{}{}{}", s.tile.m, s.tile.n, s.tile.k, s.stages,
                       s.split_k > 1 ? fmt::format("_splitk{}", s.split_k) : "",
                       align < 16 ? fmt::format("_align{}B", s.load_alignment) : "");
  return s;
}

std::vector<Schedule> candidate_schedules(const Problem& p, const hw::GpuSpec& spec) {
  std::vector<Schedule> out;
  out.push_back(default_schedule(p, spec));
  const bool ampere = family_for(p, spec) == Family::ampere_multistage;
  const int align = std::min(16, operand_alignment_bytes(p));
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
          s.load_alignment = align;
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
        if (ampere && align < 4) {  // sm75 register-staged kernels: 2 stages of K 32, m16n8k8, serial split-K
          s.tile.k = 32;
          s.stages = 2;
          s.mma_k = 8;
          s.warps = tm * tn > 128 * 128 ? 8 : 4;
          s.split_k_serial = split > 1;
        }
        s.name = fmt::format("cand_{}x{}x{}_c{}_s{}{}", tm, tn, s.tile.k, cluster, s.stages,
                             split > 1 ? fmt::format("_splitk{}", split) : "");
        out.push_back(s);
      }
    }
  }
  return out;
}

}  // namespace tgsim::gemm
