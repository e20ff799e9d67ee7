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

std::vector<std::vector<WorkItem>> stream_k_items(const Plan& plan, const std::vector<TileCoord>& tiles, std::int64_t ctas) {
  const std::int64_t total = static_cast<std::int64_t>(tiles.size()) * plan.k_iters;
  std::vector<std::vector<WorkItem>> out(static_cast<std::size_t>(ctas));
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> pieces(tiles.size());  // (cta, item)
  for (std::int64_t c = 0; c < ctas; ++c) {
    std::int64_t i = total * c / ctas;
    const std::int64_t end = total * (c + 1) / ctas;
    while (i < end) {
      const std::int64_t t = i / plan.k_iters;
      const std::int64_t k0 = i % plan.k_iters;
      const std::int64_t k1 = std::min(plan.k_iters, k0 + (end - i));
      WorkItem w;
      w.tile_m = tiles[static_cast<std::size_t>(t)].m;
      w.tile_n = tiles[static_cast<std::size_t>(t)].n;
      w.tile_id = w.tile_m * plan.tiles_n + w.tile_n;
      w.k_base = k0;
      w.k_iters = k1 - k0;
      pieces[static_cast<std::size_t>(t)].emplace_back(c, out[static_cast<std::size_t>(c)].size());
      out[static_cast<std::size_t>(c)].push_back(w);
      i += k1 - k0;
    }
  }
  for (const auto& ps : pieces) {
    if (ps.size() < 2) continue;
    WorkItem* owner = nullptr;
    std::vector<std::int64_t> peers;
    for (auto [c, j] : ps) {
      WorkItem& w = out[c][j];
      if (w.k_base == 0) {
        owner = &w;
      } else {
        w.fixup = Fixup::contribute;
        peers.push_back(w.k_base);
      }
    }
    owner->fixup = Fixup::own;
    owner->peers = peers;
  }
  return out;
}

Plan make_plan(const Problem& p, const Schedule& s, const hw::GpuSpec& spec, int ctas_per_sm) {
  if (s.tile.m <= 0 || s.tile.n <= 0 || s.tile.k <= 0)
    throw InputError(fmt::format("schedule \"{}\": tile {}x{}x{} must be positive", s.name, s.tile.m, s.tile.n, s.tile.k));
  if (p.m <= 0 || p.n <= 0 || p.k <= 0)
    throw InputError(fmt::format("GEMM {}x{}x{}: every dimension must be positive", p.m, p.n, p.k));
  Plan plan;
  const std::int64_t groups = std::max<std::int64_t>(1, p.groups);
  const std::int64_t tiles_m = (p.m + s.tile.m - 1) / s.tile.m;  // per group
  const std::int64_t tiles_n = (p.n + s.tile.n - 1) / s.tile.n;
  // A grouped GEMM's tiles are numbered as if the groups sat side by side: group g's tiles are
  // m-tiles [g tiles_m, (g+1) tiles_m) and n-tiles [g tiles_n, (g+1) tiles_n), so its A, B and C
  // tiles never alias another group's in the L2 model.
  plan.tiles_m = groups * tiles_m;
  plan.tiles_n = groups * tiles_n;
  plan.k_iters = (p.k + s.tile.k - 1) / s.tile.k;
  plan.splits = std::max(1, s.split_k);
  if (plan.splits > plan.k_iters)
    throw InputError(fmt::format("schedule \"{}\": split-K {} exceeds the {} K iterations of K={}", s.name, plan.splits,
                                 plan.k_iters, p.k));
  if (groups > 1 && (plan.splits > 1 || s.stream_k))
    throw InputError(fmt::format("schedule \"{}\": grouped GEMMs are modelled without split-K and stream-K", s.name));
  plan.k_iters_per_split = (plan.k_iters + plan.splits - 1) / plan.splits;
  plan.cluster_m = std::max(1, s.cluster.m);
  plan.cluster_n = std::max(1, s.cluster.n);
  const int cluster_size = plan.cluster_m * plan.cluster_n;
  const std::int64_t blocks_m = (tiles_m + plan.cluster_m - 1) / plan.cluster_m;
  const std::int64_t blocks_n = (tiles_n + plan.cluster_n - 1) / plan.cluster_n;
  const auto group_blocks = block_order(blocks_m, blocks_n, resolve_raster(s.raster, tiles_m, tiles_n), s.swizzle);
  if (s.stream_k) {
    if (cluster_size != 1 || plan.splits != 1)
      throw InputError(fmt::format("schedule \"{}\": stream-K is modelled without clusters and split-K", s.name));
    const std::int64_t ctas = std::min<std::int64_t>(static_cast<std::int64_t>(group_blocks.size()) * plan.k_iters,
                                                     resident_clusters(spec, 1, ctas_per_sm));
    plan.ctas = stream_k_items(plan, group_blocks, ctas);
    return plan;
  }
  // Work units: (group, block, split) in hand-out order (a grouped scheduler walks the groups one
  // after another); splits of one tile are adjacent, except in CUTLASS 2.x kernels, whose grid
  // z is the K slice: every tile's first slice is launched before any second slice.
  const auto blocks = static_cast<std::int64_t>(group_blocks.size());
  const bool slice_outer = s.family == Family::ampere_multistage;
  const std::int64_t per_group = blocks * plan.splits;
  const std::int64_t units = per_group * groups;
  const std::int64_t clusters = s.persistent ? std::min(units, resident_clusters(spec, cluster_size, ctas_per_sm)) : units;
  plan.ctas.assign(static_cast<std::size_t>(clusters * cluster_size), {});
  for (std::int64_t u = 0; u < units; ++u) {
    const std::int64_t g = u / per_group;
    const std::int64_t v = u % per_group;
    const auto& b = group_blocks[static_cast<std::size_t>(slice_outer ? v % blocks : v / plan.splits)];
    const std::int64_t split = slice_outer ? v / blocks : v % plan.splits;
    const std::int64_t cluster = u % clusters;
    for (int rm = 0; rm < plan.cluster_m; ++rm) {
      for (int rn = 0; rn < plan.cluster_n; ++rn) {
        WorkItem w;
        // A cluster block hanging over the edge still runs its CTAs (they load and compute a
        // clamped tile), as launched grids do.
        w.tile_m = g * tiles_m + std::min(b.m * plan.cluster_m + rm, tiles_m - 1);
        w.tile_n = g * tiles_n + std::min(b.n * plan.cluster_n + rn, tiles_n - 1);
        w.outside_m = b.m * plan.cluster_m + rm >= tiles_m;
        w.outside_n = b.n * plan.cluster_n + rn >= tiles_n;
        w.split = split;
        w.k_base = split * plan.k_iters_per_split;
        w.rank_m = rm;
        w.rank_n = rn;
        w.tile_id = w.tile_m * plan.tiles_n + w.tile_n;
        w.k_iters = plan.k_iters_per_split;
        w.group = g;
        if (s.split_k_serial && plan.splits > 1) w.serial_slice = split;
        const std::int64_t cta = cluster * cluster_size + rm * plan.cluster_n + rn;
        plan.ctas[static_cast<std::size_t>(cta)].push_back(w);
      }
    }
  }
  return plan;
}

}  // namespace tgsim::gemm
