// Contract: an L2 model decides, per tile access, whether the tile is already in L2. It sees
// accesses in simulated-time order and keeps its own state; it never touches timing. The
// engine routes hits over the L2 link only and misses over L2 + HBM.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/units/units.h"

namespace tgsim::engine {

// Identifies one tile exactly: GPU, tensor (graph-wide id) and three coordinates.
struct TileKey {
  std::int32_t gpu = 0;
  std::int32_t tensor = 0;
  std::int64_t c0 = 0, c1 = 0, c2 = 0;
  bool operator==(const TileKey&) const = default;
};

struct TileKeyHash {
  static std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }
  std::size_t operator()(const TileKey& k) const {
    std::uint64_t h = mix((static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.gpu)) << 32) |
                          static_cast<std::uint32_t>(k.tensor));
    h = mix(h ^ static_cast<std::uint64_t>(k.c0));
    h = mix(h ^ static_cast<std::uint64_t>(k.c1));
    return static_cast<std::size_t>(mix(h ^ static_cast<std::uint64_t>(k.c2)));
  }
};

class L2Model {
 public:
  virtual ~L2Model() = default;
  // `key` identifies the tile; `bytes` is its size.
  // Returns true on a hit. A write allocates the tile (later reads hit).
  virtual bool access(const TileKey& key, Bytes bytes, bool is_write) = 0;
  virtual std::string_view name() const = 0;
  // Starts the run with `bytes` of lines already in L2 (what an L2 flush by writing a large buffer,
  // or an earlier kernel's output, leaves behind), of which `dirty_fraction` are dirty, spread
  // evenly through the LRU order: evicting a dirty line costs an HBM write.
  virtual void fill_dirty(Bytes /*bytes*/, double /*dirty_fraction*/) {}
  // Dirty bytes evicted since the last call (the engine writes them back to HBM).
  virtual std::int64_t take_writeback() { return 0; }
};

// Registry of L2 models by name ("tile_lru", "none"); unknown names throw InputError listing the valid ones.
std::unique_ptr<L2Model> make_l2_model(std::string_view name, Bytes capacity);
std::vector<std::string> l2_model_names();

}  // namespace tgsim::engine
