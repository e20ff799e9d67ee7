// A small helper for frontends: builds a CtaTemplate node by node, returning indices, so lowering
// code reads like the kernel's program (no string ids to keep in sync).
#pragma once

#include <string>
#include <utility>

#include "sim/graph/tile_graph.h"

namespace tgsim::frontend {

class TemplateBuilder {
 public:
  explicit TemplateBuilder(std::string name) { t_.name = std::move(name); }

  int role(std::string name, int first_warp, int warps) {
    t_.roles.push_back(graph::Role{std::move(name), first_warp, warps});
    return static_cast<int>(t_.roles.size() - 1);
  }
  int add(graph::Node n) {
    t_.nodes.push_back(std::move(n));
    return static_cast<int>(t_.nodes.size() - 1);
  }
  void edge(int from, int to, graph::EdgeKind kind = graph::EdgeKind::data) {
    if (from >= 0 && to >= 0) t_.edges.push_back(graph::Edge{from, to, kind});
  }
  void order(int from, int to) { edge(from, to, graph::EdgeKind::order); }
  graph::Node& node(int i) { return t_.nodes.at(static_cast<std::size_t>(i)); }
  std::size_t size() const { return t_.nodes.size(); }
  graph::CtaTemplate take() { return std::move(t_); }

 private:
  graph::CtaTemplate t_;
};

}  // namespace tgsim::frontend
