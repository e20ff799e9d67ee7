// Pieces shared by the GEMM lowerings: node constructors and the grid of CTA groups.
#pragma once

#include <functional>
#include <string>

#include "frontend/gemm/plan.h"
#include "frontend/gemm/problem.h"
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

graph::Node memory_node(std::string id, graph::NodeKind kind, graph::MemEngine engine, int role, double bytes,
                        int tensor, std::array<graph::Coord, 3> coords, int multicast = 1);
graph::Node mma_node(std::string id, int role, TensorInst inst, DType dtype, std::array<int, 3> shape, std::int64_t count);
graph::Node simt_node(std::string id, int role, double ops, int threads);
graph::Node smem_node(std::string id, int role, double bytes);

// Groups consecutive CTAs whose work items have the same shape (count, K iterations, fix-up role)
// into CtaGroups, building one template per distinct shape with `make_template(items)`.
using TemplateMaker = std::function<graph::CtaTemplate(const std::vector<WorkItem>& items)>;
void fill_grid(graph::Kernel& k, const Plan& plan, const TemplateMaker& make_template);

// SIMT instructions per output element in the epilogue: scale + convert, plus bias add and an
// activation (SiLU/GELU: an exp on the SFU and a few FMAs) for a fused epilogue.
double epilogue_ops_per_element(Epilogue e);

// wgmma/tcgen05/mma.sync K per instruction: 32 bytes of input (k16 for 16-bit, k8 tf32, k32 fp8).
int mma_k(DType t);

}  // namespace tgsim::gemm
