// JSON form of one template node and of per-CTA coordinates, both directions, so that the
// per-kind field lists live in one place. Internal to the tile-graph reader and writer.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "sim/graph/json_cursor.h"
#include "sim/graph/tile_graph.h"

namespace tgsim::graph::detail {

// The names a node may refer to, in index order.
struct NodeScope {
  const NameTable& roles;
  const NameTable& tensors;
  const NameTable& flags;
};

Node read_node(const JsonCursor& c, const NodeScope& scope);
// An integer, "p0", "p1+3", "p2-1" or {"param": 1, "offset": 3}.
Coord read_coord(const JsonCursor& c);

struct NodeNames {
  const std::vector<Role>& roles;
  const std::vector<Tensor>& tensors;
  const std::vector<Flag>& flags;
};

// Writing builds ordered_json so files keep a readable key order (id and kind first).
nlohmann::ordered_json node_to_json(const Node& n, const NodeNames& names);
// An integer for a constant, else the "p1+3" shorthand.
nlohmann::ordered_json coord_to_json(const Coord& c);
// "32KiB" where that is exact, else an integer; cycles as a plain number.
nlohmann::ordered_json bytes_to_json(Bytes b);
nlohmann::ordered_json cycles_to_json(Cycles c);
// An integer when `d` is whole, else a double.
nlohmann::ordered_json number_to_json(double d);

}  // namespace tgsim::graph::detail
