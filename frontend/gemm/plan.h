// What every GEMM lowering needs before building nodes: tile counts, K split, cluster blocks in
// hand-out order, and which work items (tile, K range, cluster rank) each CTA runs.
#pragma once

#include <cstdint>
#include <vector>

#include "frontend/gemm/problem.h"
#include "frontend/gemm/schedule.h"
#include "frontend/gemm/tile_order.h"
#include "sim/hw/gpu_spec.h"

namespace tgsim::gemm {

// How a work item's partial result is combined with the other pieces of its tile (stream-K).
enum class Fixup { none, contribute, own };

// One CTA's share of one output tile. The first six fields are the per-CTA parameters of the tile
// graph, in this order; the rest shape the template.
struct WorkItem {
  std::int64_t tile_m = 0;
  std::int64_t tile_n = 0;
  std::int64_t k_base = 0;  // first K iteration (split-K, stream-K)
  std::int64_t rank_m = 0;  // CTA position in its cluster
  std::int64_t rank_n = 0;
  std::int64_t split = 0;
  std::int64_t tile_id = 0;  // tile_m * tiles_n + tile_n (stream-K fix-up flag)
  std::int64_t k_iters = 0;  // K iterations this item runs
  Fixup fixup = Fixup::none;
  std::int64_t group = 0;  // grouped GEMM: the problem this tile belongs to
  // The CTA's tile lies outside the problem (a cluster block over the edge): its loads of the
  // operand whose extent it overhangs are zero-filled TMA boxes (`outside_m`: A, `outside_n`: B).
  bool outside_m = false;
  bool outside_n = false;
  std::vector<std::int64_t> peers;  // own: k_base of the contributing pieces of this tile
  // Serial split-K (CUTLASS 2.x: the K slices of a tile add into C in turn): this item's slice,
  // which waits for the slices before it; -1 otherwise.
  std::int64_t serial_slice = -1;
};
inline constexpr int kParamsPerItem = 7;
enum Param { p_tile_m = 0, p_tile_n = 1, p_k_base = 2, p_rank_m = 3, p_rank_n = 4, p_split = 5, p_tile_id = 6 };

struct Plan {
  std::int64_t tiles_m = 0, tiles_n = 0;
  std::int64_t k_iters = 0;        // K iterations of one whole tile
  int splits = 1;
  std::int64_t k_iters_per_split = 0;
  int cluster_m = 1, cluster_n = 1;
  // CTAs in launch order; each with its work items (one, or several for a persistent kernel).
  std::vector<std::vector<WorkItem>> ctas;
};

// Clusters of `cluster_size` CTAs that can be resident at once (GPC layout), for persistent grids.
std::int64_t resident_clusters(const hw::GpuSpec& spec, int cluster_size, int ctas_per_sm);

// Stream-K: `ctas` persistent CTAs share tiles x k_iters K iterations evenly; a tile cut between
// CTAs is finished by the piece holding K iteration 0 after the others posted fp32 partials.
std::vector<std::vector<WorkItem>> stream_k_items(const Plan& plan, const std::vector<TileCoord>& tiles, std::int64_t ctas);

// Throws InputError for impossible schedules (zero tile, split larger than K iterations...).
Plan make_plan(const Problem& p, const Schedule& s, const hw::GpuSpec& spec, int ctas_per_sm);

}  // namespace tgsim::gemm
