#include "frontend/gemm/tile_order.h"

#include <algorithm>
#include <stdexcept>

namespace tgsim::gemm {

Raster resolve_raster(Raster raster, std::int64_t tiles_m, std::int64_t tiles_n) {
  if (raster != Raster::heuristic) return raster;
  return tiles_n > tiles_m ? Raster::along_m : Raster::along_n;
}

std::vector<TileCoord> block_order(std::int64_t blocks_m, std::int64_t blocks_n, Raster raster, int swizzle) {
  std::vector<TileCoord> out;
  out.reserve(static_cast<std::size_t>(blocks_m * blocks_n));
  if (raster == Raster::heuristic) throw std::logic_error("block_order: resolve the heuristic raster first");
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
