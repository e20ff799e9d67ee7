#include "sim/hw/spec_json.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/hw/json_overrides.h"
#include "sim/hw/json_reader.h"
#include "sim/hw/spec_checks.h"
#include "sim/units/error.h"

namespace tgsim::hw {
namespace {

constexpr std::array kAllDTypes{DType::fp32,     DType::tf32,     DType::fp16, DType::bf16,
                                DType::fp8_e4m3, DType::fp8_e5m2, DType::int8, DType::fp4};
constexpr std::array kAllTensorInsts{TensorInst::mma_sync, TensorInst::wgmma, TensorInst::tcgen05};

ClockSpec read_clock(const ObjectReader& r) {
  ClockSpec c;
  c.boost = r.frequency("boost");
  c.base = r.frequency("base");
  if (r.has("model")) c.model = r.text("model");
  if (r.has("sustained_tensor")) c.sustained_tensor = r.frequency("sustained_tensor");
  if (r.has("sustained_tensor_fp8")) c.sustained_tensor_fp8 = r.frequency("sustained_tensor_fp8");
  if (r.has("short_term_tensor")) c.short_term_tensor = r.frequency("short_term_tensor");
  if (r.has("short_term_tensor_fp8")) c.short_term_tensor_fp8 = r.frequency("short_term_tensor_fp8");
  if (r.has("mma_sync_loop")) c.mma_sync_loop = r.frequency("mma_sync_loop");
  if (r.has("tensor_max")) c.tensor_max = r.frequency("tensor_max");
  if (r.has("tensor_max_wgmma")) c.tensor_max_wgmma = r.frequency("tensor_max_wgmma");
  if (r.has("tensor_max_wgmma_per_duty")) c.tensor_max_wgmma_per_duty = r.frequency("tensor_max_wgmma_per_duty");
  if (r.has("power_weight_mma_sync")) c.power_weight_mma_sync = r.number("power_weight_mma_sync");
  if (r.has("power_weight_simt")) c.power_weight_simt = r.number("power_weight_simt");
  if (r.has("power_per_hbm_tbps")) c.power_per_hbm_tbps = r.frequency("power_per_hbm_tbps");
  if (r.has("power_weight_smem")) c.power_weight_smem = r.number("power_weight_smem");
  if (r.has("power_weight_l2")) c.power_weight_l2 = r.number("power_weight_l2");
  if (r.has("power_weight_clock")) c.power_weight_clock = r.number("power_weight_clock");
  if (r.has("sustained_onset")) c.sustained_onset = r.duration("sustained_onset");
  if (r.has("sustained_onset_fp8")) c.sustained_onset_fp8 = r.duration("sustained_onset_fp8");
  return c;
}

SmSpec read_sm(const ObjectReader& r) {
  SmSpec s;
  s.count = r.small_integer("count");
  s.sub_partitions = r.small_integer("sub_partitions");
  s.max_threads = r.small_integer("max_threads");
  s.max_warps = r.small_integer("max_warps");
  s.max_ctas = r.small_integer("max_ctas");
  s.registers = r.small_integer("registers");
  s.register_alloc_unit = r.small_integer("register_alloc_unit");
  s.shared_memory = r.bytes("shared_memory");
  s.shared_memory_per_cta = r.bytes("shared_memory_per_cta");
  s.reserved_shared_memory_per_cta = r.bytes("reserved_shared_memory_per_cta");
  s.shared_memory_bandwidth = BytesPerCycle{r.bytes_per_cycle("shared_memory_bandwidth")};
  s.l2_bandwidth_per_sm = BytesPerCycle{r.bytes_per_cycle("l2_bandwidth_per_sm")};
  if (r.has("cp_async_4b_cycles")) s.cp_async_4b_cycles = r.cycles("cp_async_4b_cycles");
  if (r.has("cp_async_8b_cycles")) s.cp_async_8b_cycles = r.cycles("cp_async_8b_cycles");
  if (r.has("cp_async_fill_stall_cycles")) s.cp_async_fill_stall_cycles = r.cycles("cp_async_fill_stall_cycles");
  if (r.has("cp_async_narrow_fill_stall_cycles")) {
    s.cp_async_narrow_fill_stall_cycles = r.cycles("cp_async_narrow_fill_stall_cycles");
  }
  if (r.has("ldg_2b_cycles")) s.ldg_2b_cycles = r.cycles("ldg_2b_cycles");
  s.ldg_2b_aligned_pitch_cycles = r.has("ldg_2b_aligned_pitch_cycles") ? r.cycles("ldg_2b_aligned_pitch_cycles") : s.ldg_2b_cycles;
  s.ldg_2b_pitch16_cycles = r.has("ldg_2b_pitch16_cycles") ? r.cycles("ldg_2b_pitch16_cycles") : s.ldg_2b_cycles;
  if (r.has("instruction_fetch_cycles")) s.instruction_fetch_cycles = r.cycles("instruction_fetch_cycles");
  if (r.has("l2_bandwidth_per_sm_pitch16")) {
    s.l2_bandwidth_per_sm_pitch16 = BytesPerCycle{r.bytes_per_cycle("l2_bandwidth_per_sm_pitch16")};
  }
  if (r.has("l2_bandwidth_per_sm_pitch32")) {
    s.l2_bandwidth_per_sm_pitch32 = BytesPerCycle{r.bytes_per_cycle("l2_bandwidth_per_sm_pitch32")};
  }
  return s;
}

GpcSpec read_gpc(const ObjectReader& r) {
  GpcSpec g;
  g.count = r.small_integer("count");
  g.sms_per_gpc = r.integer_list("sms_per_gpc");
  g.max_cluster_size = r.small_integer("max_cluster_size");
  return g;
}

// One instruction family's {dtype: FLOP/clk/SM} map. Keys are canonical dtype names; an alias
// ("fp8", "half") is rejected with the canonical spelling, so a file has one name per type.
std::map<DType, double> read_flops_family(const nlohmann::json& node, const std::string& pointer, ReadContext& ctx) {
  std::vector<std::string_view> names;
  names.reserve(kAllDTypes.size());
  for (const DType t : kAllDTypes) names.push_back(to_string(t));
  if (node.is_object()) {
    for (const auto& item : node.items()) {
      const auto alias = parse_dtype(item.key());
      if (alias && to_string(*alias) != item.key()) {
        ctx.fail(pointer + "/" + pointer_escape(item.key()),
                 fmt::format("unknown key (did you mean \"{}\"?)", to_string(*alias)));
      }
    }
  }
  const ObjectReader family(node, pointer, ctx, names);
  std::map<DType, double> rates;
  for (const DType t : kAllDTypes) {
    if (family.has(to_string(t))) rates[t] = family.number(to_string(t));
  }
  return rates;
}

TensorSpec read_tensor(const ObjectReader& r) {
  TensorSpec t;
  std::vector<std::string_view> families;
  families.reserve(kAllTensorInsts.size());
  for (const TensorInst i : kAllTensorInsts) families.push_back(to_string(i));
  const ObjectReader flops = r.section("flops_per_cycle", families);
  for (const TensorInst i : kAllTensorInsts) {
    const std::string_view name = to_string(i);
    if (flops.has(name)) t.flops_per_cycle[i] = read_flops_family(flops.object(name), flops.child(name), r.context());
  }
  t.latency = r.cycles("latency");
  if (r.has("mma_sync_latency")) t.mma_sync_latency = r.cycles("mma_sync_latency");
  if (r.has("mma_sync_k8_fraction")) t.mma_sync_k8_fraction = r.number("mma_sync_k8_fraction");
  if (r.has("mma_sync_issue_fraction")) t.mma_sync_issue_fraction = r.number("mma_sync_issue_fraction");
  if (r.has("wgmma_overhead")) t.wgmma_overhead = r.cycles("wgmma_overhead");
  if (r.has("ws_k_step_floor")) t.ws_k_step_floor = r.cycles("ws_k_step_floor");
  return t;
}

SimtSpec read_simt(const ObjectReader& r) {
  SimtSpec s;
  s.fp32_lanes = r.number("fp32_lanes");
  s.int_lanes = r.number("int_lanes");
  s.sfu_lanes = r.number("sfu_lanes");
  s.latency = r.cycles("latency");
  if (r.has("shuffle_latency")) s.shuffle_latency = r.cycles("shuffle_latency");
  if (r.has("rate_during_wgmma")) s.rate_during_wgmma = r.number("rate_during_wgmma");
  return s;
}

L2Spec read_l2(const ObjectReader& r) {
  L2Spec l;
  l.capacity = r.bytes("capacity");
  l.bandwidth = r.bandwidth("bandwidth");
  l.hit_latency = r.cycles("hit_latency");
  if (r.has("far_hit_latency")) l.far_hit_latency = r.cycles("far_hit_latency");
  l.partitions = r.small_integer("partitions");
  if (r.has("flush_dirty_fraction")) l.flush_dirty_fraction = r.number("flush_dirty_fraction");
  if (r.has("gpc_combine_window")) l.gpc_combine_window = r.duration("gpc_combine_window");
  if (r.has("gpc_combine_fraction")) l.gpc_combine_fraction = r.number("gpc_combine_fraction");
  if (r.has("gpc_combine_plain")) l.gpc_combine_plain = r.boolean("gpc_combine_plain");
  if (r.has("miss_waits_for_writeback")) l.miss_waits_for_writeback = r.boolean("miss_waits_for_writeback");
  if (r.has("miss_bandwidth")) l.miss_bandwidth = r.bandwidth("miss_bandwidth");
  if (r.has("pitch16_bandwidth")) l.pitch16_bandwidth = r.bandwidth("pitch16_bandwidth");
  if (r.has("fill_weight")) l.fill_weight = r.number("fill_weight");
  if (r.has("writeback_weight")) l.writeback_weight = r.number("writeback_weight");
  return l;
}

HbmSpec read_hbm(const ObjectReader& r) {
  HbmSpec h;
  h.capacity = r.bytes("capacity");
  h.bandwidth = r.bandwidth("bandwidth");
  h.efficiency = r.number("efficiency");
  h.latency = r.cycles("latency");
  return h;
}

TmaSpec read_tma(const ObjectReader& r) {
  TmaSpec t;
  t.issue_latency = r.cycles("issue_latency");
  t.efficient_request = r.bytes("efficient_request");
  if (r.has("cta_setup")) t.cta_setup = r.cycles("cta_setup");
  if (r.has("descriptor_serialisation")) t.descriptor_serialisation = r.duration("descriptor_serialisation");
  if (r.has("store_fence")) t.store_fence = r.cycles("store_fence");
  return t;
}

LaunchSpec read_launch(const ObjectReader& r) {
  LaunchSpec l;
  l.kernel_overhead = r.duration("kernel_overhead");
  l.graph_kernel_overhead = r.duration("graph_kernel_overhead");
  l.queued_kernel_gap = r.has("queued_kernel_gap") ? r.duration("queued_kernel_gap") : l.kernel_overhead;
  l.graph_launch_overhead = r.has("graph_launch_overhead") ? r.duration("graph_launch_overhead") : l.kernel_overhead;
  l.pdl_kernel_gap = r.has("pdl_kernel_gap") ? r.duration("pdl_kernel_gap") : l.queued_kernel_gap;
  l.cta_launch = r.duration("cta_launch");
  if (r.has("cupti_duration_extra")) l.cupti_duration_extra = r.duration("cupti_duration_extra");
  return l;
}

GpuSpec read_document(const nlohmann::json& doc, ReadContext& ctx) {
  const ObjectReader top(doc, "", ctx,
                         {"name", "full_name", "arch", "compute_capability", "clock", "sm", "gpc", "tensor", "simt",
                          "l2", "hbm", "tma", "launch", "notes"});
  GpuSpec spec;
  spec.name = top.text("name");
  spec.full_name = top.text("full_name");
  spec.arch = top.text("arch");
  spec.compute_capability = top.small_integer("compute_capability");
  spec.clock = read_clock(top.section("clock", {"boost", "base", "model", "sustained_tensor", "sustained_tensor_fp8", "short_term_tensor", "short_term_tensor_fp8", "mma_sync_loop", "tensor_max", "tensor_max_wgmma", "tensor_max_wgmma_per_duty", "power_weight_mma_sync", "power_weight_simt", "power_per_hbm_tbps", "power_weight_smem", "power_weight_l2", "power_weight_clock", "sustained_onset", "sustained_onset_fp8"}));
  spec.sm = read_sm(top.section(
      "sm", {"count", "sub_partitions", "max_threads", "max_warps", "max_ctas", "registers", "register_alloc_unit",
             "shared_memory", "shared_memory_per_cta", "reserved_shared_memory_per_cta", "shared_memory_bandwidth",
             "l2_bandwidth_per_sm", "cp_async_4b_cycles", "cp_async_8b_cycles", "cp_async_fill_stall_cycles", "cp_async_narrow_fill_stall_cycles", "ldg_2b_cycles", "ldg_2b_aligned_pitch_cycles", "ldg_2b_pitch16_cycles", "instruction_fetch_cycles",
             "l2_bandwidth_per_sm_pitch16", "l2_bandwidth_per_sm_pitch32"}));
  spec.gpc = read_gpc(top.section("gpc", {"count", "sms_per_gpc", "max_cluster_size"}));
  spec.tensor = read_tensor(top.section("tensor", {"flops_per_cycle", "latency", "mma_sync_latency", "mma_sync_k8_fraction", "mma_sync_issue_fraction", "wgmma_overhead", "ws_k_step_floor"}));
  spec.simt = read_simt(top.section("simt", {"fp32_lanes", "int_lanes", "sfu_lanes", "latency", "shuffle_latency", "rate_during_wgmma"}));
  spec.l2 = read_l2(top.section("l2", {"capacity", "bandwidth", "hit_latency", "far_hit_latency", "partitions", "flush_dirty_fraction",
                                              "gpc_combine_window", "gpc_combine_fraction", "gpc_combine_plain", "miss_waits_for_writeback", "miss_bandwidth", "pitch16_bandwidth",
                                              "fill_weight", "writeback_weight"}));
  spec.hbm = read_hbm(top.section("hbm", {"capacity", "bandwidth", "efficiency", "latency"}));
  // The TMA arrived with sm90: required from there on, optional (and normally absent) before.
  if (top.has("tma") || spec.compute_capability >= 90) {
    spec.tma = read_tma(top.section("tma", {"issue_latency", "efficient_request", "cta_setup", "descriptor_serialisation",
                                                  "store_fence"}));
  }
  spec.launch = read_launch(top.section("launch", {"kernel_overhead", "queued_kernel_gap", "graph_kernel_overhead", "graph_launch_overhead",
                                                       "pdl_kernel_gap", "cta_launch", "cupti_duration_extra"}));
  if (top.has("notes")) spec.notes = top.text("notes");
  spec.sources = ctx.sources();
  check_gpu_spec(spec, ctx);
  return spec;
}

std::string read_text_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open file", file.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

GpuSpec parse_gpu_spec(const nlohmann::json& doc, std::string_view origin, const std::vector<std::string>& overrides) {
  if (overrides.empty()) {
    ReadContext ctx{std::string(origin)};
    return read_document(doc, ctx);
  }
  if (!doc.is_object()) throw InputError(fmt::format("{}: expected a JSON object at the top level", origin));
  nlohmann::json edited = doc;
  ReadContext ctx{std::string(origin), apply_overrides(edited, overrides)};
  return read_document(edited, ctx);
}

GpuSpec load_gpu_spec(const std::filesystem::path& file, const std::vector<std::string>& overrides) {
  const std::string text = read_text_file(file);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(fmt::format("{}: invalid JSON: {}", file.string(), e.what()));
  }
  return parse_gpu_spec(doc, file.string(), overrides);
}

std::vector<std::string> list_gpu_presets(const std::filesystem::path& config_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  const std::filesystem::path dir = config_dir / "gpus";
  if (!std::filesystem::is_directory(dir, ec)) return names;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec) && entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

GpuSpec load_gpu_preset(std::string_view name_or_path, const std::filesystem::path& config_dir,
                        const std::vector<std::string>& overrides) {
  const bool is_path = name_or_path.find('/') != std::string_view::npos || name_or_path.ends_with(".json");
  if (is_path) return load_gpu_spec(std::filesystem::path(name_or_path), overrides);
  const std::vector<std::string> names = list_gpu_presets(config_dir);
  if (std::find(names.begin(), names.end(), name_or_path) == names.end()) {
    const std::string dir = (config_dir / "gpus").string();
    if (names.empty()) throw InputError(fmt::format("unknown GPU \"{}\": no presets found in {}", name_or_path, dir));
    const std::string suggestion = closest_match(name_or_path, names);
    throw InputError(fmt::format("unknown GPU \"{}\"{}; valid names: {} (in {}), or a path to a .json file",
                                 name_or_path, suggestion.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", suggestion),
                                 fmt::join(names, ", "), dir));
  }
  return load_gpu_spec(config_dir / "gpus" / (std::string(name_or_path) + ".json"), overrides);
}

}  // namespace tgsim::hw
