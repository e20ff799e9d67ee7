// L2 as an LRU cache of whole tiles: a tile loaded by one CTA and loaded again by another before
// `capacity` bytes of other tiles have passed is a hit. This captures the reuse that raster order,
// swizzle and co-resident CTAs create, at tile (not line) granularity.
#pragma once

#include <list>
#include <unordered_map>

#include "sim/engine/l2/l2_model.h"

namespace tgsim::engine {

class TileLruL2 final : public L2Model {
 public:
  explicit TileLruL2(Bytes capacity) : capacity_(capacity) {}
  bool access(const TileKey& key, Bytes bytes, bool is_write) override;
  std::string_view name() const override { return "tile_lru"; }

 private:
  struct Entry {
    TileKey key;
    std::int64_t bytes;
  };
  Bytes capacity_;
  std::int64_t used_ = 0;
  std::list<Entry> lru_;  // front = most recent
  std::unordered_map<TileKey, std::list<Entry>::iterator, TileKeyHash> index_;
};

// Every access misses (streaming): the upper bound on HBM traffic.
class NoReuseL2 final : public L2Model {
 public:
  bool access(const TileKey&, Bytes, bool) override { return false; }
  std::string_view name() const override { return "none"; }
};

}  // namespace tgsim::engine
