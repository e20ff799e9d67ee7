// Structural checks of a tile graph, whatever produced it (a JSON file, a frontend). The engine
// assumes a graph that passed validate_tile_graph: indices in range, no cycles, sizes that fit.
// Run-time problems (a wait nobody signals) are the engine's to report, not these checks'.
#pragma once

#include <string_view>
#include <vector>

#include "sim/graph/tile_graph.h"

namespace tgsim::graph {

// Throws InputError "origin: /kernels/0/templates/1/nodes/7 (\"ld0\"): ..." naming the first
// problem found, with the JSON pointer of the offending part as if the graph were written by to_json.
void validate_tile_graph(const TileGraph& g, std::string_view origin);

// The node indices of `t`, ordered so that every edge points forward (Boost.Graph topological_sort).
// Throws InputError when an edge names a node that does not exist, or on a cycle
// ("template \"main\": cycle: a -> b -> c -> a").
std::vector<int> topological_order(const CtaTemplate& t);

// The nodes on one cycle of `t` in edge order, starting at the lowest index (the first node is not
// repeated at the end), or empty when `t` is acyclic. Edges must name existing nodes.
std::vector<int> find_cycle(const CtaTemplate& t);

}  // namespace tgsim::graph
