#include "frontend/llm/run.h"

#include <fmt/format.h>

#include "frontend/attention/lower.h"
#include "frontend/attention/request.h"
#include "frontend/gemm/lower.h"
#include "frontend/gemm/request.h"
#include "frontend/elementwise.h"
#include "sim/engine/simulate.h"
#include "sim/graph/validate.h"
#include "sim/units/error.h"

namespace tgsim::llm {
namespace {

// Appends `g`'s kernels, their tensors renamed "<prefix>.<name>" so that the L2 model never
// mistakes one kernel's tiles for another's, and `after` indices shifted.
void append(graph::TileGraph& into, const graph::TileGraph& g, const std::string& prefix, bool cuda_graph) {
  const int base = static_cast<int>(into.kernels.size());
  for (auto k : g.kernels) {
    for (auto& t : k.tensors) t.name = prefix + "." + t.name;
    for (auto& a : k.after) a += base;
    k.in_cuda_graph = cuda_graph;
    k.stream = 0;
    into.kernels.push_back(std::move(k));
  }
}

struct Lowered {
  graph::TileGraph graph;
  std::string schedule;
};

Lowered lower_op(const Op& op, const ModelConfig& m, const hw::GpuSpec& spec) {
  Lowered out;
  switch (op.kind) {
    case OpKind::gemm: {
      gemm::Request req;
      req.m = op.m;
      req.n = op.n;
      req.k = op.k;
      req.dtype = m.dtype;
      const auto r = gemm::resolve(req, spec);
      auto l = gemm::lower_gemm(r.problem, r.schedule, spec);
      out.graph = std::move(l.graph);
      out.schedule = l.schedule.name;
      break;
    }
    case OpKind::attention: {
      attention::Request req;
      req.problem = op.attention;
      const auto r = attention::resolve(req, spec);
      auto l = attention::lower_attention(r.problem, r.schedule, spec);
      out.graph = std::move(l.graph);
      out.schedule = l.schedule.name;
      break;
    }
    case OpKind::elementwise:
      out.graph.kernels.push_back(frontend::elementwise_kernel(op.name, op.elementwise));
      out.schedule = op.elementwise.rows > 0 ? "row-wise" : "elementwise";
      break;
    case OpKind::all_reduce: break;
  }
  return out;
}

struct GroupGraph {
  graph::TileGraph graph;
  std::vector<int> op_of_kernel;
  std::vector<std::string> schedule_of_op;
};

GroupGraph build_group(const LayerGroup& group, const ModelConfig& m, const hw::GpuSpec& spec, bool cuda_graph,
                       GroupGraph into = {}) {
  into.graph.name = into.graph.name.empty() ? group.name : into.graph.name;
  into.schedule_of_op.assign(group.ops.size(), "");
  for (std::size_t i = 0; i < group.ops.size(); ++i) {
    const Op& op = group.ops[i];
    if (op.kind == OpKind::all_reduce) {
      into.schedule_of_op[i] = "all_reduce";
      continue;
    }
    const Lowered l = lower_op(op, m, spec);
    into.schedule_of_op[i] = l.schedule;
    for (int c = 0; c < op.calls; ++c) {
      append(into.graph, l.graph, fmt::format("{}.{}{}", group.name, op.name, c), cuda_graph);
      for (std::size_t k = 0; k < l.graph.kernels.size(); ++k) into.op_of_kernel.push_back(static_cast<int>(i));
    }
  }
  return into;
}

}  // namespace

graph::TileGraph sample_graph(const StepPlan& plan, const ModelConfig& m, const hw::GpuSpec& spec, bool cuda_graph) {
  GroupGraph all;
  all.graph.name = "one layer of each kind + lm head";
  for (const auto& group : plan.groups) all = build_group(group, m, spec, cuda_graph, std::move(all));
  return std::move(all.graph);
}

StepResult simulate_step(const StepPlan& plan, const ModelConfig& m, const hw::GpuSpec& spec, const StepOptions& o) {
  StepResult res;
  res.tokens = plan.tokens;
  res.notes = plan.notes;
  const double gap_us = to_us(o.cuda_graph ? spec.launch.graph_kernel_overhead : spec.launch.queued_kernel_gap);
  int done = 0;
  for (const auto& group : plan.groups) {
    std::vector<double> collective_us(group.ops.size(), 0.0);
    for (std::size_t i = 0; i < group.ops.size(); ++i) {
      if (group.ops[i].kind != OpKind::all_reduce) continue;
      if (!o.all_reduce_us) throw InputError("tensor parallelism needs an all-reduce model (a multi-GPU system)");
      collective_us[i] = o.all_reduce_us(group.ops[i].bytes);
    }
    const GroupGraph built = build_group(group, m, spec, o.cuda_graph);
    const graph::TileGraph& g = built.graph;
    const auto& op_of_kernel = built.op_of_kernel;
    const auto& schedule_of_op = built.schedule_of_op;
    graph::validate_tile_graph(g, group.name);
    engine::SimOptions so;
    so.l2_starts_dirty = o.l2_starts_dirty;
    so.critical_path = false;
    const engine::Result r = engine::simulate(g, spec, so);
    std::vector<double> op_us(group.ops.size(), 0.0);
    double layer_kernels = 0, layer_gaps = 0;
    for (std::size_t k = 0; k < r.kernels.size(); ++k) {
      const double d = to_us(r.kernels[k].end - r.kernels[k].start);
      op_us[static_cast<std::size_t>(op_of_kernel[k])] += d;
      layer_kernels += d;
      if (k > 0) layer_gaps += to_us(r.kernels[k].start - r.kernels[k - 1].end);
    }
    layer_gaps += gap_us;  // to the next layer's first kernel
    for (std::size_t i = 0; i < group.ops.size(); ++i) {
      const Op& op = group.ops[i];
      KernelRow row;
      row.group = group.name;
      row.name = op.name;
      row.schedule = schedule_of_op[i];
      row.calls = static_cast<std::int64_t>(group.count) * op.calls;
      const double per_layer = op.kind == OpKind::all_reduce ? collective_us[i] : op_us[i];
      row.total_us = per_layer * group.count;
      row.us_per_call = row.total_us / static_cast<double>(std::max<std::int64_t>(1, row.calls));
      res.rows.push_back(row);
      layer_kernels += op.kind == OpKind::all_reduce ? collective_us[i] : 0.0;
    }
    res.kernel_us += layer_kernels * group.count;
    res.gap_us += layer_gaps * group.count;
    res.kernels += static_cast<std::int64_t>(r.kernels.size()) * group.count;
    if (o.progress) o.progress(++done, static_cast<int>(plan.groups.size()));
  }
  // the step's first launch: onto an idle stream, or the graph's launch
  res.gap_us += to_us(o.cuda_graph ? spec.launch.graph_launch_overhead : spec.launch.kernel_overhead) - gap_us;
  res.total_us = res.kernel_us + res.gap_us;
  return res;
}

}  // namespace tgsim::llm
