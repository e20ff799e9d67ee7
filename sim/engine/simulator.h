// The discrete-event replay of a tile graph on a GPU model. One Simulator object owns all state
// (no globals): the event queue, SM resources, the flow network for memory traffic, the L2 model,
// flags. run() replays every kernel, then checks that every node retired (deadlock check).
//
// Replay rule (the one place ties are broken): a node is dispatched when its last predecessor's
// result is usable; it then waits for its pipe (FIFO per sub-partition) or starts a memory flow;
// equal-time events are ordered by (type, insertion sequence).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/engine/compiled_graph.h"
#include "sim/engine/event_queue.h"
#include "sim/engine/flow_network.h"
#include "sim/engine/l2/l2_model.h"
#include "sim/engine/result.h"
#include "sim/engine/trace_sink.h"
#include "sim/graph/tile_graph.h"
#include "sim/hw/gpu_spec.h"
#include "sim/hw/system_spec.h"

namespace tgsim::engine {

// The GPC of each of a GPU's SMs: GPC by GPC in SM order (simulator.cpp).
std::vector<int> gpc_of_each_sm(const hw::GpcSpec& gpc, int sms);


struct SimOptions {
  std::string l2_model = "tile_lru";
  TraceSink* trace = nullptr;  // not owned; may be null
  bool critical_path = true;
  // L2 starts full of dirty lines, as after the usual L2 flush (writing a buffer larger than L2)
  // or a previous kernel's output: evicting them costs HBM write bandwidth. false: empty L2.
  // The tgsim program defaults to dirty (--l2-start); the library to a clean, empty L2.
  bool l2_starts_dirty = false;
  // SM clock per kernel (Hz); empty or 0: the boost clock. engine::simulate fills it from the
  // clock model.
  std::vector<double> kernel_clock_hz;
  // Idle time between repetitions of the run, as a measurement that repeats it sees (an L2 flush
  // before each repetition): engine::simulate's clock model averages the run's tensor activity
  // over run + gap (the slow power limit). Zero: the run alone.
  Duration repeat_gap{0};
  // The average tensor duty of the longer run this graph is one piece of (profile replay
  // simulates kernels one by one); < 0: the graph is the whole run (computed by engine::simulate).
  double window_duty = -1;
  // The measurement this run is predicted for: > 0: it repeats the run this many times (each after
  // repeat_gap) starting from a card at rest and takes the median, so the slow power limit may not
  // have engaged by the median repetition (clock.sustained_onset). 0: steady state, the card has
  // run this load for long (the slow limit applies from the start).
  int from_rest_reps = 0;
  // The multi-GPU system (NVLink, copy engines, cross-GPU signals); not owned. Required for graphs
  // spanning several GPUs and for remote_put/remote_get; null: one GPU, exactly as before.
  const hw::SystemSpec* system = nullptr;
};

class Simulator {
 public:
  // The graph must have passed graph::validate_tile_graph. Throws InputError for graphs the
  // GPU cannot run, SimulationError when the run deadlocks.
  Simulator(const graph::TileGraph& graph, const hw::GpuSpec& spec, SimOptions options = {});
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  Result run();

 private:
  struct Sm;
  struct CtaRun;
  struct KernelRun;
  struct FlagSlot;
  struct GpcFetch;
  struct TemplateRun;

