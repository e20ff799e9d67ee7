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

class L2Model {
 public:
  virtual ~L2Model() = default;
  // `key` identifies the tile (GPU, tensor, coordinates); `bytes` is its size.
  // Returns true on a hit. A write allocates the tile (later reads hit).
  virtual bool access(std::uint64_t key, Bytes bytes, bool is_write) = 0;
  virtual std::string_view name() const = 0;
};

// Registry of L2 models by name ("tile_lru", "none"); unknown names throw InputError listing the valid ones.
std::unique_ptr<L2Model> make_l2_model(std::string_view name, Bytes capacity);
std::vector<std::string> l2_model_names();

}  // namespace tgsim::engine
