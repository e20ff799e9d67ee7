#include "sim/graph/graph_size.h"

#include <unistd.h>

#include <fmt/format.h>

#include "sim/units/error.h"

namespace tgsim::graph {

// Per-item costs of the engine's data structures (sim/engine): a compiled template node (its
// CompiledNode and RunNode, successor lists) ~256 B; a per-CTA parameter 8 B; a node execution
// recorded in a trace ~160 B (slice + JSON text). Resident CTA state is bounded by the GPU's CTA
// slots and small next to these.
GraphSize graph_size(const TileGraph& g, double traced_fraction) {
  GraphSize s;
  double params = 0;
  for (const auto& k : g.kernels) {
    for (const auto& t : k.templates) s.template_nodes += static_cast<double>(t.nodes.size() + t.edges.size());
    for (const auto& grp : k.grid) {
      const auto ti = static_cast<std::size_t>(grp.template_index);
      const double nodes = ti < k.templates.size() ? static_cast<double>(k.templates[ti].nodes.size()) : 0.0;
      s.node_executions += nodes * static_cast<double>(grp.count);
      params += static_cast<double>(grp.params.size());
    }
  }
  s.memory_bytes = 256.0 * s.template_nodes + 8.0 * params + 160.0 * traced_fraction * s.node_executions + 64e6;
  return s;
}

Limits default_limits() {
  Limits l;
  l.max_node_executions = 2e9;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) l.max_memory_bytes = 0.5 * static_cast<double>(pages) * static_cast<double>(page);
  return l;
}

void check_limits(const TileGraph& g, const Limits& limits, double traced_fraction) {
  const GraphSize s = graph_size(g, traced_fraction);
  if (limits.max_node_executions > 0 && s.node_executions > limits.max_node_executions)
    throw InputError(fmt::format(
        "graph \"{}\" needs {:.3g} node executions, more than --max-nodes {:.3g} (about {:.0f} s at 20 M/s); "
        "raise --max-nodes to run it anyway",
        g.name, s.node_executions, limits.max_node_executions, s.node_executions / 20e6));
  if (limits.max_memory_bytes > 0 && s.memory_bytes > limits.max_memory_bytes)
    throw InputError(fmt::format("graph \"{}\" needs about {:.3g} GB to simulate{}, more than --max-memory {:.3g} GB; "
                                 "raise --max-memory (or trace fewer SMs) to run it anyway",
                                 g.name, s.memory_bytes / 1e9, traced_fraction > 0 ? " with its trace" : "",
                                 limits.max_memory_bytes / 1e9));
}

}  // namespace tgsim::graph
