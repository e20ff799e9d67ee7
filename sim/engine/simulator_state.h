// Internal state of the Simulator (shared by its .cpp files; not part of the public API).
#pragma once

#include <array>
#include <deque>
#include <vector>

#include "sim/engine/simulator.h"

namespace tgsim::engine {

constexpr int kMaxSubPartitions = 8;
// An SM's transfer FIFOs: local reads, local writes, remote (NVLink) accesses. kNoPort: a flow
// that no SM port serialises (copy-engine transfers).
constexpr std::size_t kSmPorts = 3;
constexpr std::uint8_t kReadPort = 0;
constexpr std::uint8_t kRemotePort = 2;
constexpr std::uint8_t kNoPort = 3;

struct Simulator::Sm {
  int gpu = 0;
  int index = 0;  // within its GPU
  int gpc = 0;
  // occupancy in use
  int threads = 0;
  int warps = 0;
  int registers = 0;
  std::int64_t shared_memory = 0;
  int ctas = 0;
  std::uint64_t lanes = 0;  // residency slots in use (bit per lane), for traces
  // pipes: when each becomes free
  std::array<TimePoint, kMaxSubPartitions> tensor_free{};
  std::array<TimePoint, kMaxSubPartitions> simt_free{};
  std::array<TimePoint, kMaxSubPartitions> sfu_free{};
  // The latest run of back-to-back wgmma reservations on each sub-partition's tensor core.
  std::array<TimePoint, kMaxSubPartitions> wgmma_from{};
  std::array<TimePoint, kMaxSubPartitions> wgmma_until{};
  TimePoint smem_free{0};
  // busy time, in SM-equivalents (a sub-partition counts 1/sub_partitions)
  double tensor_busy_ps = 0;
  double simt_busy_ps = 0;
  double smem_busy_ps = 0;
  double flops = 0;
  // Memory requests of one SM stream through its port in issue order, one flow at a time per
  // direction (0: reads, 1: writes, 2: remote NVLink accesses); latency overlaps with the next
  // transfer.
  struct MemRequest {
    std::uint32_t slot;
    std::int32_t node;
  };
  std::array<std::deque<MemRequest>, kSmPorts> mem_queue;
  std::array<bool, kSmPorts> mem_busy{false, false, false};
  double port_bytes = 0;  // bytes through this SM's L2 port (utilisation)
  // A k-way multicast load fetches bytes / k itself but receives all k slices through the port
  // (calib_tma_multicast): the read port takes its next request no earlier than `bytes` at the
  // port's rate after the load started.
  TimePoint read_port_held_until{0};
  FlowNetwork::RouteId route_hit = -1;
  // L2 hits of TMA loads whose rows are only 16 / 32 bytes aligned (CompiledNode::pitch_class):
  // the slower per-SM ports and, for 16, the L2's own limit on them; -1: as route_hit.
  FlowNetwork::RouteId route_hit_pitch16 = -1;
  FlowNetwork::RouteId route_hit_pitch32 = -1;
  FlowNetwork::RouteId route_miss = -1;
  // A zero-filled TMA box (TileRef::zero_fill) with l2.miss_bandwidth set: the L2 and its miss path,
  // not HBM. Without it zero-filled boxes take route_miss.
  FlowNetwork::RouteId route_zero_fill = -1;
  // A read combined with another SM's fetch of the same tile in its GPC (l2.gpc_combine_*): only
  // the SM's port carries it (a link that never binds, capped at the port).
  FlowNetwork::RouteId route_combined = -1;
};

// The last fetch from L2 of a tile by an SM of one GPC: a read of the tile by an SM of that GPC
// within l2.gpc_combine_window after it may combine with it (Simulator::gpc_credit_).
struct Simulator::GpcFetch {
  TimePoint at{0};
};

// What the replay reads of a node, in one cache line: its times at the kernel's SM clock, rounded
// to picoseconds exactly as Simulator::cycles() rounds them (computed once per kernel launch, not
// once per execution), and the hot fields of its CompiledNode (which keeps the cold ones: tile,
// flag, names).
struct RunNode {
  Duration occupancy{0};   // compute: time the pipe is held
  Duration latency{0};     // compute, sync, delay: result latency after the pipe (or at once)
  Duration after_hit{0};   // memory: transfer end to usable result for an L2 hit (stores: always)
  Duration after_miss{0};  // memory: the same for an HBM access
  double busy_share = 0;   // tensor, SIMT: SM-equivalent busy time of one execution
  double flops = 0;        // tensor
  std::uint32_t succ_begin = 0;  // successor edges [succ_begin, succ_end) in TemplateRun::edges
  std::uint32_t succ_end = 0;
  Pipe pipe = Pipe::none;
  std::uint8_t sub_partitions = 0;  // mask, limited to the SM's sub-partitions
  bool is_store = false;
  std::uint8_t port = 0;  // memory, remote: the SM FIFO its transfer waits in (kNoPort: none)
  bool issue_shared = false;  // mma.sync: shares the sub-partition's timeline with SIMT work
  bool wgmma = false;         // slows the SM's SIMT work while it runs (simt.rate_during_wgmma)
  bool uniform = false;       // uniform-datapath SIMT work: not slowed by a running wgmma
  // memory: the L1 pipe (`occupancy`, on the SM's shared-memory pipe) is taken when the load is
  // issued (register-staged ld.global: the in-order LSU processes it before later ldmatrix),
  // not while its data arrives (cp.async)
  bool l1_at_issue = false;
};

static_assert(sizeof(RunNode) <= 64, "RunNode should fit one cache line");

struct RunEdge {
  Duration delay{0};  // result latency this edge adds
  std::int32_t to = 0;
};

// Replay state of one node of a running CTA. `ready_at` starts at 0 (roots: the CTA start): every
// predecessor's result time is at or after the CTA start, so the first one always wins the
// comparison in node_done. A node is dispatched at its final ready_at, so that is also when it
// became ready (critical path). `start` and `done` are kept only when detail_ is on.
struct NodeState {
  TimePoint ready_at{0};     // latest result time among the predecessors seen so far
  std::int32_t pending = 0;  // predecessors not yet retired; kRetired once the node itself has
  std::int32_t gate = -1;    // predecessor whose result arrived last (-1: CTA start)
  TimePoint start{0};        // resource granted
  TimePoint done{0};         // result usable
};
constexpr std::int32_t kRetired = -1;

// One template of a started kernel: its nodes and edges at the kernel's clock and the prototype
// of a CTA's node states (copied, not rebuilt, when a CTA starts).
struct Simulator::TemplateRun {
  const CompiledTemplate* tmpl = nullptr;
  std::vector<RunNode> nodes;
  std::vector<RunEdge> edges;
  std::vector<NodeState> initial;
};

struct Simulator::KernelRun {
  int index = 0;
  int waiting_on = 0;        // predecessors (stream order + after) not yet finished
  std::vector<int> successors;
  bool launched = false;      // launch event queued
  bool queued = false;        // has a predecessor on its own stream
  bool starts_graph = false;  // in a CUDA graph with no predecessor: pays the graph launch
  bool started = false;       // launch event handled: CTAs may be placed
  bool finished = false;
  TimePoint ready_at{0};     // when all predecessors finished
  TimePoint start{0};
  TimePoint end{0};
  std::int64_t next_cta = 0;  // next CTA (blockIdx) to place
  std::int64_t done_ctas = 0;
  std::size_t next_group = 0;
  double period_ps = 1000;    // SM clock period for this kernel
  double hz = 1e9;
  int max_ctas_per_sm = 0;
  double tensor_busy_ps = 0;
  double simt_busy_ps = 0;   // SIMT and SFU nodes (not fetch, not shared memory)
  double power_tensor_ps = 0;  // tensor busy, mma.sync weighted by clock.power_weight_mma_sync
  double smem_busy_ps = 0;     // shared-memory pipe (ldmatrix, cp.async writes, LSU issue)
  double l2_bytes = 0;         // bytes its requests moved between SMs and L2
  double hbm_bytes = 0;
  std::vector<TemplateRun> templates;  // filled when the kernel starts (its clock is known then)
};

struct Simulator::CtaRun {
  bool active = false;
  int kernel = 0;
  KernelRun* kr = nullptr;          // kernels_[kernel]
  const TemplateRun* run = nullptr;  // kr->templates[template index]
  std::int64_t cta = 0;
  int sm = 0;  // global SM index
  int lane = 0;
  const std::int64_t* params = nullptr;
  int remaining = 0;
  TimePoint start{0};
  std::vector<NodeState> nodes;
  std::vector<std::uint8_t> hit;  // memory nodes: 1 = L2 hit (kept only when detail_ is on)
  std::int32_t last_done = -1;
};

inline std::uint32_t Simulator::slot_of(const CtaRun& c) const { return static_cast<std::uint32_t>(&c - ctas_.data()); }

inline std::int64_t Simulator::coord(const CtaRun& c, const graph::Coord& x) const {
  return (x.param >= 0 ? c.params[x.param] : 0) + x.offset;
}

struct Simulator::FlagSlot {
  std::int64_t value = 0;
  struct Waiter {
    std::uint32_t slot;
    std::int32_t node;
    std::int64_t threshold;
  };
  std::vector<Waiter> waiters;
};

}  // namespace tgsim::engine
