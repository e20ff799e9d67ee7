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

// Cluster blocks (block_m, block_n) of a blocks_m x blocks_n grid in hand-out order:
// raster along_m walks m fastest; swizzle s > 1 walks panels s blocks wide in the other dimension
// (tiles that share operands run together, as CUTLASS's swizzled rasterisation does).
std::vector<TileCoord> block_order(std::int64_t blocks_m, std::int64_t blocks_n, Raster raster, int swizzle);

}  // namespace tgsim::gemm
