// The tile graph turned into compact arrays for replay: successor lists in CSR form, in-degrees,
// and each node's cost reduced to what the engine needs (pipe occupancy in cycles, bytes, L2
// key parts). Built once per run from a validated TileGraph and the GPU spec.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/graph/tile_graph.h"
#include "sim/hw/gpu_spec.h"
#include "sim/hw/system_spec.h"

namespace tgsim::engine {

// Which SM resource a node occupies.
// simt: the FP32/INT pipes; sfu: the special-function unit (MUFU: exp2, rcp), which issues
// beside them (a softmax's exponentials overlap its FMAs).
// fetch: instruction fetch of code outside the fast instruction cache; it takes the issue slots
// of the SIMT timeline (reported apart, as "instruction fetch").
// remote: an NVLink transfer to or from a peer GPU (remote_put/remote_get; sim/engine/remote.cpp).
enum class Pipe : std::uint8_t { none, tensor, simt, sfu, fetch, smem, memory, sync, remote };

struct CompiledNode {
  graph::NodeKind kind = graph::NodeKind::delay;
  Pipe pipe = Pipe::none;
  std::uint8_t sub_partitions = 0;  // bit mask of SM sub-partitions used (tensor, simt)
  std::int32_t role = 0;
  std::int32_t indegree = 0;
  std::uint32_t succ_begin = 0;
  std::uint32_t succ_end = 0;
  double occupancy_cycles = 0;  // time the pipe is held
  double latency_cycles = 0;    // extra time after the pipe is released until the result is usable
  double flops = 0;             // mma: for utilisation
  // mma.sync: issued by ordinary warps, so the SIMT (FP32) instructions those warps issue on the
  // same sub-partition wait for it and it for them (calibrated by calib_mix, docs/model.md);
  // wgmma is asynchronous and overlaps them.
  bool issue_shared = false;
  // wgmma: its accumulators live in the issuing warps' register files, so while it runs the SIMT
  // work of the SM's warps issues at simt.rate_during_wgmma (calib_attn, docs/model.md).
  bool wgmma = false;
  // uniform: warp-uniform (uniform-datapath) instructions, which take an issue slot each but
  // not the vector register file, so a running wgmma does not slow them.
  bool uniform = false;
  bool l1_at_issue = false;  // memory: occupancy taken on the smem pipe at issue, not at arrival (access-2 plain loads)
  // cp.async loads: the cycles their arrival stalls the SM's compute pipes (sm.cp_async_fill_stall_cycles
  // per warp instruction)
  double fill_stall_cycles = 0;
  // TMA loads whose rows are only 16 (1) or 32 (2) bytes aligned: their L2 hits take the slower
  // routes (sm.l2_bandwidth_per_sm_pitch16/32, l2.pitch16_bandwidth); 0: aligned or not known.
  std::uint8_t pitch_class = 0;
  // memory
  std::int64_t bytes = 0;
  std::int64_t fetch_bytes = 0;  // bytes crossing L2/HBM for this CTA (bytes / multicast)
  std::int32_t multicast = 1;    // TMA multicast factor (the SM receives all k slices)
  graph::MemEngine engine = graph::MemEngine::tma;
  std::int32_t tensor_key = -1;  // graph-wide tensor id (by name), -1 untracked
  graph::TileRef tile;
  std::int32_t peer = 0;
  // remote: each flow's rate cap (bytes/s; the SM's remote-access limit or the copy engine's).
  // fetch_bytes then holds the bytes the flow puts on NVLink (bytes / sm_efficiency for SM-driven
  // transfers, so an SM copy sees the link's effective rate).
  double remote_cap_bps = 0;
  // sync
  std::int32_t flag = -1;
  graph::Coord flag_index;
  std::int64_t value = 1;
};

struct CompiledTemplate {
  std::string name;
  std::vector<CompiledNode> nodes;
  std::vector<std::int32_t> succ;  // successor node indices
  std::vector<double> succ_delay_cycles;  // per successor edge: result latency that edge sees
  std::vector<std::int32_t> roots;        // nodes with no predecessors
  std::vector<std::string> node_ids;
  std::vector<std::string> role_names;
  bool uses_tma = false;  // a load or store node issued through TMA (the CTA pays tma.cta_setup)
};

struct CompiledKernel {
  const graph::Kernel* source = nullptr;
  int index = 0;
  std::vector<CompiledTemplate> templates;
  // resources one CTA holds
  int threads = 0;
  int warps = 0;
  int registers = 0;  // allocated registers per CTA (rounded per warp)
  std::int64_t shared_memory = 0;
  int cluster_size = 1;
  std::int64_t ctas = 0;
  std::vector<std::int64_t> group_end;  // prefix sums of CtaGroup::count
  bool eight_bit = false;  // most tensor cycles are 8-bit MMAs (clock model)
};

struct CompiledGraph {
  std::vector<CompiledKernel> kernels;
  int tensor_names = 0;  // number of distinct tensor names (L2 keys)
};

// Throws InputError when the graph asks for something the GPU cannot do (an MMA type it lacks,
// a CTA that does not fit on an SM, a cluster larger than allowed, a remote transfer without a
// multi-GPU `system`).
CompiledGraph compile_graph(const graph::TileGraph& g, const hw::GpuSpec& spec, const hw::SystemSpec* system = nullptr);

}  // namespace tgsim::engine
