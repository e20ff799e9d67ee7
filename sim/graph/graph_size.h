// What a graph will cost to simulate, computed before anything runs, so that a graph too big for
// the machine is refused up front (tgsim --max-nodes / --max-memory) instead of running for hours
// or exhausting memory.
#pragma once

#include <cstdint>
#include <string>

#include "sim/graph/tile_graph.h"

namespace tgsim::graph {

struct GraphSize {
  double node_executions = 0;  // sum over kernels and CTAs of the template's node count
  double template_nodes = 0;   // nodes the engine compiles (templates)
  double memory_bytes = 0;     // estimate of the engine's peak memory for this graph
};

// `traced_fraction`: share of node executions recorded in a trace (0 without --trace).
GraphSize graph_size(const TileGraph& g, double traced_fraction = 0);

struct Limits {
  double max_node_executions = 0;  // 0: no limit
  double max_memory_bytes = 0;     // 0: no limit
};

// 2e9 node executions (about 100 s) and half of the machine's physical memory.
Limits default_limits();

// Throws InputError naming the limit, the graph's figure and the flag that raises it.
void check_limits(const TileGraph& g, const Limits& limits, double traced_fraction = 0);

}  // namespace tgsim::graph
