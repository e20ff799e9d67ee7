// The order in which output tiles are handed out (CTA rasterisation), in blocks of one cluster.
#pragma once

#include <cstdint>
#include <vector>

#include "frontend/gemm/schedule.h"

namespace tgsim::gemm {

struct TileCoord {
  std::int64_t m = 0;  // tile index along m
  std::int64_t n = 0;  // tile index along n
};

// CUTLASS's raster heuristic (sm90 persistent tile scheduler, RasterOrderOptions::Heuristic): walk
// along m when there are more n tiles than m tiles, else along n, so that consecutive CTAs share
// the tile of the longer dimension's operand. along_m and along_n are returned as they are.
Raster resolve_raster(Raster raster, std::int64_t tiles_m, std::int64_t tiles_n);

// Cluster blocks (block_m, block_n) of a blocks_m x blocks_n grid in hand-out order:
// raster along_m walks m fastest; swizzle s > 1 walks panels s blocks wide in the other dimension
// (tiles that share operands run together, as CUTLASS's swizzled rasterisation does). `raster` must
// be resolved (not `heuristic`).
std::vector<TileCoord> block_order(std::int64_t blocks_m, std::int64_t blocks_n, Raster raster, int swizzle);

}  // namespace tgsim::gemm
