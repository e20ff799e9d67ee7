// Pieces shared by the GEMM lowerings: node constructors and the grid of CTA groups.
#pragma once

#include <functional>
#include <string>

#include "frontend/gemm/plan.h"
#include "frontend/gemm/problem.h"
#include "frontend/nodes.h"
#include "frontend/template_builder.h"
#include "sim/graph/tile_graph.h"

namespace tgsim::gemm {

// Tensor indices every GEMM kernel declares (Kernel::tensors order).
enum TensorIndex { t_a = 0, t_b = 1, t_c = 2, t_workspace = 3 };

void declare_tensors(graph::Kernel& k, const Problem& p, const Plan& plan);

// Coordinate of per-CTA parameter `param` of work item `item` (+ offset).
inline graph::Coord item_param(int item, Param param, std::int64_t offset = 0) {
  return graph::Coord{item * kParamsPerItem + param, offset};
}

using frontend::memory_node;
using frontend::mma_k;
using frontend::mma_node;
using frontend::simt_node;
using frontend::smem_node;

// Groups consecutive CTAs whose work items have the same shape (count, K iterations, fix-up role)
// into CtaGroups, building one template per distinct shape with `make_template(items)`.
using TemplateMaker = std::function<graph::CtaTemplate(const std::vector<WorkItem>& items)>;
void fill_grid(graph::Kernel& k, const Plan& plan, const TemplateMaker& make_template);

// SIMT instructions per output element in the epilogue: scale + convert, plus bias add and an
// activation (SiLU/GELU: an exp on the SFU and a few FMAs) for a fused epilogue.
double epilogue_ops_per_element(Epilogue e);

}  // namespace tgsim::gemm
