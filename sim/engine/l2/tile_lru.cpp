#include "sim/engine/l2/tile_lru.h"

#include <fmt/format.h>

#include "sim/units/error.h"

namespace tgsim::engine {

bool TileLruL2::access(const TileKey& key, Bytes bytes, bool is_write) {
  auto it = index_.find(key);
  if (it != index_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);
    return true;
  }
  if (bytes.value > capacity_.value) return false;  // larger than L2: streams through
  lru_.push_front(Entry{key, bytes.value});
  index_.emplace(key, lru_.begin());
  used_ += bytes.value;
  while (used_ > capacity_.value) {
    used_ -= lru_.back().bytes;
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
  (void)is_write;
  return false;
}

std::vector<std::string> l2_model_names() { return {"none", "tile_lru"}; }

std::unique_ptr<L2Model> make_l2_model(std::string_view name, Bytes capacity) {
  if (name == "tile_lru") return std::make_unique<TileLruL2>(capacity);
  if (name == "none") return std::make_unique<NoReuseL2>();
  throw InputError(fmt::format("unknown L2 model \"{}\" (valid: none, tile_lru)", name));
}

}  // namespace tgsim::engine
