// L2 as an LRU cache of whole tiles: a tile loaded by one CTA and loaded again by another before
// `capacity` bytes of other tiles have passed is a hit. This captures the reuse that raster order,
// swizzle and co-resident CTAs create, at tile (not line) granularity.
//
// Every load and store of a replay goes through access(), so the cache is an intrusive list over
// a pool of entries plus an open-addressing index: no allocation per access once warm.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/engine/l2/l2_model.h"

namespace tgsim::engine {

class TileLruL2 final : public L2Model {
 public:
  explicit TileLruL2(Bytes capacity) : capacity_(capacity) {}
  bool access(const TileKey& key, Bytes bytes, bool is_write) override;
  std::string_view name() const override { return "tile_lru"; }
  void fill_dirty(Bytes bytes, double dirty_fraction) override;
  std::int64_t take_writeback() override {
    const std::int64_t w = writeback_;
    writeback_ = 0;
    return w;
  }

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  struct Entry {
    TileKey key;
    std::int64_t bytes = 0;
    std::uint32_t hash = 0;
    std::uint32_t prev = kNone;  // towards the most recent
    std::uint32_t next = kNone;  // towards the least recent
    bool dirty = false;
  };

  // An index slot keeps the key's hash: probes compare it before the key, and deletion finds
  // an entry's home slot without rehashing.
  struct Slot {
    std::uint32_t entry = kNone;
    std::uint32_t hash = 0;
  };

  static std::uint32_t hash(const TileKey& k);
  // Index slot holding `key` (hash `h`), or the empty slot where it would go.
  std::size_t find_slot(const TileKey& key, std::uint32_t h) const;
  void index_erase(std::size_t slot);
  void grow_index();
  void unlink(std::uint32_t e);
  void push_front(std::uint32_t e);

  Bytes capacity_;
  std::int64_t used_ = 0;
  std::vector<Entry> entries_;      // pool; unused ones are on free_
  std::vector<std::uint32_t> free_;
  std::uint32_t head_ = kNone;      // most recent
  std::uint32_t tail_ = kNone;      // least recent
  std::vector<Slot> index_;         // linear probing, power-of-two size
  std::size_t count_ = 0;
  std::int64_t writeback_ = 0;
  bool insert(const TileKey& key, std::int64_t bytes, std::uint32_t h, bool dirty);
};

// Every access misses (streaming): the upper bound on HBM traffic.
class NoReuseL2 final : public L2Model {
 public:
  bool access(const TileKey&, Bytes, bool) override { return false; }
  std::string_view name() const override { return "none"; }
};

}  // namespace tgsim::engine
