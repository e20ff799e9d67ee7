#include "sim/engine/l2/tile_lru.h"

#include <fmt/format.h>

#include "sim/units/error.h"

namespace tgsim::engine {

// One multiply per field and one final mix: enough spread for linear probing, and cheaper than
// TileKeyHash's mix per field (every load and store hashes its tile).
std::uint32_t TileLruL2::hash(const TileKey& k) {
  const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  std::uint64_t h = (u(static_cast<std::uint32_t>(k.gpu)) << 32) | static_cast<std::uint32_t>(k.tensor);
  h = h * 0x9e3779b97f4a7c15ULL ^ u(k.c0) * 0xc2b2ae3d27d4eb4fULL ^ u(k.c1) * 0x165667b19e3779f9ULL ^
      u(k.c2) * 0x27d4eb2f165667c5ULL;
  return static_cast<std::uint32_t>(TileKeyHash::mix(h));
}

std::size_t TileLruL2::find_slot(const TileKey& key, std::uint32_t h) const {
  const std::size_t mask = index_.size() - 1;
  for (std::size_t s = h & mask;; s = (s + 1) & mask) {
    const Slot& slot = index_[s];
    if (slot.entry == kNone || (slot.hash == h && entries_[slot.entry].key == key)) return s;
  }
}

// Backward-shift deletion keeps every probe chain unbroken without tombstones.
void TileLruL2::index_erase(std::size_t slot) {
  const std::size_t mask = index_.size() - 1;
  std::size_t hole = slot;
  for (std::size_t s = (slot + 1) & mask; index_[s].entry != kNone; s = (s + 1) & mask) {
    const std::size_t home = index_[s].hash & mask;
    // Move the entry into the hole unless its home lies cyclically in (hole, s].
    if (((s - home) & mask) >= ((s - hole) & mask)) {
      index_[hole] = index_[s];
      hole = s;
    }
  }
  index_[hole] = Slot{};
}

void TileLruL2::grow_index() {
  std::vector<Slot> old;
  old.swap(index_);
  index_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
  for (const Slot& slot : old) {
    if (slot.entry != kNone) index_[find_slot(entries_[slot.entry].key, slot.hash)] = slot;
  }
}

void TileLruL2::unlink(std::uint32_t e) {
  Entry& x = entries_[e];
  (x.prev == kNone ? head_ : entries_[x.prev].next) = x.next;
  (x.next == kNone ? tail_ : entries_[x.next].prev) = x.prev;
}

void TileLruL2::push_front(std::uint32_t e) {
  Entry& x = entries_[e];
  x.prev = kNone;
  x.next = head_;
  (head_ == kNone ? tail_ : entries_[head_].prev) = e;
  head_ = e;
}

bool TileLruL2::access(const TileKey& key, Bytes bytes, bool is_write) {
  (void)is_write;  // a write allocates like a read
  const std::uint32_t h = hash(key);
  if (!index_.empty()) {
    const std::uint32_t e = index_[find_slot(key, h)].entry;
    if (e != kNone) {
      if (e != head_) {
        unlink(e);
        push_front(e);
      }
      return true;
    }
  }
  if (bytes.value > capacity_.value) return false;  // larger than L2: streams through
  if ((count_ + 1) * 4 > index_.size()) grow_index();  // at most a quarter full: short probes
  return insert(key, bytes.value, h, false);
}

bool TileLruL2::insert(const TileKey& key, std::int64_t bytes, std::uint32_t h, bool dirty) {
  std::uint32_t e;
  if (free_.empty()) {
    e = static_cast<std::uint32_t>(entries_.size());
    entries_.emplace_back();
  } else {
    e = free_.back();
    free_.pop_back();
  }
  entries_[e].key = key;
  entries_[e].bytes = bytes;
  entries_[e].hash = h;
  entries_[e].dirty = dirty;
  push_front(e);
  index_[find_slot(key, h)] = Slot{e, h};
  ++count_;
  used_ += bytes;
  while (used_ > capacity_.value) {  // evict least recent; the new tile fits alone, so it stays
    const std::uint32_t victim = tail_;
    used_ -= entries_[victim].bytes;
    if (entries_[victim].dirty) writeback_ += entries_[victim].bytes;
    index_erase(find_slot(entries_[victim].key, entries_[victim].hash));
    unlink(victim);
    free_.push_back(victim);
    --count_;
  }
  return false;
}

void TileLruL2::fill_dirty(Bytes bytes, double dirty_fraction) {
  // 8 KiB pseudo-tiles of a tensor no graph names (tensor ids are >= 0). Small enough that a tile
  // load evicts about its own size, so the write-back it starts shares HBM in proportion to bytes.
  constexpr std::int64_t kChunk = 8 << 10;
  double dirty_owed = 0;  // spreads the dirty chunks evenly (error diffusion)
  for (std::int64_t i = 0; i * kChunk < std::min(bytes.value, capacity_.value); ++i) {
    const TileKey key{-1, -1, i, 0, 0};
    const std::uint32_t h = hash(key);
    if ((count_ + 1) * 4 > index_.size()) grow_index();
    dirty_owed += dirty_fraction;
    const bool dirty = dirty_owed >= 0.5;
    if (dirty) dirty_owed -= 1;
    insert(key, std::min(kChunk, bytes.value - i * kChunk), h, dirty);
  }
  writeback_ = 0;
}

std::vector<std::string> l2_model_names() { return {"none", "tile_lru"}; }

std::unique_ptr<L2Model> make_l2_model(std::string_view name, Bytes capacity) {
  if (name == "tile_lru") return std::make_unique<TileLruL2>(capacity);
  if (name == "none") return std::make_unique<NoReuseL2>();
  throw InputError(fmt::format("unknown L2 model \"{}\" (valid: none, tile_lru)", name));
}

}  // namespace tgsim::engine
