#include "sim/engine/simulator.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "sim/engine/simulator_state.h"
#include "sim/units/error.h"

namespace tgsim::engine {

Simulator::Simulator(const graph::TileGraph& graph, const hw::GpuSpec& spec, SimOptions options)
    : graph_(graph),
      spec_(spec),
      simt_rate_during_wgmma_(spec.simt.rate_during_wgmma),
      mma_sync_issue_fraction_(spec.tensor.mma_sync_issue_fraction),
      mma_sync_power_weight_(spec.clock.power_weight_mma_sync > 0 ? spec.clock.power_weight_mma_sync : 1.0),
      options_(std::move(options)),
      compiled_(compile_graph(graph, spec, options_.system)) {
  if (spec_.sm.sub_partitions < 1 || spec_.sm.sub_partitions > kMaxSubPartitions)
    throw InputError(fmt::format("/sm/sub_partitions: must be 1..{}", kMaxSubPartitions));
  detail_ = options_.critical_path || options_.trace != nullptr;
  if (graph_.gpus > 1 && options_.system == nullptr) {
    throw InputError(fmt::format("the graph spans {} GPUs: simulating it needs a multi-GPU system (--system, configs/systems/)",
                                 graph_.gpus));
  }
  if (options_.system != nullptr && graph_.gpus > options_.system->gpu_count) {
    throw InputError(fmt::format("the graph spans {} GPUs but system \"{}\" has {}", graph_.gpus, options_.system->name,
                                 options_.system->gpu_count));
  }
  build_machine();
  if (options_.system != nullptr) build_nvlink();
}

Simulator::~Simulator() = default;

// The GPC of each of a GPU's SMs: GPC by GPC in SM order (`gpc.sms_per_gpc`), so the block
// scheduler, which takes the lowest-numbered free SM, fills one GPC before the next, as the
// hardware does with a plain grid (calib_placement on the lent H100, traces/h100/
// calibration_placement.csv: blocks go to the SMs of one GPC, a TPC pair at a time, then the next
// GPC). Without a per-GPC layout every SM is in GPC 0.
std::vector<int> gpc_of_each_sm(const hw::GpcSpec& gpc, int sms) {
  std::vector<int> of(static_cast<std::size_t>(sms), 0);
  int g = 0, in_gpc = 0;
  for (int s = 0; s < sms; ++s) {
    while (g < static_cast<int>(gpc.sms_per_gpc.size()) && in_gpc >= gpc.sms_per_gpc[static_cast<std::size_t>(g)]) {
      ++g;
      in_gpc = 0;
    }
    of[static_cast<std::size_t>(s)] = std::min(g, std::max(0, static_cast<int>(gpc.sms_per_gpc.size()) - 1));
    ++in_gpc;
  }
  return of;
}

void Simulator::build_machine() {
  const int gpus = std::max(1, graph_.gpus);
  const double boost = spec_.clock.boost.value;
  const auto gpcs = std::max<std::int32_t>(spec_.gpc.count, static_cast<std::int32_t>(spec_.gpc.sms_per_gpc.size()));
  gpc_credit_.assign(static_cast<std::size_t>(gpus) * static_cast<std::size_t>(std::max(1, gpcs)), 0.0);
  const std::vector<int> gpc_of = gpc_of_each_sm(spec_.gpc, spec_.sm.count);  // the same on every GPU
  const double miss_l2_weight = 1.0 + spec_.l2.fill_weight;  // a miss crosses L2 out to the SM, plus the fill
  for (int g = 0; g < gpus; ++g) {
    l2_.push_back(make_l2_model(options_.l2_model, spec_.l2.capacity));
    if (options_.l2_starts_dirty) l2_.back()->fill_dirty(spec_.l2.capacity, spec_.l2.flush_dirty_fraction);
    l2_link_.push_back(flows_.add_link(fmt::format("gpu{}.l2", g), spec_.l2.bandwidth));
    hbm_link_.push_back(flows_.add_link(fmt::format("gpu{}.hbm", g), spec_.hbm.bandwidth * spec_.hbm.efficiency));
    // The L2's miss path (l2.miss_bandwidth), shared by misses, stores and zero-filled TMA boxes.
    if (spec_.l2.miss_bandwidth.value > 0) {
      miss_link_.push_back(flows_.add_link(fmt::format("gpu{}.l2_miss", g), spec_.l2.miss_bandwidth));
    }
    // L2 evicting dirty lines to HBM: reading them out takes L2 bandwidth where l2.writeback_weight > 0.
    if (spec_.l2.writeback_weight > 0) {
      const FlowNetwork::LinkId writeback[] = {l2_link_.back(), hbm_link_.back()};
      const double weights[] = {spec_.l2.writeback_weight, 1.0};
      writeback_route_.push_back(flows_.add_route(writeback, weights));
    } else {
      const FlowNetwork::LinkId writeback[] = {hbm_link_.back()};
      writeback_route_.push_back(flows_.add_route(writeback));
    }
    if (spec_.l2.pitch16_bandwidth.value > 0) {
      pitch16_link_.push_back(flows_.add_link(fmt::format("gpu{}.l2_pitch16", g), spec_.l2.pitch16_bandwidth));
    }
    // Reads served by their GPC's recent fetch (l2.gpc_combine_*) cross only the SM's port.
    if (spec_.l2.gpc_combine_window.count() > 0) {
      combine_link_.push_back(flows_.add_link(fmt::format("gpu{}.gpc_combined", g), BytesPerSecond{1e18}));
    }
    for (int s = 0; s < spec_.sm.count; ++s) {
      Sm sm;
      sm.gpu = g;
      sm.index = s;
      sm.gpc = gpc_of[static_cast<std::size_t>(s)];
      // The SM's L2 port caps each of its flows; with one flow per direction in flight per SM
      // (the FIFO in dispatch.cpp) that is exactly a per-SM, per-direction port limit.
      const BytesPerSecond port{spec_.sm.l2_bandwidth_per_sm.value * boost};
      port_ps_per_byte_ = 1e12 / port.value;
      const FlowNetwork::LinkId hit[] = {l2_link_.back()};
      sm.route_hit = flows_.add_route(hit, port);
      // L2 hits of TMA rows only 16 / 32 bytes aligned: a slower port (never faster than the
      // aligned one) and, for 16, the L2's own limit on them.
      const auto slow_port = [&](hw::BytesPerCycle p) {
        return BytesPerSecond{std::min(p.value, spec_.sm.l2_bandwidth_per_sm.value) * boost};
      };
      if (spec_.sm.l2_bandwidth_per_sm_pitch16.value > 0) {
        const FlowNetwork::LinkId slow[] = {l2_link_.back(), pitch16_link_.empty() ? -1 : pitch16_link_.back()};
        sm.route_hit_pitch16 = flows_.add_route(std::span(slow, pitch16_link_.empty() ? 1 : 2),
                                                slow_port(spec_.sm.l2_bandwidth_per_sm_pitch16));
      }
      if (spec_.sm.l2_bandwidth_per_sm_pitch32.value > 0) {
        sm.route_hit_pitch32 = flows_.add_route(hit, slow_port(spec_.sm.l2_bandwidth_per_sm_pitch32));
      }
      if (miss_link_.empty()) {
        const FlowNetwork::LinkId miss[] = {l2_link_.back(), hbm_link_.back()};
        const double weights[] = {miss_l2_weight, 1.0};
        sm.route_miss = flows_.add_route(miss, weights, port);
        sm.route_zero_fill = sm.route_miss;
      } else {
        const FlowNetwork::LinkId miss[] = {l2_link_.back(), miss_link_.back(), hbm_link_.back()};
        const double weights[] = {miss_l2_weight, 1.0, 1.0};
        const FlowNetwork::LinkId zero_fill[] = {l2_link_.back(), miss_link_.back()};
        sm.route_miss = flows_.add_route(miss, weights, port);
        sm.route_zero_fill = flows_.add_route(zero_fill, port);
      }
      if (!combine_link_.empty()) {
        const FlowNetwork::LinkId combined[] = {combine_link_.back()};
        sm.route_combined = flows_.add_route(combined, port);
      }
      sms_.push_back(sm);
    }
  }
  // Kernel dependencies: stream order plus explicit `after`.
  kernels_.resize(compiled_.kernels.size());
  std::unordered_map<std::int64_t, int> last_in_stream;
  for (std::size_t k = 0; k < kernels_.size(); ++k) {
    const graph::Kernel& src = graph_.kernels[k];
    KernelRun& kr = kernels_[k];
    kr.index = static_cast<int>(k);
    std::vector<int> preds(src.after.begin(), src.after.end());
    const std::int64_t stream_key = (static_cast<std::int64_t>(src.gpu) << 32) + src.stream;
    if (auto it = last_in_stream.find(stream_key); it != last_in_stream.end()) {
      preds.push_back(it->second);
      kr.queued = true;
    }
    last_in_stream[stream_key] = static_cast<int>(k);
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    kr.waiting_on = static_cast<int>(preds.size());
    kr.starts_graph = src.in_cuda_graph && preds.empty();
    for (int p : preds) kernels_[static_cast<std::size_t>(p)].successors.push_back(static_cast<int>(k));
  }
}

Duration Simulator::cycles(const CtaRun& c, double n) const {
  return Duration{static_cast<std::int64_t>(std::llround(n * c.kr->period_ps))};
}

// Rounds every node time of the kernel's templates once, with the arithmetic of cycles() (same
// operands, same order), so the replay adds precomputed picoseconds and stays bit-identical.
void Simulator::prepare_templates(KernelRun& kr) {
  const CompiledKernel& ck = compiled_.kernels[static_cast<std::size_t>(kr.index)];
  const double period = kr.period_ps;
  const auto ps = [period](double n) { return Duration{static_cast<std::int64_t>(std::llround(n * period))}; };
  const int sps = spec_.sm.sub_partitions;
  kr.templates.clear();
  kr.templates.resize(ck.templates.size());
  for (std::size_t ti = 0; ti < ck.templates.size(); ++ti) {
    const CompiledTemplate& t = ck.templates[ti];
    TemplateRun& tr = kr.templates[ti];
    tr.tmpl = &t;
    tr.nodes.resize(t.nodes.size());
    tr.initial.resize(t.nodes.size());
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
      const CompiledNode& n = t.nodes[i];
      RunNode& r = tr.nodes[i];
      r.occupancy = ps(n.occupancy_cycles);
      r.latency = ps(n.latency_cycles);
      r.issue_shared = n.issue_shared;
      r.wgmma = n.wgmma;
      r.uniform = n.uniform;
      r.l1_at_issue = n.l1_at_issue;
      if (n.pipe == Pipe::tensor || n.pipe == Pipe::simt || n.pipe == Pipe::sfu) {
        r.busy_share =
            static_cast<double>(std::popcount(n.sub_partitions)) / sps * static_cast<double>(r.occupancy.count());
      }
      if (n.pipe == Pipe::memory) {
        // Stores are acknowledged by L2; loads see L2 or HBM latency; TMA adds its issue cost.
        const auto after = [&](double path_latency) {
          double lat = n.latency_cycles;
          lat += path_latency;
          if (n.engine == graph::MemEngine::tma) lat += spec_.tma.issue_latency.value;
          return ps(lat);
        };
        r.after_hit = after(spec_.l2.hit_latency.value);
        r.after_miss = n.kind == graph::NodeKind::store ? r.after_hit : after(spec_.hbm.latency.value);
      }
      r.flops = n.flops;
      r.succ_begin = n.succ_begin;
      r.succ_end = n.succ_end;
      r.pipe = n.pipe;
      r.sub_partitions = static_cast<std::uint8_t>(n.sub_partitions & ((1u << sps) - 1));
      r.is_store = n.kind == graph::NodeKind::store;
      r.port = r.is_store ? 1 : 0;
      if (n.pipe == Pipe::remote) {
        // A put retires when its last byte has left (stores are posted; visibility at the peer
        // takes nvlink.latency more, which a system-scope signal or fence after it pays); a get
        // when its last byte has arrived. A copy engine adds its set-up.
        const hw::SystemSpec& sys = *options_.system;
        const bool ce = n.engine == graph::MemEngine::copy_engine;
        const bool get = n.kind == graph::NodeKind::remote_get;
        r.after_hit = ps(n.latency_cycles) + (get ? sys.nvlink.latency : Duration{0}) +
                      (ce ? sys.copy_engines.latency : Duration{0});
        r.after_miss = r.after_hit;
        r.port = ce ? kNoPort : kRemotePort;
      }
      tr.initial[i].pending = n.indegree;
    }
    tr.edges.resize(t.succ.size());
    for (std::size_t e = 0; e < t.succ.size(); ++e) {
      tr.edges[e].to = t.succ[e];
      tr.edges[e].delay = t.succ_delay_cycles[e] > 0 ? ps(t.succ_delay_cycles[e]) : Duration{0};
    }
  }
}

