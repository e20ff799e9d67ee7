#include "frontend/gemm/tile_order.h"

#include <algorithm>

namespace tgsim::gemm {

std::vector<TileCoord> block_order(std::int64_t blocks_m, std::int64_t blocks_n, Raster raster, int swizzle) {
  std::vector<TileCoord> out;
  out.reserve(static_cast<std::size_t>(blocks_m * blocks_n));
  const std::int64_t s = std::max(1, swizzle);
  if (raster == Raster::along_m) {
    for (std::int64_t p = 0; p < blocks_n; p += s) {
      for (std::int64_t bm = 0; bm < blocks_m; ++bm) {
        for (std::int64_t bn = p; bn < std::min(blocks_n, p + s); ++bn) out.push_back({bm, bn});
      }
    }
  } else {
    for (std::int64_t p = 0; p < blocks_m; p += s) {
      for (std::int64_t bn = 0; bn < blocks_n; ++bn) {
        for (std::int64_t bm = p; bm < std::min(blocks_m, p + s); ++bm) out.push_back({bm, bn});
      }
    }
  }
  return out;
}

}  // namespace tgsim::gemm
