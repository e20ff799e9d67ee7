#include "frontend/elementwise.h"

#include <algorithm>
#include <cmath>

#include "frontend/nodes.h"
#include "frontend/template_builder.h"

namespace tgsim::frontend {

namespace {

int last_pow2(double x) {
  int p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

// A kernel of `threads`-thread CTAs with one role; the template is the caller's to fill.
// The grid: the first e.cold_ctas CTAs from `cold` (the template with the cold start), the rest
// from template 0.
void set_grid(graph::Kernel& k, std::int64_t ctas, const Elementwise& e, graph::CtaTemplate cold) {
  const std::int64_t first = e.cold_cycles > 0 ? std::min<std::int64_t>(ctas, e.cold_ctas) : 0;
  if (first > 0) {
    k.templates.push_back(std::move(cold));
    k.grid.push_back(graph::CtaGroup{1, first, 0, {}});
  }
  if (ctas > first) k.grid.push_back(graph::CtaGroup{0, ctas - first, 0, {}});
}

graph::Kernel one_role_kernel(const std::string& name, int threads) {
  graph::Kernel k;
  k.name = name;
  k.cta.threads = threads;
  k.cta.registers_per_thread = 32;
  return k;
}

// A CTA that reduces `rows_per_cta` rows: rounds of dependent loads (each thread's next loads are
// issued after it has added the previous ones), then the in-CTA reduction and the store.
graph::CtaTemplate reduction_template(const Elementwise& e, const std::string& name, double setup, int threads,
                                      double ctas, int rounds) {
  const int bx = std::max(1, e.row_threads);
  TemplateBuilder b(name);
  const int role = b.role("threads", 0, (threads + 31) / 32);
  int prev = setup > 0 ? b.add(delay_node("setup", role, setup)) : -1;
  const double round_bytes = e.read_bytes / ctas / rounds;
  const double round_ops = e.ops_per_element * e.elements / ctas / threads / rounds;
  for (int r = 0; r < rounds; ++r) {
    graph::Node load = memory_node("load" + std::to_string(r), graph::NodeKind::load, graph::MemEngine::plain, role,
                                   round_bytes, -1, {});
    load.tile.resident = e.inputs_in_l2;
    const int ld = b.add(std::move(load));
    b.edge(prev, ld);
    const int add = b.add(simt_node("add" + std::to_string(r), role, std::max(1.0, round_ops), threads));
    b.edge(ld, add);
    prev = add;
  }
  // the row's partial sums combined: warp shuffles, then shared memory across warps of a row
  const int combine = b.add(simt_node("combine", role, 2.0 * std::log2(std::max(2, bx)), threads));
  b.edge(prev, combine);
  const int st = b.add(memory_node("store", graph::NodeKind::store, graph::MemEngine::plain, role,
                                   e.write_bytes / ctas, -1, {}));
  b.edge(combine, st);
  return b.take();
}

graph::Kernel reduction_kernel(const std::string& name, const Elementwise& e) {
  const int bx = std::max(1, e.row_threads), by = std::max(1, e.rows_per_cta);
  const int threads = std::max(32, bx * by);
  const double ctas = e.ctas > 0 ? static_cast<double>(e.ctas) : std::ceil(static_cast<double>(e.rows) / by);
  const int rounds = std::max(1, static_cast<int>(std::ceil(e.row_length / (bx * std::max(1, e.round_elements)))));
  graph::Kernel k = one_role_kernel(name, threads);
  k.templates.push_back(reduction_template(e, "cta", e.setup_cycles, threads, ctas, rounds));
  set_grid(k, static_cast<std::int64_t>(ctas), e,
           reduction_template(e, "cta_cold", e.setup_cycles + e.cold_cycles, threads, ctas, rounds));
  return k;
}

}  // namespace

std::array<int, 2> pytorch_reduce_block(std::int64_t rows, double row_length) {
  constexpr int kMaxThreads = 512, kWarp = 32;
  const int width0 = std::min(last_pow2(std::max(1.0, row_length)), kWarp);
  const int height = std::min(last_pow2(static_cast<double>(std::max<std::int64_t>(1, rows))), kMaxThreads / width0);
  const int width = std::min(last_pow2(std::max(1.0, row_length)), kMaxThreads / height);
  // ReduceConfig: when each thread would still sum at least 16 x height (or 256) values, block.y
  // splits the row too (partial sums combined through shared memory) instead of holding rows.
  const double per_thread = std::ceil(row_length / std::max(1, width));
  if (per_thread >= 16.0 * height || per_thread >= 256) return {std::max(1, width * height), 1};
  return {std::max(1, width), std::max(1, height)};
}

graph::Kernel elementwise_kernel(const std::string& name, const Elementwise& e) {
  if (e.row_threads > 0 && e.row_length > 0 && e.rows > 0) return reduction_kernel(name, e);
  const int threads = std::max(32, e.threads);
  const double ctas = e.ctas > 0   ? static_cast<double>(e.ctas)
                      : e.rows > 0 ? static_cast<double>(e.rows)
                                   : std::max(1.0, std::ceil(e.elements / (threads * std::max(1, e.elements_per_thread))));
  graph::Kernel k = one_role_kernel(name, threads);
  const auto make = [&](const std::string& tname, double setup_cycles) {
    TemplateBuilder b(tname);
    const int role = b.role("threads", 0, (threads + 31) / 32);
    const int setup = setup_cycles > 0 ? b.add(delay_node("setup", role, setup_cycles)) : -1;
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
    return b.take();
  };
  k.templates.push_back(make("cta", e.setup_cycles));
  set_grid(k, static_cast<std::int64_t>(ctas), e, make("cta_cold", e.setup_cycles + e.cold_cycles));
  return k;
}

}  // namespace tgsim::frontend
