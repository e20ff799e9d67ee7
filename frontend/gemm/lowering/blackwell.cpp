// Blackwell tcgen05 GEMM (PRELIMINARY, not validated against hardware): the warp-specialised
// pipeline of the Hopper kernel, with one MMA warp issuing tcgen05.mma into TMEM accumulators.
// TMEM holds two accumulator buffers, so the next tile's MMAs start while the epilogue warps
// drain the previous one; with 2-SM pairs (two_sm) a cluster of two CTAs shares one MMA of M=256.
#include <algorithm>

#include <fmt/format.h>

#include "frontend/gemm/lowering/common.h"
#include "frontend/gemm/lowering/hopper_ws.h"
#include "sim/units/error.h"

namespace tgsim::gemm {
namespace {

class BlackwellLowering final : public KernelLowering {
 public:
  std::string_view name() const override { return "blackwell_tcgen05"; }
  int ctas_per_sm(const Problem&, const Schedule&, const hw::GpuSpec&) const override { return 1; }
  graph::Kernel build(const Problem& p, const Schedule& s, const Plan& plan, const hw::GpuSpec& spec) const override {
    if (spec.arch != "blackwell")
      throw InputError(fmt::format("schedule \"{}\" uses tcgen05 (Blackwell), which {} ({}) cannot run", s.name,
                                   spec.name, spec.arch));
    graph::Kernel k;
    k.name = s.name.empty() ? "gemm_sm100_tcgen05" : s.name;
    declare_tensors(k, p, plan);
    k.cta.threads = 128 * (1 + std::max(1, s.consumer_warpgroups));
    k.cta.registers_per_thread = 65536 / k.cta.threads / 8 * 8;
    k.cta.shared_memory = Bytes{ws_shared_memory(p, s, spec)};
    k.cta.cluster = {plan.cluster_m * plan.cluster_n, 1, 1};
    // Epilogue warps read TMEM, convert, and free the buffer; cooperative-style (one tile at a time).
    Schedule coop = s;
    coop.warp_specialization = WarpSpecialization::cooperative;
    const WsVariant v{TensorInst::tcgen05, 2, true};
    fill_grid(k, plan, [&](const std::vector<WorkItem>& items) { return build_ws_template(p, coop, plan, v, items); });
    return k;
  }
};

}  // namespace

std::unique_ptr<KernelLowering> make_blackwell_lowering() { return std::make_unique<BlackwellLowering>(); }

}  // namespace tgsim::gemm
