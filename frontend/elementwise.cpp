#include "frontend/elementwise.h"

#include <algorithm>
#include <cmath>

#include "frontend/nodes.h"
#include "frontend/template_builder.h"

namespace tgsim::frontend {

graph::Kernel elementwise_kernel(const std::string& name, const Elementwise& e) {
  const int threads = std::max(32, e.threads);
  const double ctas = e.ctas > 0   ? static_cast<double>(e.ctas)
                      : e.rows > 0 ? static_cast<double>(e.rows)
                                   : std::max(1.0, std::ceil(e.elements / (threads * std::max(1, e.elements_per_thread))));
  graph::Kernel k;
  k.name = name;
  k.cta.threads = threads;
  k.cta.registers_per_thread = 32;
  TemplateBuilder b("cta");
  const int role = b.role("threads", 0, (threads + 31) / 32);
  const int setup = e.setup_cycles > 0 ? b.add(delay_node("setup", role, e.setup_cycles)) : -1;
  // Inputs and outputs are streamed (untracked by the L2 model: they usually were written by
  // the previous kernel in another tiling, so no tile key would match).
  const int ld = b.add(memory_node("load", graph::NodeKind::load, graph::MemEngine::plain, role,
                                   e.read_bytes / ctas, -1, {}));
  const int op = b.add(simt_node("compute", role, e.ops_per_element * e.elements / ctas / threads, threads));
  const int st = b.add(memory_node("store", graph::NodeKind::store, graph::MemEngine::plain, role,
                                   e.write_bytes / ctas, -1, {}));
  b.edge(setup, ld);
  b.edge(ld, op);
  b.edge(op, st);
  k.templates.push_back(b.take());
  k.grid.push_back(graph::CtaGroup{0, static_cast<std::int64_t>(ctas), 0, {}});
  return k;
}

}  // namespace tgsim::frontend
