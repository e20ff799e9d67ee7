// hw::to_json: the resolved GpuSpec as JSON in the config format (docs/gpu-specs.md), so reports
// can embed exactly what ran and parse_gpu_spec can read it back.
#include <fmt/format.h>

#include "sim/hw/spec_json.h"
#include "sim/units/parse.h"

namespace tgsim::hw {
namespace {

// Writes leaves at JSON pointers, wrapping each in {"value", "source"} when the spec has a source.
class Writer {
 public:
  explicit Writer(const std::map<std::string, std::string>& sources) : sources_(sources) {}

  void set(std::string_view section, std::string_view key, nlohmann::json value) {
    const std::string pointer = section.empty() ? fmt::format("/{}", key) : fmt::format("/{}/{}", section, key);
    nlohmann::json& slot = section.empty() ? doc_[std::string(key)] : doc_[std::string(section)][std::string(key)];
    slot = wrap(pointer, std::move(value));
  }

  nlohmann::json wrap(const std::string& pointer, nlohmann::json value) const {
    const auto it = sources_.find(pointer);
    if (it == sources_.end()) return value;
    return {{"value", std::move(value)}, {"source", it->second}};
  }

  nlohmann::json& doc() { return doc_; }

 private:
  const std::map<std::string, std::string>& sources_;
  nlohmann::json doc_ = nlohmann::json::object();
};

void write_tensor(Writer& w, const TensorSpec& t) {
  nlohmann::json flops = nlohmann::json::object();
  for (const auto& [inst, rates] : t.flops_per_cycle) {
    nlohmann::json family = nlohmann::json::object();
    for (const auto& [dtype, rate] : rates) {
      const std::string pointer = fmt::format("/tensor/flops_per_cycle/{}/{}", to_string(inst), to_string(dtype));
      family[std::string(to_string(dtype))] = w.wrap(pointer, rate);
    }
    flops[std::string(to_string(inst))] = std::move(family);
  }
  w.doc()["tensor"]["flops_per_cycle"] = std::move(flops);
  w.set("tensor", "latency", format_cycles(t.latency));
  if (t.mma_sync_latency.value != 0) w.set("tensor", "mma_sync_latency", format_cycles(t.mma_sync_latency));
  if (t.mma_sync_k8_fraction != 1.0) w.set("tensor", "mma_sync_k8_fraction", t.mma_sync_k8_fraction);
  w.set("tensor", "mma_sync_issue_fraction", t.mma_sync_issue_fraction);
  if (t.wgmma_overhead.value != 0) w.set("tensor", "wgmma_overhead", format_cycles(t.wgmma_overhead));
  if (t.ws_k_step_floor.value != 0) w.set("tensor", "ws_k_step_floor", format_cycles(t.ws_k_step_floor));
}

}  // namespace

nlohmann::json to_json(const GpuSpec& s) {
  Writer w(s.sources);
  w.set("", "name", s.name);
  w.set("", "full_name", s.full_name);
  w.set("", "arch", s.arch);
  w.set("", "compute_capability", s.compute_capability);

  w.set("clock", "boost", format_frequency(s.clock.boost));
  w.set("clock", "base", format_frequency(s.clock.base));
  w.set("clock", "model", s.clock.model);
  w.set("clock", "sustained_tensor", format_frequency(s.clock.sustained_tensor));
  w.set("clock", "sustained_tensor_fp8", format_frequency(s.clock.sustained_tensor_fp8));
  if (s.clock.short_term_tensor.value != 0) w.set("clock", "short_term_tensor", format_frequency(s.clock.short_term_tensor));
  if (s.clock.short_term_tensor_fp8.value != 0) {
    w.set("clock", "short_term_tensor_fp8", format_frequency(s.clock.short_term_tensor_fp8));
  }
  if (s.clock.mma_sync_loop.value != 0) w.set("clock", "mma_sync_loop", format_frequency(s.clock.mma_sync_loop));
  if (s.clock.tensor_max.value != 0) w.set("clock", "tensor_max", format_frequency(s.clock.tensor_max));
  if (s.clock.tensor_max_wgmma.value != 0) {
    w.set("clock", "tensor_max_wgmma", format_frequency(s.clock.tensor_max_wgmma));
  }
  if (s.clock.tensor_max_wgmma_per_duty.value != 0) {
    w.set("clock", "tensor_max_wgmma_per_duty", format_frequency(s.clock.tensor_max_wgmma_per_duty));
  }
  if (s.clock.power_weight_mma_sync != 0) w.set("clock", "power_weight_mma_sync", s.clock.power_weight_mma_sync);
  if (s.clock.power_weight_simt != 0) w.set("clock", "power_weight_simt", s.clock.power_weight_simt);
  if (s.clock.power_weight_smem != 0) w.set("clock", "power_weight_smem", s.clock.power_weight_smem);
  if (s.clock.power_weight_l2 != 0) w.set("clock", "power_weight_l2", s.clock.power_weight_l2);
  if (s.clock.power_weight_clock != 0) w.set("clock", "power_weight_clock", s.clock.power_weight_clock);
  if (s.clock.power_per_hbm_tbps.value != 0) {
    w.set("clock", "power_per_hbm_tbps", format_frequency(s.clock.power_per_hbm_tbps));
  }
  if (s.clock.sustained_onset.count() != 0) w.set("clock", "sustained_onset", format_duration(s.clock.sustained_onset));
  if (s.clock.sustained_onset_fp8.count() != 0) {
    w.set("clock", "sustained_onset_fp8", format_duration(s.clock.sustained_onset_fp8));
  }

  w.set("sm", "count", s.sm.count);
  w.set("sm", "sub_partitions", s.sm.sub_partitions);
  w.set("sm", "max_threads", s.sm.max_threads);
  w.set("sm", "max_warps", s.sm.max_warps);
  w.set("sm", "max_ctas", s.sm.max_ctas);
  w.set("sm", "registers", s.sm.registers);
  w.set("sm", "register_alloc_unit", s.sm.register_alloc_unit);
  w.set("sm", "shared_memory", format_bytes(s.sm.shared_memory));
  w.set("sm", "shared_memory_per_cta", format_bytes(s.sm.shared_memory_per_cta));
  w.set("sm", "reserved_shared_memory_per_cta", format_bytes(s.sm.reserved_shared_memory_per_cta));
  w.set("sm", "shared_memory_bandwidth", format_bytes_per_cycle(s.sm.shared_memory_bandwidth.value));
  w.set("sm", "l2_bandwidth_per_sm", format_bytes_per_cycle(s.sm.l2_bandwidth_per_sm.value));
  if (s.sm.l2_bandwidth_per_sm_pitch16.value > 0) {
    w.set("sm", "l2_bandwidth_per_sm_pitch16", format_bytes_per_cycle(s.sm.l2_bandwidth_per_sm_pitch16.value));
  }
  if (s.sm.l2_bandwidth_per_sm_pitch32.value > 0) {
    w.set("sm", "l2_bandwidth_per_sm_pitch32", format_bytes_per_cycle(s.sm.l2_bandwidth_per_sm_pitch32.value));
  }
  if (s.sm.cp_async_4b_cycles.value != 0) w.set("sm", "cp_async_4b_cycles", format_cycles(s.sm.cp_async_4b_cycles));
  if (s.sm.cp_async_8b_cycles.value != 0) w.set("sm", "cp_async_8b_cycles", format_cycles(s.sm.cp_async_8b_cycles));
  if (s.sm.cp_async_fill_stall_cycles.value != 0) {
    w.set("sm", "cp_async_fill_stall_cycles", format_cycles(s.sm.cp_async_fill_stall_cycles));
  }
  if (s.sm.cp_async_narrow_fill_stall_cycles.value != 0) {
    w.set("sm", "cp_async_narrow_fill_stall_cycles", format_cycles(s.sm.cp_async_narrow_fill_stall_cycles));
  }
  if (s.sm.ldg_2b_cycles.value != 0) w.set("sm", "ldg_2b_cycles", format_cycles(s.sm.ldg_2b_cycles));
  if (s.sm.ldg_2b_aligned_pitch_cycles.value != s.sm.ldg_2b_cycles.value)
    w.set("sm", "ldg_2b_aligned_pitch_cycles", format_cycles(s.sm.ldg_2b_aligned_pitch_cycles));
  if (s.sm.ldg_2b_pitch16_cycles.value != s.sm.ldg_2b_cycles.value)
    w.set("sm", "ldg_2b_pitch16_cycles", format_cycles(s.sm.ldg_2b_pitch16_cycles));
  if (s.sm.instruction_fetch_cycles.value != 0)
    w.set("sm", "instruction_fetch_cycles", format_cycles(s.sm.instruction_fetch_cycles));

  w.set("gpc", "count", s.gpc.count);
  w.set("gpc", "sms_per_gpc", s.gpc.sms_per_gpc);
  w.set("gpc", "max_cluster_size", s.gpc.max_cluster_size);

  write_tensor(w, s.tensor);

  w.set("simt", "fp32_lanes", s.simt.fp32_lanes);
  w.set("simt", "int_lanes", s.simt.int_lanes);
  w.set("simt", "sfu_lanes", s.simt.sfu_lanes);
  w.set("simt", "latency", format_cycles(s.simt.latency));
  if (s.simt.shuffle_latency.value != 0) w.set("simt", "shuffle_latency", format_cycles(s.simt.shuffle_latency));
  if (s.simt.rate_during_wgmma != 1.0) w.set("simt", "rate_during_wgmma", s.simt.rate_during_wgmma);

  w.set("l2", "capacity", format_bytes(s.l2.capacity));
  w.set("l2", "bandwidth", format_bandwidth(s.l2.bandwidth));
  w.set("l2", "hit_latency", format_cycles(s.l2.hit_latency));
  if (s.l2.far_hit_latency.value != 0) w.set("l2", "far_hit_latency", format_cycles(s.l2.far_hit_latency));
  w.set("l2", "partitions", s.l2.partitions);
  w.set("l2", "flush_dirty_fraction", s.l2.flush_dirty_fraction);
  if (s.l2.gpc_combine_window.count() > 0) {
    w.set("l2", "gpc_combine_window", format_duration(s.l2.gpc_combine_window));
    w.set("l2", "gpc_combine_fraction", s.l2.gpc_combine_fraction);
  }
  // The switches: written where they differ from their default or were set with a source.
  if (!s.l2.gpc_combine_plain || s.sources.contains("/l2/gpc_combine_plain")) {
    w.set("l2", "gpc_combine_plain", s.l2.gpc_combine_plain);
  }
  if (s.l2.miss_waits_for_writeback || s.sources.contains("/l2/miss_waits_for_writeback")) {
    w.set("l2", "miss_waits_for_writeback", s.l2.miss_waits_for_writeback);
  }
  if (s.l2.miss_bandwidth.value > 0) w.set("l2", "miss_bandwidth", format_bandwidth(s.l2.miss_bandwidth));
  if (s.l2.pitch16_bandwidth.value > 0) w.set("l2", "pitch16_bandwidth", format_bandwidth(s.l2.pitch16_bandwidth));
  if (s.l2.fill_weight > 0) w.set("l2", "fill_weight", s.l2.fill_weight);
  if (s.l2.writeback_weight > 0) w.set("l2", "writeback_weight", s.l2.writeback_weight);

  w.set("hbm", "capacity", format_bytes(s.hbm.capacity));
  w.set("hbm", "bandwidth", format_bandwidth(s.hbm.bandwidth));
  w.set("hbm", "efficiency", s.hbm.efficiency);
  w.set("hbm", "latency", format_cycles(s.hbm.latency));

  // Mirrors the reader: the tma section is required from sm90 on and left out when absent before.
  if (s.compute_capability >= 90 || s.tma.issue_latency.value != 0 || s.tma.efficient_request.value != 0) {
    w.set("tma", "issue_latency", format_cycles(s.tma.issue_latency));
    w.set("tma", "efficient_request", format_bytes(s.tma.efficient_request));
    if (s.tma.cta_setup.value != 0) w.set("tma", "cta_setup", format_cycles(s.tma.cta_setup));
    if (s.tma.descriptor_serialisation.count() != 0) {
      w.set("tma", "descriptor_serialisation", format_duration(s.tma.descriptor_serialisation));
    }
    if (s.tma.store_fence.value != 0) w.set("tma", "store_fence", format_cycles(s.tma.store_fence));
  }

  w.set("launch", "kernel_overhead", format_duration(s.launch.kernel_overhead));
  w.set("launch", "graph_kernel_overhead", format_duration(s.launch.graph_kernel_overhead));
  w.set("launch", "queued_kernel_gap", format_duration(s.launch.queued_kernel_gap));
  w.set("launch", "graph_launch_overhead", format_duration(s.launch.graph_launch_overhead));
  w.set("launch", "pdl_kernel_gap", format_duration(s.launch.pdl_kernel_gap));
  w.set("launch", "cta_launch", format_duration(s.launch.cta_launch));
  if (s.launch.cupti_duration_extra.count() != 0) {
    w.set("launch", "cupti_duration_extra", format_duration(s.launch.cupti_duration_extra));
  }

  if (!s.notes.empty()) w.set("", "notes", s.notes);
  return std::move(w.doc());
}

}  // namespace tgsim::hw
