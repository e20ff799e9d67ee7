#include "frontend/gemm/lowering/common.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

namespace tgsim::gemm {

void declare_tensors(graph::Kernel& k, const Problem& p, const Plan& plan) {
  auto bytes = [](double x) { return Bytes{static_cast<std::int64_t>(x)}; };
  // A grouped GEMM's groups sit side by side: A and C stacked along m, B along n.
  const double g = static_cast<double>(std::max<std::int64_t>(1, p.groups));
  const double m = static_cast<double>(p.m), n = static_cast<double>(p.n), kk = static_cast<double>(p.k);
  k.tensors = {{"A", bytes(g * m * kk * element_bytes(p.a_type))},
               {"B", bytes(g * kk * n * element_bytes(p.b_type))},
               {"C", bytes(g * m * n * element_bytes(p.c_type))},
               {"workspace", bytes(plan.splits > 1 ? m * n * 4.0 * plan.splits : 0)}};
}

void fill_grid(graph::Kernel& k, const Plan& plan, const TemplateMaker& make_template) {
  std::map<std::vector<std::int64_t>, int> template_for_shape;
  for (const auto& items : plan.ctas) {
    const int n = static_cast<int>(items.size());
    std::vector<std::int64_t> shape;
    std::int64_t group = 0;
    for (const auto& w : items) {
      // grouped kernels: how many groups the scheduler stepped over to reach this tile
      shape.insert(shape.end(), {w.k_iters, static_cast<std::int64_t>(w.fixup), w.fixup == Fixup::own ? w.tile_id : -1,
                                 w.group - group, static_cast<std::int64_t>(w.outside_m) + 2 * w.outside_n, w.serial_slice});
      group = w.group;
      shape.insert(shape.end(), w.peers.begin(), w.peers.end());
    }
    auto [it, inserted] = template_for_shape.try_emplace(shape, static_cast<int>(k.templates.size()));
    if (inserted) {
      k.templates.push_back(make_template(items));
      k.templates.back().name = fmt::format("{}_{}", n == 1 ? "tile" : std::to_string(n) + "_tiles", it->second);
    }
    if (k.grid.empty() || k.grid.back().template_index != it->second) {
      k.grid.push_back(graph::CtaGroup{it->second, 0, n * kParamsPerItem, {}});
    }
    auto& g = k.grid.back();
    ++g.count;
    for (const auto& w : items) {
      g.params.insert(g.params.end(), {w.tile_m, w.tile_n, w.k_base, w.rank_m, w.rank_n, w.split, w.tile_id});
    }
  }
}

double epilogue_ops_per_element(Epilogue e) { return e == Epilogue::bias_activation ? 10.0 : 2.0; }

}  // namespace tgsim::gemm