void Simulator::launch_ready_kernels(TimePoint now) {
  for (auto& kr : kernels_) {
    if (kr.waiting_on == 0 && !kr.launched) {
      kr.launched = true;
      const graph::Kernel& src = graph_.kernels[static_cast<std::size_t>(kr.index)];
      // A kernel queued behind another on its stream starts a short GPU-side gap after it; one
      // launched onto an idle stream pays the whole launch latency (a CUDA graph's first kernel:
      // the graph launch's).
      // A system may measure a different launch overhead (peer access enabled).
      const Duration overhead = options_.system != nullptr && options_.system->kernel_overhead > Duration{0}
                                    ? options_.system->kernel_overhead
                                    : spec_.launch.kernel_overhead;
      const Duration gap = kr.starts_graph   ? spec_.launch.graph_launch_overhead
                           : src.in_cuda_graph ? spec_.launch.graph_kernel_overhead
                           : kr.queued && src.programmatic ? spec_.launch.pdl_kernel_gap
                           : kr.queued       ? spec_.launch.queued_kernel_gap
                                             : overhead;
      queue_.push(std::max(now, kr.ready_at) + gap, EventType::kernel_launch, static_cast<std::uint32_t>(kr.index));
    }
  }
}

void Simulator::start_kernel(int k, TimePoint now) {
  KernelRun& kr = kernels_[static_cast<std::size_t>(k)];
  const CompiledKernel& ck = compiled_.kernels[static_cast<std::size_t>(k)];
  kr.start = now;
  kr.started = true;
  const auto ki = static_cast<std::size_t>(k);
  kr.hz = ki < options_.kernel_clock_hz.size() && options_.kernel_clock_hz[ki] > 0 ? options_.kernel_clock_hz[ki]
                                                                                   : spec_.clock.boost.value;
  kr.period_ps = 1e12 / kr.hz;
  prepare_templates(kr);
  // Occupancy: how many of this kernel's CTAs one empty SM holds.
  Sm empty;
  while (fits(empty, ck) && empty.ctas < spec_.sm.max_ctas) {
    empty.threads += ck.threads;
    empty.warps += ck.warps;
    empty.registers += ck.registers;
    empty.shared_memory += ck.shared_memory;
    ++empty.ctas;
  }
  kr.max_ctas_per_sm = empty.ctas;
  if (ck.ctas == 0) {
    finish_kernel_if_done(kr, now);
    return;
  }
  schedule_ctas(now);
}

