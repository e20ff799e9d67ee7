#include "frontend/gemm/lower.h"

#include <algorithm>

#include <fmt/format.h>

#include "frontend/gemm/lowering/common.h"
#include "frontend/gemm/lowering/lowering.h"
#include "frontend/gemm/tile_order.h"
#include "frontend/template_builder.h"
#include "sim/units/error.h"

namespace tgsim::gemm {

const KernelLowering& LoweringRegistry::get(Family f) const {
  const auto it = by_family_.find(f);
  if (it == by_family_.end()) throw InputError("no lowering registered for this GEMM schedule family");
  return *it->second;
}

void register_builtin_lowerings(LoweringRegistry& r) {
  r.add(Family::ampere_multistage, make_ampere_lowering());
  r.add(Family::hopper_warpspecialized, make_hopper_lowering());
  r.add(Family::blackwell_tcgen05, make_blackwell_lowering());
}

int pick_split_k(const Problem& p, const Schedule& s, const hw::GpuSpec& spec) {
  const std::int64_t tiles = ((p.m + s.tile.m - 1) / s.tile.m) * ((p.n + s.tile.n - 1) / s.tile.n);
  const std::int64_t k_iters = (p.k + s.tile.k - 1) / s.tile.k;
  const std::int64_t by_sms = std::max<std::int64_t>(1, spec.sm.count / std::max<std::int64_t>(1, tiles));
  return static_cast<int>(std::clamp<std::int64_t>(std::min(by_sms, k_iters / 4), 1, 64));
}

namespace {

// One CTA per output tile: read the split partials (fp32, likely still in L2), add, write C.
graph::Kernel splitk_reduce_kernel(const Problem& p, const Schedule& s, const Plan& plan) {
  graph::Kernel k;
  k.name = "splitKreduce_kernel";
  declare_tensors(k, p, plan);
  k.cta.threads = 256;
  k.cta.registers_per_thread = 32;
  frontend::TemplateBuilder b("reduce");
  const int role = b.role("threads", 0, 8);
  const double elems = static_cast<double>(s.tile.m) * s.tile.n;
  const int add = b.add(simt_node("add", role, elems * plan.splits / 256.0, 256));
  for (int sp = 0; sp < plan.splits; ++sp) {
    const int ld = b.add(memory_node(fmt::format("ld{}", sp), graph::NodeKind::load, graph::MemEngine::plain, role,
                                     elems * 4.0, t_workspace, {item_param(0, p_tile_m), item_param(0, p_tile_n), {-1, sp}}));
    b.edge(ld, add);
  }
  const int st = b.add(memory_node("stC", graph::NodeKind::store, graph::MemEngine::plain, role,
                                   elems * element_bytes(p.c_type), t_c, {item_param(0, p_tile_m), item_param(0, p_tile_n), {}}));
  b.edge(add, st);
  k.templates.push_back(b.take());
  graph::CtaGroup g{0, plan.tiles_m * plan.tiles_n, kParamsPerItem, {}};
  for (std::int64_t tm = 0; tm < plan.tiles_m; ++tm) {
    for (std::int64_t tn = 0; tn < plan.tiles_n; ++tn) g.params.insert(g.params.end(), {tm, tn, 0, 0, 0, 0, tm * plan.tiles_n + tn});
  }
  k.grid.push_back(std::move(g));
  return k;
}

// torch._grouped_mm's setup kernel (prepare_grouped_gemm_data): one CTA, a thread per group, each
// reading its group's row offset and writing the group's A/B/C pointers, strides and shape (about
// 64 bytes) for the grouped kernel's scheduler. A dependent load -> compute -> store chain.
graph::Kernel grouped_setup_kernel(const Problem& p) {
  graph::Kernel k;
  k.name = "prepare_grouped_gemm_data";
  const double groups = static_cast<double>(std::max<std::int64_t>(1, p.groups));
  k.tensors = {{"offs", Bytes{static_cast<std::int64_t>(groups * 4)}}, {"args", Bytes{static_cast<std::int64_t>(groups * 64)}}};
  const int threads = static_cast<int>(std::clamp<std::int64_t>((std::max<std::int64_t>(1, p.groups) + 31) / 32 * 32, 32, 1024));
  k.cta.threads = threads;
  k.cta.registers_per_thread = 32;
  frontend::TemplateBuilder b("setup");
  const int role = b.role("threads", 0, threads / 32);
  const int ld = b.add(memory_node("ldOffs", graph::NodeKind::load, graph::MemEngine::plain, role, groups * 4.0, 0,
                                   {graph::Coord{-1, 0}, {}, {}}));
  const int ops = b.add(simt_node("args", role, 32.0, threads));
  const int st = b.add(memory_node("stArgs", graph::NodeKind::store, graph::MemEngine::plain, role, groups * 64.0, 1,
                                   {graph::Coord{-1, 0}, {}, {}}));
  b.edge(ld, ops);
  b.edge(ops, st);
  k.templates.push_back(b.take());
  k.grid.push_back(graph::CtaGroup{0, 1, 0, {}});
  return k;
}

}  // namespace

LoweredGemm lower_gemm(const Problem& p, const Schedule& s_in, const hw::GpuSpec& spec) {
  LoweredGemm out;
  Schedule s = s_in;
  if (s.stages < 1) throw InputError(fmt::format("schedule \"{}\": stages must be >= 1", s.name));
  if (s.split_k_runtime && s.split_k <= 1) {
    s.split_k = pick_split_k(p, s, spec);
    out.notes.push_back(fmt::format("split-K factor not in the kernel name: picked {} (fill {} SMs)", s.split_k, spec.sm.count));
  }
  // The schedule the caller gets back shows the tile order the heuristic picked for this problem.
  s.raster = resolve_raster(s.raster, (p.m + s.tile.m - 1) / s.tile.m, (p.n + s.tile.n - 1) / s.tile.n);
  if (s.stream_k && s.family == Family::ampere_multistage) {
    throw InputError(fmt::format("schedule \"{}\": stream-K is modelled for the warp-specialised families only", s.name));
  }
  LoweringRegistry registry;
  register_builtin_lowerings(registry);
  const KernelLowering& lowering = registry.get(s.family);
  const Plan plan = make_plan(p, s, spec, lowering.ctas_per_sm(p, s, spec));
  graph::Kernel main = lowering.build(p, s, plan, spec);
  if (main.cta.shared_memory.value > spec.sm.shared_memory_per_cta.value) {
    throw InputError(fmt::format("schedule \"{}\": {} stages of a {}x{}x{} tile need {} KiB of shared memory, more "
                                 "than the {} KiB a CTA can have on {}",
                                 s.name, s.stages, s.tile.m, s.tile.n, s.tile.k, main.cta.shared_memory.value / 1024,
                                 spec.sm.shared_memory_per_cta.value / 1024, spec.name));
  }
  out.graph.name = p.groups > 1 ? fmt::format("grouped gemm {} x {}x{}x{} {}", p.groups, p.m, p.n, p.k, to_string(p.a_type))
                                 : fmt::format("gemm {}x{}x{} {}", p.m, p.n, p.k, to_string(p.a_type));
  if (s.grouped_setup) out.graph.kernels.push_back(grouped_setup_kernel(p));
  out.graph.kernels.push_back(std::move(main));
  if (s.stream_k) out.graph.flags.push_back(graph::Flag{"tile_fixup", graph::FlagScope::gpu});
  if (s.split_k_serial && plan.splits > 1) out.graph.flags.push_back(graph::Flag{"splitk_serial", graph::FlagScope::gpu});
  if (plan.splits > 1 && !s.split_k_serial) {
    out.graph.kernels.push_back(splitk_reduce_kernel(p, s, plan));
    // cuBLASLt launches the reduction behind its sm90 GEMMs (nvjet, xmma) with programmatic
    // dependent launch: CUPTI records it starting 0-0.26 us before the GEMM ends, where the
    // CUTLASS 2.x fallbacks' reduction starts 1.0-1.5 us after (gemm_sweep cupti_gap_us,
    // traces/h200/gemm_kernel_gaps.csv).
    out.graph.kernels.back().programmatic = s.family != Family::ampere_multistage;
  }
  out.schedule = s;
  return out;
}

}  // namespace tgsim::gemm