  void build_machine();
  void launch_ready_kernels(TimePoint now);
  void start_kernel(int k, TimePoint now);
  void prepare_templates(KernelRun& kr);
  void finish_kernel_if_done(KernelRun& kr, TimePoint now);
  void schedule_ctas(TimePoint now);
  bool place_cluster(KernelRun& kr, TimePoint now);
  bool choose_sms(const CompiledKernel& ck, int gpu, std::vector<int>& chosen) const;
  bool fits(const Sm& sm, const CompiledKernel& ck) const;
  void start_cta(std::uint32_t slot, TimePoint now);
  void finish_cta(std::uint32_t slot, TimePoint now);
  void dispatch(CtaRun& c, std::int32_t node, TimePoint now);
  void dispatch_compute(CtaRun& c, std::int32_t node, TimePoint now);
  Duration slowed_by_wgmma(TimePoint start, Duration work, TimePoint from, TimePoint until) const;
  Duration issue_share(Duration held) const;
  void stall_for_fill(Sm& sm, TimePoint now, Duration stall) const;
  void dispatch_memory(CtaRun& c, std::int32_t node, TimePoint now);
  void start_transfer(CtaRun& c, std::int32_t node, TimePoint now);
  void dispatch_sync(CtaRun& c, std::int32_t node, TimePoint now);
  void build_nvlink();
  void dispatch_remote(CtaRun& c, std::int32_t node, TimePoint now);
  void start_remote(CtaRun& c, std::int32_t node, TimePoint now);
  void add_nvlink_stats(Result& r, double span) const;
  void node_done(std::uint32_t slot, std::int32_t node, TimePoint now);
  void trace_node(const CtaRun& c, std::int32_t node, TimePoint now);
  void flows_done(TimePoint now);
  void next_transfer(std::uint32_t sm, std::size_t dir, TimePoint now);
  void keep_for_critical_path(CtaRun& c);
  void record_critical_path(const CtaRun& c);
  void check_finished() const;
  Result collect(TimePoint end);
  std::int64_t coord(const CtaRun& c, const graph::Coord& x) const;
  Duration cycles(const CtaRun& c, double n) const;
  std::uint32_t slot_of(const CtaRun& c) const;

  const graph::TileGraph& graph_;
  const hw::GpuSpec& spec_;
  double simt_rate_during_wgmma_ = 1.0;  // spec_.simt.rate_during_wgmma
  double mma_sync_issue_fraction_ = 1.0;  // spec_.tensor.mma_sync_issue_fraction
  double mma_sync_power_weight_ = 1.0;    // spec_.clock.power_weight_mma_sync (zero: 1)
  double port_ps_per_byte_ = 0;          // an SM's L2 port: picoseconds per byte received
  SimOptions options_;
  bool detail_ = false;  // keep per-node times (critical path or trace on)
  CompiledGraph compiled_;
  EventQueue queue_;
  FlowNetwork flows_;
  std::vector<std::unique_ptr<L2Model>> l2_;  // per GPU
  std::vector<Sm> sms_;                       // all GPUs, gpu-major
  std::vector<KernelRun> kernels_;
  std::vector<CtaRun> ctas_;                  // slots, reused
  std::vector<std::uint32_t> free_slots_;
  std::unordered_map<TileKey, FlagSlot, TileKeyHash> flags_;  // flag slots by (gpu, flag, index)
  std::vector<std::uint64_t> completed_flows_;  // scratch
  std::vector<int> chosen_sms_;                 // scratch
  std::vector<FlowNetwork::LinkId> l2_link_, hbm_link_;  // per GPU
  std::vector<FlowNetwork::LinkId> miss_link_;            // per GPU, where l2.miss_bandwidth is set
  std::vector<FlowNetwork::LinkId> pitch16_link_;         // per GPU, where l2.pitch16_bandwidth is set
  std::vector<FlowNetwork::LinkId> combine_link_;         // per GPU, with l2.gpc_combine_window
  std::vector<FlowNetwork::RouteId> writeback_route_;     // per GPU
  // Last L2 fetch of each tile per GPC, keyed by the tile with gpu = gpu x GPCs + gpc (combining on).
  std::unordered_map<TileKey, GpcFetch, TileKeyHash> gpc_fetches_;
  std::vector<double> gpc_credit_;  // per (GPU, GPC): combining credit (l2.gpc_combine_fraction)
  // Whether this read of `key` by an SM of GPC `gpc` is served by a recent fetch of its GPC.
  bool combined_with_gpc_fetch(const TileKey& key, int gpc, TimePoint now);
  std::vector<FlowNetwork::LinkId> egress_link_, ingress_link_, copy_engine_link_;  // per GPU (with a system)
  std::int64_t node_executions_ = 0;
  std::int64_t l2_hits_ = 0;
  std::int64_t l2_misses_ = 0;
  TimePoint last_cta_end_{0};
  // The CTA that finished last (its node times), analysed once at the end of the run.
  std::unique_ptr<CtaRun> last_cta_;
  std::vector<CriticalSegment> critical_;
};

}  // namespace tgsim::engine
