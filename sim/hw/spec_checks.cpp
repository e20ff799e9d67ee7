#include "sim/hw/spec_checks.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "sim/units/parse.h"

namespace tgsim::hw {
namespace {

void require_positive(const ReadContext& ctx, const std::string& pointer, double value) {
  if (!(value > 0) || !std::isfinite(value)) ctx.fail(pointer, fmt::format("must be > 0, got {}", value));
}

void require_non_negative(const ReadContext& ctx, const std::string& pointer, double value) {
  if (!(value >= 0) || !std::isfinite(value)) ctx.fail(pointer, fmt::format("must be >= 0, got {}", value));
}

void require_fraction(const ReadContext& ctx, const std::string& pointer, double value) {
  if (!(value > 0 && value <= 1)) ctx.fail(pointer, fmt::format("must be in (0, 1], got {}", value));
}

void check_identity(const GpuSpec& s, const ReadContext& ctx) {
  if (s.name.empty()) ctx.fail("/name", "must not be empty");
  if (s.arch.empty()) ctx.fail("/arch", "must not be empty");
  require_positive(ctx, "/compute_capability", s.compute_capability);
}

void check_clock(const ClockSpec& c, const ReadContext& ctx) {
  require_positive(ctx, "/clock/boost", c.boost.value);
  require_positive(ctx, "/clock/base", c.base.value);
  if (c.base > c.boost) {
    ctx.fail("/clock/base", fmt::format("{} is above {} ({})", format_frequency(c.base), ctx.describe("/clock/boost"),
                                        format_frequency(c.boost)));
  }
  // The clock model registry (sim/engine/clock) checks the name; here only that there is one.
  if (c.model.empty()) ctx.fail("/clock/model", "must not be empty (e.g. \"constant\")");
  require_non_negative(ctx, "/clock/sustained_tensor", c.sustained_tensor.value);
  if (c.sustained_tensor > c.boost) {
    ctx.fail("/clock/sustained_tensor", fmt::format("{} is above {} ({})", format_frequency(c.sustained_tensor),
                                                    ctx.describe("/clock/boost"), format_frequency(c.boost)));
  }
  require_non_negative(ctx, "/clock/sustained_tensor_fp8", c.sustained_tensor_fp8.value);
  if (c.sustained_tensor_fp8 > c.boost) {
    ctx.fail("/clock/sustained_tensor_fp8", fmt::format("{} is above {} ({})", format_frequency(c.sustained_tensor_fp8),
                                                        ctx.describe("/clock/boost"), format_frequency(c.boost)));
  }
  const auto below = [&](const char* path, Hertz v, const char* than, Hertz w) {
    require_non_negative(ctx, path, v.value);
    if (v.value != 0 && w.value != 0 && v < w) {
      ctx.fail(path, fmt::format("{} is below {} ({})", format_frequency(v), ctx.describe(than), format_frequency(w)));
    }
  };
  below("/clock/short_term_tensor", c.short_term_tensor, "/clock/sustained_tensor", c.sustained_tensor);
  below("/clock/short_term_tensor_fp8", c.short_term_tensor_fp8, "/clock/sustained_tensor_fp8", c.sustained_tensor_fp8);
  // A tensor_max above boost is allowed (a sweep may lower boost): the clock is min(boost, tensor_max).
  require_non_negative(ctx, "/clock/tensor_max", c.tensor_max.value);
  require_non_negative(ctx, "/clock/tensor_max_wgmma", c.tensor_max_wgmma.value);
  require_non_negative(ctx, "/clock/tensor_max_wgmma_per_duty", c.tensor_max_wgmma_per_duty.value);
  if (c.tensor_max_wgmma_per_duty.value >= c.tensor_max_wgmma.value && c.tensor_max_wgmma_per_duty.value > 0) {
    ctx.fail("/clock/tensor_max_wgmma_per_duty",
             fmt::format("{} leaves no clock at full tensor duty ({} is {})", format_frequency(c.tensor_max_wgmma_per_duty),
                         ctx.describe("/clock/tensor_max_wgmma"), format_frequency(c.tensor_max_wgmma)));
  }
  require_non_negative(ctx, "/clock/power_weight_mma_sync", c.power_weight_mma_sync);
  require_non_negative(ctx, "/clock/power_weight_simt", c.power_weight_simt);
  require_non_negative(ctx, "/clock/power_per_hbm_tbps", c.power_per_hbm_tbps.value);
  require_non_negative(ctx, "/clock/power_weight_smem", c.power_weight_smem);
  require_non_negative(ctx, "/clock/power_weight_l2", c.power_weight_l2);
  require_non_negative(ctx, "/clock/power_weight_clock", c.power_weight_clock);
  require_non_negative(ctx, "/clock/sustained_onset", to_seconds(c.sustained_onset));
  require_non_negative(ctx, "/clock/sustained_onset_fp8", to_seconds(c.sustained_onset_fp8));
}

void check_sm(const SmSpec& s, const ReadContext& ctx) {
  require_positive(ctx, "/sm/count", s.count);
  require_positive(ctx, "/sm/sub_partitions", s.sub_partitions);
  require_positive(ctx, "/sm/max_threads", s.max_threads);
  require_positive(ctx, "/sm/max_warps", s.max_warps);
  require_positive(ctx, "/sm/max_ctas", s.max_ctas);
  require_positive(ctx, "/sm/registers", s.registers);
  require_positive(ctx, "/sm/register_alloc_unit", s.register_alloc_unit);
  if (s.max_threads > 32 * s.max_warps) {
    ctx.fail("/sm/max_threads", fmt::format("{} threads do not fit in {} = {} warps of 32", s.max_threads,
                                            ctx.describe("/sm/max_warps"), s.max_warps));
  }
  if (s.max_warps % s.sub_partitions != 0) {
    ctx.fail("/sm/max_warps", fmt::format("{} warps do not divide evenly over {} = {}", s.max_warps,
                                          ctx.describe("/sm/sub_partitions"), s.sub_partitions));
  }
  if (s.registers % s.register_alloc_unit != 0) {
    ctx.fail("/sm/register_alloc_unit", fmt::format("{} does not divide {} = {}", s.register_alloc_unit,
                                                    ctx.describe("/sm/registers"), s.registers));
  }
  require_positive(ctx, "/sm/shared_memory", static_cast<double>(s.shared_memory.value));
  require_positive(ctx, "/sm/shared_memory_per_cta", static_cast<double>(s.shared_memory_per_cta.value));
  require_non_negative(ctx, "/sm/reserved_shared_memory_per_cta",
                       static_cast<double>(s.reserved_shared_memory_per_cta.value));
  // A CTA's opt-in allocation plus the per-CTA system reservation must fit the SM (227 + 1 KiB on
  // sm90), or the largest CTA the spec allows could never be resident.
  if (s.shared_memory_per_cta + s.reserved_shared_memory_per_cta > s.shared_memory) {
    ctx.fail("/sm/shared_memory_per_cta",
             fmt::format("{} plus {} ({}) exceeds {} ({})", format_bytes(s.shared_memory_per_cta),
                         ctx.describe("/sm/reserved_shared_memory_per_cta"),
                         format_bytes(s.reserved_shared_memory_per_cta), ctx.describe("/sm/shared_memory"),
                         format_bytes(s.shared_memory)));
  }
  require_positive(ctx, "/sm/shared_memory_bandwidth", s.shared_memory_bandwidth.value);
  require_positive(ctx, "/sm/l2_bandwidth_per_sm", s.l2_bandwidth_per_sm.value);
  require_non_negative(ctx, "/sm/cp_async_4b_cycles", s.cp_async_4b_cycles.value);
  require_non_negative(ctx, "/sm/cp_async_8b_cycles", s.cp_async_8b_cycles.value);
  require_non_negative(ctx, "/sm/cp_async_fill_stall_cycles", s.cp_async_fill_stall_cycles.value);
  require_non_negative(ctx, "/sm/cp_async_narrow_fill_stall_cycles", s.cp_async_narrow_fill_stall_cycles.value);
  require_non_negative(ctx, "/sm/ldg_2b_cycles", s.ldg_2b_cycles.value);
  require_non_negative(ctx, "/sm/ldg_2b_aligned_pitch_cycles", s.ldg_2b_aligned_pitch_cycles.value);
  require_non_negative(ctx, "/sm/ldg_2b_pitch16_cycles", s.ldg_2b_pitch16_cycles.value);
  require_non_negative(ctx, "/sm/instruction_fetch_cycles", s.instruction_fetch_cycles.value);
  require_non_negative(ctx, "/sm/l2_bandwidth_per_sm_pitch16", s.l2_bandwidth_per_sm_pitch16.value);
  require_non_negative(ctx, "/sm/l2_bandwidth_per_sm_pitch32", s.l2_bandwidth_per_sm_pitch32.value);
}

void check_gpc(const GpuSpec& spec, const ReadContext& ctx) {
  const GpcSpec& g = spec.gpc;
  require_positive(ctx, "/gpc/count", g.count);
  if (static_cast<int>(g.sms_per_gpc.size()) != g.count) {
    ctx.fail("/gpc/sms_per_gpc", fmt::format("has {} entries but {} is {}", g.sms_per_gpc.size(),
                                             ctx.describe("/gpc/count"), g.count));
  }
  for (std::size_t i = 0; i < g.sms_per_gpc.size(); ++i) {
    require_positive(ctx, fmt::format("/gpc/sms_per_gpc/{}", i), g.sms_per_gpc[i]);
  }
  const int total = std::accumulate(g.sms_per_gpc.begin(), g.sms_per_gpc.end(), 0);
  if (total != spec.sm.count) {
    ctx.fail("/gpc/sms_per_gpc",
             fmt::format("sums to {} SMs but {} is {}", total, ctx.describe("/sm/count"), spec.sm.count));
  }
  require_positive(ctx, "/gpc/max_cluster_size", g.max_cluster_size);
  const int largest = *std::max_element(g.sms_per_gpc.begin(), g.sms_per_gpc.end());
  if (g.max_cluster_size > largest) {
    ctx.fail("/gpc/max_cluster_size",
             fmt::format("{} is larger than the largest GPC ({} SMs): a cluster must fit in one GPC",
                         g.max_cluster_size, largest));
  }
  if (g.max_cluster_size > 1 && spec.compute_capability < 90) {
    ctx.fail("/gpc/max_cluster_size", fmt::format("thread-block clusters need compute capability 90 or later, but {} is {}",
                                                  ctx.describe("/compute_capability"), spec.compute_capability));
  }
}

void check_tensor(const GpuSpec& spec, const ReadContext& ctx) {
  const TensorSpec& t = spec.tensor;
  std::size_t entries = 0;
  for (const auto& [inst, rates] : t.flops_per_cycle) {
    const std::string family = fmt::format("/tensor/flops_per_cycle/{}", to_string(inst));
    for (const auto& [dtype, rate] : rates) require_positive(ctx, family + "/" + std::string(to_string(dtype)), rate);
    entries += rates.size();
    // wgmma exists only on sm90(a) (not on sm100); tcgen05 from sm100 on.
    if (inst == TensorInst::wgmma && spec.compute_capability != 90) {
      ctx.fail(family, fmt::format("wgmma exists only on compute capability 90, but {} is {}",
                                   ctx.describe("/compute_capability"), spec.compute_capability));
    }
    if (inst == TensorInst::tcgen05 && spec.compute_capability < 100) {
      ctx.fail(family, fmt::format("tcgen05 needs compute capability 100 or later, but {} is {}",
                                   ctx.describe("/compute_capability"), spec.compute_capability));
    }
  }
  if (entries == 0) ctx.fail("/tensor/flops_per_cycle", "needs at least one instruction family with one type");
  require_non_negative(ctx, "/tensor/latency", t.latency.value);
  require_non_negative(ctx, "/tensor/wgmma_overhead", t.wgmma_overhead.value);
  require_non_negative(ctx, "/tensor/ws_k_step_floor", t.ws_k_step_floor.value);
  require_fraction(ctx, "/tensor/mma_sync_k8_fraction", t.mma_sync_k8_fraction);
  if (t.mma_sync_k8_fraction <= 0) ctx.fail("/tensor/mma_sync_k8_fraction", "must be > 0");
  require_fraction(ctx, "/tensor/mma_sync_issue_fraction", t.mma_sync_issue_fraction);
}

void check_memory(const GpuSpec& spec, const ReadContext& ctx) {
  require_positive(ctx, "/simt/fp32_lanes", spec.simt.fp32_lanes);
  require_positive(ctx, "/simt/int_lanes", spec.simt.int_lanes);
  require_positive(ctx, "/simt/sfu_lanes", spec.simt.sfu_lanes);
  require_positive(ctx, "/simt/latency", spec.simt.latency.value);
  require_non_negative(ctx, "/simt/shuffle_latency", spec.simt.shuffle_latency.value);
  require_fraction(ctx, "/simt/rate_during_wgmma", spec.simt.rate_during_wgmma);

  const L2Spec& l2 = spec.l2;
  require_positive(ctx, "/l2/capacity", static_cast<double>(l2.capacity.value));
  require_positive(ctx, "/l2/bandwidth", l2.bandwidth.value);
  require_positive(ctx, "/l2/hit_latency", l2.hit_latency.value);
  require_non_negative(ctx, "/l2/far_hit_latency", l2.far_hit_latency.value);
  if (l2.far_hit_latency.value > 0 && l2.far_hit_latency < l2.hit_latency) {
    ctx.fail("/l2/far_hit_latency", fmt::format("{} is below {} ({})", format_cycles(l2.far_hit_latency),
                                                ctx.describe("/l2/hit_latency"), format_cycles(l2.hit_latency)));
  }
  require_positive(ctx, "/l2/partitions", l2.partitions);
  require_fraction(ctx, "/l2/flush_dirty_fraction", l2.flush_dirty_fraction);
  require_non_negative(ctx, "/l2/gpc_combine_window", static_cast<double>(l2.gpc_combine_window.count()));
  require_fraction(ctx, "/l2/gpc_combine_fraction", l2.gpc_combine_fraction);
  require_non_negative(ctx, "/l2/miss_bandwidth", l2.miss_bandwidth.value);
  require_non_negative(ctx, "/l2/pitch16_bandwidth", l2.pitch16_bandwidth.value);
  require_non_negative(ctx, "/l2/fill_weight", l2.fill_weight);
  require_non_negative(ctx, "/l2/writeback_weight", l2.writeback_weight);

  const HbmSpec& hbm = spec.hbm;
  require_positive(ctx, "/hbm/capacity", static_cast<double>(hbm.capacity.value));
  require_positive(ctx, "/hbm/bandwidth", hbm.bandwidth.value);
  require_fraction(ctx, "/hbm/efficiency", hbm.efficiency);
  // The DRAM latency includes the L2 miss path, so it cannot be below an L2 hit.
  if (hbm.latency < l2.hit_latency) {
    ctx.fail("/hbm/latency", fmt::format("{} is below {} ({})", format_cycles(hbm.latency),
                                         ctx.describe("/l2/hit_latency"), format_cycles(l2.hit_latency)));
  }

  if (spec.compute_capability >= 90 || spec.tma.efficient_request.value != 0 || spec.tma.issue_latency.value != 0) {
    require_non_negative(ctx, "/tma/issue_latency", spec.tma.issue_latency.value);
    require_positive(ctx, "/tma/efficient_request", static_cast<double>(spec.tma.efficient_request.value));
    require_non_negative(ctx, "/tma/cta_setup", spec.tma.cta_setup.value);
    require_non_negative(ctx, "/tma/descriptor_serialisation", static_cast<double>(spec.tma.descriptor_serialisation.count()));
    require_non_negative(ctx, "/tma/store_fence", spec.tma.store_fence.value);
  }

  require_non_negative(ctx, "/launch/kernel_overhead", static_cast<double>(spec.launch.kernel_overhead.count()));
  require_non_negative(ctx, "/launch/graph_kernel_overhead",
                       static_cast<double>(spec.launch.graph_kernel_overhead.count()));
  require_non_negative(ctx, "/launch/cta_launch", static_cast<double>(spec.launch.cta_launch.count()));
  require_non_negative(ctx, "/launch/graph_launch_overhead",
                       static_cast<double>(spec.launch.graph_launch_overhead.count()));
  require_non_negative(ctx, "/launch/pdl_kernel_gap", static_cast<double>(spec.launch.pdl_kernel_gap.count()));
  require_non_negative(ctx, "/launch/cupti_duration_extra", static_cast<double>(spec.launch.cupti_duration_extra.count()));
  require_non_negative(ctx, "/launch/queued_kernel_gap", static_cast<double>(spec.launch.queued_kernel_gap.count()));
}

}  // namespace

void check_gpu_spec(const GpuSpec& spec, const ReadContext& ctx) {
  check_identity(spec, ctx);
  check_clock(spec.clock, ctx);
  check_sm(spec.sm, ctx);
  check_gpc(spec, ctx);
  check_tensor(spec, ctx);
  check_memory(spec, ctx);
}

}  // namespace tgsim::hw
