// Graph algorithms on one CTA template (declared in validate.h). Boost.Graph stays in this file.
#include <fmt/format.h>

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/topological_sort.hpp>
#include <iterator>

#include "sim/graph/validate.h"
#include "sim/units/error.h"

namespace tgsim::graph {
namespace {

using Digraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
using Vertex = boost::graph_traits<Digraph>::vertex_descriptor;
using DigraphEdge = boost::graph_traits<Digraph>::edge_descriptor;

void check_edges(const CtaTemplate& t) {
  const auto n = static_cast<int>(t.nodes.size());
  for (std::size_t i = 0; i < t.edges.size(); ++i) {
    const Edge& e = t.edges[i];
    if (e.from < 0 || e.from >= n || e.to < 0 || e.to >= n) {
      throw InputError(fmt::format("template \"{}\": edge {} ({} -> {}) names a node that does not exist ({} nodes)",
                                   t.name, i, e.from, e.to, n));
    }
  }
}

Digraph to_digraph(const CtaTemplate& t) {
  Digraph g(t.nodes.size());
  for (const Edge& e : t.edges) boost::add_edge(static_cast<Vertex>(e.from), static_cast<Vertex>(e.to), g);
  return g;
}

struct CycleFound {};

// Records the DFS tree; the first back edge (u -> v, v an ancestor of u) closes a cycle
// v -> ... -> u -> v, read back along the tree from u.
class CycleVisitor : public boost::default_dfs_visitor {
 public:
  CycleVisitor(std::vector<Vertex>& parent, std::vector<int>& cycle) : parent_(&parent), cycle_(&cycle) {}

  void tree_edge(DigraphEdge e, const Digraph& g) const { (*parent_)[boost::target(e, g)] = boost::source(e, g); }

  void back_edge(DigraphEdge e, const Digraph& g) const {
    const Vertex ancestor = boost::target(e, g);
    for (Vertex v = boost::source(e, g); v != ancestor; v = (*parent_)[v]) cycle_->push_back(static_cast<int>(v));
    cycle_->push_back(static_cast<int>(ancestor));
    std::reverse(cycle_->begin(), cycle_->end());
    throw CycleFound{};
  }

 private:
  std::vector<Vertex>* parent_;
  std::vector<int>* cycle_;
};

}  // namespace

std::vector<int> find_cycle(const CtaTemplate& t) {
  check_edges(t);
  const Digraph g = to_digraph(t);
  std::vector<Vertex> parent(t.nodes.size());
  std::vector<int> cycle;
  try {
    boost::depth_first_search(g, boost::visitor(CycleVisitor(parent, cycle)));
  } catch (const CycleFound&) {
    std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  }
  return cycle;
}

std::vector<int> topological_order(const CtaTemplate& t) {
  check_edges(t);
  const Digraph g = to_digraph(t);
  std::vector<Vertex> reversed;
  reversed.reserve(t.nodes.size());
  try {
    boost::topological_sort(g, std::back_inserter(reversed));
  } catch (const boost::not_a_dag&) {
    std::vector<std::string_view> ids;
    for (int i : find_cycle(t)) ids.push_back(t.nodes[static_cast<std::size_t>(i)].id);
    ids.push_back(ids.front());
    throw InputError(fmt::format("template \"{}\": cycle: {}", t.name, fmt::join(ids, " -> ")));
  }
  return std::vector<int>(reversed.rbegin(), reversed.rend());
}

}  // namespace tgsim::graph
