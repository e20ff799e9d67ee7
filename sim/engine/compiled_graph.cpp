#include "sim/engine/compiled_graph.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "sim/units/error.h"

namespace tgsim::engine {
namespace {

using graph::NodeKind;

// Warps of a role placed on sub-partitions round-robin by warp index; returns (mask, most warps on one SP).
std::pair<std::uint8_t, int> role_placement(const graph::Role& role, int warps_used, int sub_partitions) {
  std::vector<int> per_sp(static_cast<std::size_t>(sub_partitions), 0);
  std::uint8_t mask = 0;
  for (int w = 0; w < warps_used; ++w) {
    const int sp = (role.first_warp + w) % sub_partitions;
    ++per_sp[static_cast<std::size_t>(sp)];
    mask = static_cast<std::uint8_t>(mask | (1u << sp));
  }
  return {mask, *std::max_element(per_sp.begin(), per_sp.end())};
}

// Where a node sits in the graph; formatted only for an error message, as compiling is per node.
struct NodePath {
  const std::string& tmpl;
  std::size_t index;
  const std::string& id;
  std::string str() const { return fmt::format("{}/nodes/{} ({})", tmpl, index, id); }
};

double tensor_rate(const hw::GpuSpec& spec, TensorInst inst, DType dtype, const NodePath& where) {
  const auto by_inst = spec.tensor.flops_per_cycle.find(inst);
  if (by_inst != spec.tensor.flops_per_cycle.end()) {
    const auto it = by_inst->second.find(dtype);
    if (it != by_inst->second.end() && it->second > 0) return it->second;
  }
  throw InputError(fmt::format("{}: GPU \"{}\" has no {} tensor-core path for {}", where.str(), spec.name,
                               to_string(inst),
                               to_string(dtype)));
}

void compile_compute(CompiledNode& c, const graph::Node& n, const graph::Role& role, const hw::GpuSpec& spec,
                     const NodePath& where) {
  const int sps = spec.sm.sub_partitions;
  switch (n.kind) {
    case NodeKind::mma: {
      const double per_inst = 2.0 * n.shape[0] * n.shape[1] * n.shape[2];
      // mma.sync m16n8k8 on 16-bit types (the sm75 s1688 kernels) runs below the m16n8k16 rate.
      const bool k8_16bit = n.inst == TensorInst::mma_sync && n.shape[2] == 8 && dtype_bits(n.dtype) == 16;
      const double rate_sp = tensor_rate(spec, n.inst, n.dtype, where) / sps * (k8_16bit ? spec.tensor.mma_sync_k8_fraction : 1.0);
      c.pipe = Pipe::tensor;
      if (n.inst == TensorInst::mma_sync) {
        auto [mask, most] = role_placement(role, role.warps, sps);
        c.sub_partitions = mask;
        c.flops = per_inst * static_cast<double>(n.count) * role.warps;
        c.occupancy_cycles = per_inst * static_cast<double>(n.count) * most / rate_sp;
        c.issue_shared = true;
      } else {  // warpgroup / CTA-wide instruction: uses every sub-partition's tensor core
        c.sub_partitions = static_cast<std::uint8_t>((1u << sps) - 1);
        c.wgmma = n.inst == TensorInst::wgmma;
        c.flops = per_inst * static_cast<double>(n.count);
        c.occupancy_cycles = c.flops / (rate_sp * sps);
        // narrow wgmma shapes run below the peak rate (calib_mma nsweep: m64nNk16 bf16 takes
        // 16 + N/4 cycles for N < 64, N/2 above)
        const double inst_cycles = per_inst / (rate_sp * sps);
        if (n.inst == TensorInst::wgmma && spec.tensor.wgmma_cycles(inst_cycles) > inst_cycles) {
          c.occupancy_cycles = spec.tensor.wgmma_cycles(inst_cycles) * static_cast<double>(n.count);
        }
      }
      c.latency_cycles = n.cycles.value;
      break;
    }
    case NodeKind::simt: {
      const int threads = n.threads > 0 ? n.threads : role.warps * 32;
      const int warps = (threads + 31) / 32;
      auto [mask, most] = role_placement(role, std::min(warps, std::max(role.warps, 1)), sps);
      // Warps beyond the role's count (threads > role size) are spread the same way.
      const int warps_per_sp = std::max(most, (warps + sps - 1) / sps);
      c.sub_partitions = mask;
      if (n.pipe == graph::SimtPipe::fetch) {
        // The fetch of code outside the fast instruction cache: each warp instruction costs its
        // sub-partition instruction_fetch_cycles where a cached one costs the one issue cycle its
        // own node already charges, so the fetch node holds the issue (SIMT) timeline for the
        // difference (docs/model.md).
        c.pipe = Pipe::fetch;
        c.occupancy_cycles = warps_per_sp * n.ops * std::max(0.0, spec.sm.instruction_fetch_cycles.value - 1.0);
        c.latency_cycles = n.cycles.value;
        break;
      }
      // uniform: one warp instruction per sub-partition and cycle (its issue slot)
      const double lanes = n.pipe == graph::SimtPipe::sfu     ? spec.simt.sfu_lanes
                           : n.pipe == graph::SimtPipe::int32   ? spec.simt.int_lanes
                           : n.pipe == graph::SimtPipe::uniform ? 32.0 * sps
                                                                : spec.simt.fp32_lanes;
      c.uniform = n.pipe == graph::SimtPipe::uniform;
      c.pipe = n.pipe == graph::SimtPipe::sfu ? Pipe::sfu : Pipe::simt;
      c.occupancy_cycles = warps_per_sp * 32.0 * n.ops / (lanes / sps);
      c.latency_cycles = spec.simt.latency.value + n.cycles.value;
      break;
    }
    case NodeKind::smem:
      c.pipe = Pipe::smem;
      c.bytes = n.bytes.value;
      c.occupancy_cycles = static_cast<double>(n.bytes.value) / spec.sm.shared_memory_bandwidth.value;
      c.latency_cycles = n.cycles.value;
      break;
    default: break;
  }
}

// A 2-byte register-staged access by its rows' alignment (calib_ldg: odd pitches are the cheapest).
double ldg_2b_cycles(const graph::Node& n, const hw::GpuSpec& spec) {
  const Cycles c = n.pitch_alignment >= 128  ? spec.sm.ldg_2b_aligned_pitch_cycles
                   : n.pitch_alignment >= 16 ? spec.sm.ldg_2b_pitch16_cycles
                                             : spec.sm.ldg_2b_cycles;
  return c.value;
}

// Shared-memory (L1) pipe time of a narrow copy: cp.async of 4 or 8 bytes per thread, or a
// register-staged 2-byte access; by bytes otherwise.
double narrow_access_l1_cycles(const graph::Node& n, const hw::GpuSpec& spec) {
  const double bytes = static_cast<double>(n.bytes.value);
  const double per_inst = n.access == 2   ? ldg_2b_cycles(n, spec)
                          : n.access == 4 ? spec.sm.cp_async_4b_cycles.value
                          : n.access == 8 ? spec.sm.cp_async_8b_cycles.value
                                          : 0;
  if (per_inst <= 0) return bytes / spec.sm.shared_memory_bandwidth.value;
  return std::ceil(bytes / (32.0 * n.access)) * per_inst;  // warp instructions x cycles each
}

// A remote transfer's per-flow cap. SM threads keep sm_bytes_in_flight_per_thread each in flight
// over the round trip (Little's law) up to the SM's ceiling; a TMA bulk copy is issued by one
// thread and runs at the ceiling; a copy engine at its own rate. SM-driven bytes are scaled by
// 1 / sm_efficiency so the link delivers what SM copies measured.
void compile_remote(CompiledNode& c, const graph::Node& n, const graph::Role& role, const hw::SystemSpec& sys) {
  c.pipe = Pipe::remote;
  c.bytes = n.bytes.value;
  c.engine = n.engine;
  c.peer = n.peer;
  c.latency_cycles = n.cycles.value;
  if (n.engine == graph::MemEngine::copy_engine) {
    c.fetch_bytes = n.bytes.value;
    c.remote_cap_bps = sys.copy_engines.bandwidth.value;
    return;
  }
  const hw::SmRemoteSpec& sm = n.kind == NodeKind::remote_put ? sys.nvlink.sm_store : sys.nvlink.sm_load;
  double rate = sm.max_rate.value;
  if (n.engine != graph::MemEngine::tma) {
    const int threads = n.threads > 0 ? n.threads : role.warps * 32;
    const double in_flight = static_cast<double>(threads) * static_cast<double>(sys.nvlink.sm_bytes_in_flight_per_thread.value);
    rate = std::min(rate, in_flight / to_seconds(sm.round_trip));
  }
  const double eff = sys.nvlink.sm_efficiency;
  // Rounded up, but not for the last bit of a quotient that is exact on paper (1e6 / 0.8).
  c.fetch_bytes = static_cast<std::int64_t>(std::ceil(static_cast<double>(n.bytes.value) / eff - 1e-6));
  c.remote_cap_bps = rate / eff;
}

CompiledTemplate compile_template(const graph::CtaTemplate& t, const hw::GpuSpec& spec, const hw::SystemSpec* system,
                                  const std::vector<int>& tensor_ids, const std::string& where) {
  CompiledTemplate ct;
  ct.name = t.name;
  const auto n = t.nodes.size();
  ct.nodes.resize(n);
  for (const auto& r : t.roles) ct.role_names.push_back(r.name);
  for (std::size_t i = 0; i < n; ++i) {
    const graph::Node& src = t.nodes[i];
    CompiledNode& c = ct.nodes[i];
    const NodePath node_where{where, i, src.id};
    ct.node_ids.push_back(src.id);
    c.kind = src.kind;
    c.role = src.role;
    if ((src.kind == NodeKind::load || src.kind == NodeKind::store) && src.engine == graph::MemEngine::tma) {
      ct.uses_tma = true;
    }
    switch (src.kind) {
      case NodeKind::mma:
      case NodeKind::simt:
      case NodeKind::smem: compile_compute(c, src, t.roles.at(static_cast<std::size_t>(src.role)), spec, node_where); break;
      case NodeKind::load:
      case NodeKind::store:
        c.pipe = Pipe::memory;
        c.bytes = src.bytes.value;
        c.fetch_bytes = (src.bytes.value + src.multicast - 1) / std::max(1, src.multicast);
        c.multicast = std::max(1, src.multicast);
        c.engine = src.engine;
        c.tile = src.tile;
        c.tensor_key = src.tile.tensor >= 0 ? tensor_ids.at(static_cast<std::size_t>(src.tile.tensor)) : -1;
        c.latency_cycles = src.cycles.value;
        // cp.async writes what it loads into shared memory through the SM's shared-memory pipe
        // (the LSU data path ldmatrix reads through; TMA writes by its own path and is not
        // charged): the pipe is busy bytes / bandwidth while the data arrives, or, for narrow
        // copies (4 or 8 bytes per thread), the measured cycles per warp instruction.
        if (src.kind == NodeKind::load && src.engine == graph::MemEngine::cp_async) {
          c.occupancy_cycles = narrow_access_l1_cycles(src, spec);
          const int width = src.access > 0 && src.access < 16 ? src.access : 16;
          const double instructions = std::ceil(static_cast<double>(src.bytes.value) / (32.0 * width));
          const double narrow = spec.sm.cp_async_narrow_fill_stall_cycles.value;
          c.fill_stall_cycles =
              instructions * (width < 16 && narrow > 0 ? narrow : spec.sm.cp_async_fill_stall_cycles.value);
          // Narrow copies' shared-memory cost (bank-conflicted wavefronts, counted per LDGSTS
          // instruction) is the LSU's work on the instruction: taken at issue, in order with the
          // ldmatrix that follows, as for the 2-byte loads below (Nsight Compute: mio_throttle is
          // the align2 kernel's main stall). 16-byte copies write while their data arrives.
          c.l1_at_issue = width < 16;
        }
        // A register-staged 2-byte ld.global (access 2) costs the L1 pipe per warp instruction,
        // taken when issued: the LSU handles instructions in order, so shared-memory work issued
        // after it (ldmatrix) waits. Its shared-memory stores are the graph's own smem node.
        if (src.engine == graph::MemEngine::plain && src.access == 2) {
          c.occupancy_cycles = narrow_access_l1_cycles(src, spec);
          c.l1_at_issue = true;
        }
        if (src.kind == NodeKind::load && src.engine == graph::MemEngine::tma) {
          c.pitch_class = src.pitch_alignment == 16 ? 1 : src.pitch_alignment == 32 ? 2 : 0;
        }
        break;
      case NodeKind::remote_put:
      case NodeKind::remote_get:
        if (system == nullptr) {
          throw InputError(fmt::format("{}: {} needs a multi-GPU system (--system, configs/systems/)", node_where.str(),
                                       graph::to_string(src.kind)));
        }
        compile_remote(c, src, t.roles.at(static_cast<std::size_t>(src.role)), *system);
        break;
      case NodeKind::signal:
      case NodeKind::wait:
        c.pipe = Pipe::sync;
        c.flag = src.flag.flag;
        c.flag_index = src.flag.index;
        c.value = src.value;
        c.latency_cycles = src.cycles.value;
        break;
      case NodeKind::delay: c.latency_cycles = src.cycles.value; break;
    }
  }
  // CSR successor lists; an edge out of an MMA into a non-MMA node also waits for the tensor
  // pipe's result latency (MMA -> MMA chains on one accumulator are pipelined in hardware):
  // tensor.latency for warpgroup/CTA-wide MMAs (the wait behind a wgmma commit group), and
  // tensor.mma_sync_latency, where the spec has it, for mma.sync.
  const double sync_latency =
      spec.tensor.mma_sync_latency.value > 0 ? spec.tensor.mma_sync_latency.value : spec.tensor.latency.value;
  std::vector<std::vector<std::int32_t>> out(n);
  for (const auto& e : t.edges) {
    out[static_cast<std::size_t>(e.from)].push_back(e.to);
    ++ct.nodes[static_cast<std::size_t>(e.to)].indegree;
  }
  for (std::size_t i = 0; i < n; ++i) {
    ct.nodes[i].succ_begin = static_cast<std::uint32_t>(ct.succ.size());
    for (std::int32_t s : out[i]) {
      ct.succ.push_back(s);
      const bool mma_result = ct.nodes[i].kind == NodeKind::mma && ct.nodes[static_cast<std::size_t>(s)].kind != NodeKind::mma;
      const double latency = t.nodes[i].inst == TensorInst::mma_sync ? sync_latency : spec.tensor.latency.value;
      ct.succ_delay_cycles.push_back(mma_result ? latency : 0.0);
    }
    ct.nodes[i].succ_end = static_cast<std::uint32_t>(ct.succ.size());
    if (ct.nodes[i].indegree == 0) ct.roots.push_back(static_cast<std::int32_t>(i));
  }
  return ct;
}

void compile_resources(CompiledKernel& ck, const graph::Kernel& k, const hw::GpuSpec& spec, const std::string& where) {
  const auto& sm = spec.sm;
  ck.threads = k.cta.threads;
  ck.warps = (k.cta.threads + 31) / 32;
  const int unit = std::max(1, sm.register_alloc_unit);
  const int per_warp = (k.cta.registers_per_thread * 32 + unit - 1) / unit * unit;
  ck.registers = per_warp * ck.warps;
  ck.shared_memory = k.cta.shared_memory.value + sm.reserved_shared_memory_per_cta.value;
  ck.cluster_size = k.cta.cluster[0] * k.cta.cluster[1] * k.cta.cluster[2];
  auto fail = [&](const std::string& what) {
    throw InputError(fmt::format("{}: one CTA does not fit on a {} SM: {}", where, spec.name, what));
  };
  if (ck.threads > sm.max_threads) fail(fmt::format("{} threads > {}", ck.threads, sm.max_threads));
  if (ck.warps > sm.max_warps) fail(fmt::format("{} warps > {}", ck.warps, sm.max_warps));
  if (ck.registers > sm.registers) fail(fmt::format("{} registers > {}", ck.registers, sm.registers));
  if (k.cta.shared_memory.value > sm.shared_memory_per_cta.value)
    fail(fmt::format("{} B shared memory > {} B per CTA", k.cta.shared_memory.value, sm.shared_memory_per_cta.value));
  if (ck.shared_memory > sm.shared_memory.value)
    fail(fmt::format("{} B shared memory > {} B per SM", ck.shared_memory, sm.shared_memory.value));
  if (ck.cluster_size > spec.gpc.max_cluster_size)
    throw InputError(fmt::format("{}: cluster of {} CTAs exceeds the {} limit of {}", where, ck.cluster_size,
                                 spec.name, spec.gpc.max_cluster_size));
}

}  // namespace

CompiledGraph compile_graph(const graph::TileGraph& g, const hw::GpuSpec& spec, const hw::SystemSpec* system) {
  CompiledGraph cg;
  std::map<std::string, int> tensor_ids;
  for (const auto& k : g.kernels) {
    for (const auto& t : k.tensors) tensor_ids.emplace(t.name, static_cast<int>(tensor_ids.size()));
  }
  cg.tensor_names = static_cast<int>(tensor_ids.size());
  for (std::size_t ki = 0; ki < g.kernels.size(); ++ki) {
    const graph::Kernel& k = g.kernels[ki];
    const std::string where = fmt::format("/kernels/{} ({})", ki, k.name);
    CompiledKernel ck;
    ck.source = &k;
    ck.index = static_cast<int>(ki);
    compile_resources(ck, k, spec, where);
    std::vector<int> kernel_tensor_ids;  // the kernel's tensor index -> graph-wide id (by name)
    for (const auto& t : k.tensors) kernel_tensor_ids.push_back(tensor_ids.at(t.name));
    for (std::size_t ti = 0; ti < k.templates.size(); ++ti) {
      ck.templates.push_back(
          compile_template(k.templates[ti], spec, system, kernel_tensor_ids, fmt::format("{}/templates/{}", where, ti)));
    }
    std::int64_t end = 0;
    double cycles_8bit = 0, cycles_all = 0;
    for (const auto& grp : k.grid) {
      end += grp.count;
      ck.group_end.push_back(end);
      const auto& tmpl = k.templates[static_cast<std::size_t>(grp.template_index)];
      for (const auto& node : tmpl.nodes) {
        if (node.kind != NodeKind::mma) continue;
        const double w = static_cast<double>(node.count) * node.shape[0] * node.shape[1] * node.shape[2] *
                         static_cast<double>(grp.count) / dtype_bits(node.dtype);
        cycles_all += w;
        if (dtype_bits(node.dtype) <= 8) cycles_8bit += w;
      }
    }
    ck.ctas = end;
    ck.eight_bit = cycles_all > 0 && cycles_8bit * 2 > cycles_all;
    cg.kernels.push_back(std::move(ck));
  }
  return cg;
}

}  // namespace tgsim::engine