void Simulator::finish_kernel_if_done(KernelRun& kr, TimePoint now) {
  const CompiledKernel& ck = compiled_.kernels[static_cast<std::size_t>(kr.index)];
  if (kr.done_ctas < ck.ctas) return;
  kr.finished = true;
  kr.end = now;
  for (int s : kr.successors) {
    KernelRun& succ = kernels_[static_cast<std::size_t>(s)];
    succ.ready_at = std::max(succ.ready_at, now);
    --succ.waiting_on;
  }
  launch_ready_kernels(now);
}

Result Simulator::run() {
  launch_ready_kernels(kZeroTime);
  TimePoint now{0};
  while (true) {
    // Flows finishing at the time of the next event go first.
    const TimePoint tf = flows_.next_completion();
    const TimePoint tq = queue_.next_time();  // kNever: no event left
    if (tf == kNever && queue_.empty()) break;
    if (tf != kNever && tf <= tq) {
      now = tf;
      flows_done(now);
      continue;
    }
    const Event e = queue_.pop();
    now = e.time;
    switch (e.type()) {
      case EventType::node_done: node_done(e.a, static_cast<std::int32_t>(e.b), now); break;
      case EventType::node_ready: dispatch(ctas_[e.a], static_cast<std::int32_t>(e.b), now); break;
      case EventType::cta_start: start_cta(e.a, now); break;
      case EventType::kernel_launch: start_kernel(static_cast<int>(e.a), now); break;
      case EventType::port_free: next_transfer(e.a, kReadPort, now); break;
    }
  }
  flows_.settle(now);
  check_finished();
  if (last_cta_) record_critical_path(*last_cta_);
  TimePoint end{0};
  for (const auto& kr : kernels_) end = std::max(end, kr.end);
  return collect(end);
}

}  // namespace tgsim::engine
