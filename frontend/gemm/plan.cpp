#include "frontend/gemm/plan.h"

#include <algorithm>

#include <fmt/format.h>

#include "frontend/gemm/tile_order.h"
#include "sim/units/error.h"

namespace tgsim::gemm {

std::int64_t resident_clusters(const hw::GpuSpec& spec, int cluster_size, int ctas_per_sm) {
  std::int64_t n = 0;
  for (int sms : spec.gpc.sms_per_gpc) n += (sms / cluster_size) * ctas_per_sm;
  if (spec.gpc.sms_per_gpc.empty()) n = (spec.sm.count / cluster_size) * ctas_per_sm;
  return std::max<std::int64_t>(1, n);
}

Plan make_plan(const Problem& p, const Schedule& s, const hw::GpuSpec& spec, int ctas_per_sm) {
  if (s.tile.m <= 0 || s.tile.n <= 0 || s.tile.k <= 0)
    throw InputError(fmt::format("schedule \"{}\": tile {}x{}x{} must be positive", s.name, s.tile.m, s.tile.n, s.tile.k));
  if (p.m <= 0 || p.n <= 0 || p.k <= 0)
    throw InputError(fmt::format("GEMM {}x{}x{}: every dimension must be positive", p.m, p.n, p.k));
  Plan plan;
  plan.tiles_m = (p.m + s.tile.m - 1) / s.tile.m;
  plan.tiles_n = (p.n + s.tile.n - 1) / s.tile.n;
  plan.k_iters = (p.k + s.tile.k - 1) / s.tile.k;
  plan.splits = std::max(1, s.split_k);
  if (plan.splits > plan.k_iters)
    throw InputError(fmt::format("schedule \"{}\": split-K {} exceeds the {} K iterations of K={}", s.name, plan.splits,
                                 plan.k_iters, p.k));
  plan.k_iters_per_split = (plan.k_iters + plan.splits - 1) / plan.splits;
  plan.cluster_m = std::max(1, s.cluster.m);
  plan.cluster_n = std::max(1, s.cluster.n);
  const int cluster_size = plan.cluster_m * plan.cluster_n;
  const std::int64_t blocks_m = (plan.tiles_m + plan.cluster_m - 1) / plan.cluster_m;
  const std::int64_t blocks_n = (plan.tiles_n + plan.cluster_n - 1) / plan.cluster_n;
  const auto blocks = block_order(blocks_m, blocks_n, s.raster, s.swizzle);
  // Work units: (block, split) in hand-out order; splits of one tile are adjacent.
  const std::int64_t units = static_cast<std::int64_t>(blocks.size()) * plan.splits;
  const std::int64_t clusters = s.persistent ? std::min(units, resident_clusters(spec, cluster_size, ctas_per_sm)) : units;
  plan.ctas.assign(static_cast<std::size_t>(clusters * cluster_size), {});
  for (std::int64_t u = 0; u < units; ++u) {
    const auto& b = blocks[static_cast<std::size_t>(u / plan.splits)];
    const auto split = u % plan.splits;
    const std::int64_t cluster = u % clusters;
    for (int rm = 0; rm < plan.cluster_m; ++rm) {
      for (int rn = 0; rn < plan.cluster_n; ++rn) {
        WorkItem w;
        // A cluster block hanging over the edge still runs its CTAs (they load and compute a
        // clamped tile), as launched grids do.
        w.tile_m = std::min(b.m * plan.cluster_m + rm, plan.tiles_m - 1);
        w.tile_n = std::min(b.n * plan.cluster_n + rn, plan.tiles_n - 1);
        w.split = split;
        w.k_base = split * plan.k_iters_per_split;
        w.rank_m = rm;
        w.rank_n = rn;
        const std::int64_t cta = cluster * cluster_size + rm * plan.cluster_n + rn;
        plan.ctas[static_cast<std::size_t>(cta)].push_back(w);
      }
    }
  }
  return plan;
}

}  // namespace tgsim::gemm
