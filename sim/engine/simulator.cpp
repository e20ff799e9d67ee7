#include "sim/engine/simulator.h"

#include <algorithm>
#include <cassert>
#include <numeric>

#include <fmt/format.h>

#include "sim/engine/simulator_state.h"
#include "sim/units/error.h"

namespace tgsim::engine {

Simulator::Simulator(const graph::TileGraph& graph, const hw::GpuSpec& spec, SimOptions options)
    : graph_(graph), spec_(spec), options_(std::move(options)), compiled_(compile_graph(graph, spec)) {
  if (spec_.sm.sub_partitions < 1 || spec_.sm.sub_partitions > kMaxSubPartitions)
    throw InputError(fmt::format("/sm/sub_partitions: must be 1..{}", kMaxSubPartitions));
  build_machine();
}

Simulator::~Simulator() = default;

void Simulator::build_machine() {
  const int gpus = std::max(1, graph_.gpus);
  const double boost = spec_.clock.boost.value;
  for (int g = 0; g < gpus; ++g) {
    l2_.push_back(make_l2_model(options_.l2_model, spec_.l2.capacity));
    l2_link_.push_back(flows_.add_link(fmt::format("gpu{}.l2", g), spec_.l2.bandwidth));
    hbm_link_.push_back(flows_.add_link(fmt::format("gpu{}.hbm", g), spec_.hbm.bandwidth * spec_.hbm.efficiency));
    int gpc = 0;
    int in_gpc = 0;
    for (int s = 0; s < spec_.sm.count; ++s) {
      Sm sm;
      sm.gpu = g;
      sm.index = s;
      while (gpc < static_cast<int>(spec_.gpc.sms_per_gpc.size()) && in_gpc >= spec_.gpc.sms_per_gpc[static_cast<std::size_t>(gpc)]) {
        ++gpc;
        in_gpc = 0;
      }
      sm.gpc = gpc;
      ++in_gpc;
      // The SM's L2 port caps each of its flows; with one flow per direction in flight per SM
      // (the FIFO in dispatch.cpp) that is exactly a per-SM, per-direction port limit.
      const BytesPerSecond port{spec_.sm.l2_bandwidth_per_sm.value * boost};
      const FlowNetwork::LinkId hit[] = {l2_link_.back()};
      const FlowNetwork::LinkId miss[] = {l2_link_.back(), hbm_link_.back()};
      sm.route_hit = flows_.add_route(hit, port);
      sm.route_miss = flows_.add_route(miss, port);
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
    if (auto it = last_in_stream.find(stream_key); it != last_in_stream.end()) preds.push_back(it->second);
    last_in_stream[stream_key] = static_cast<int>(k);
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    kr.waiting_on = static_cast<int>(preds.size());
    for (int p : preds) kernels_[static_cast<std::size_t>(p)].successors.push_back(static_cast<int>(k));
  }
}

Duration Simulator::cycles(const CtaRun& c, double n) const {
  return Duration{static_cast<std::int64_t>(std::llround(n * kernels_[static_cast<std::size_t>(c.kernel)].period_ps))};
}

std::int64_t Simulator::coord(const CtaRun& c, const graph::Coord& x) const {
  return (x.param >= 0 ? c.params[x.param] : 0) + x.offset;
}

void Simulator::launch_ready_kernels(TimePoint now) {
  for (auto& kr : kernels_) {
    if (kr.waiting_on == 0 && !kr.launched) {
      kr.launched = true;
      const graph::Kernel& src = graph_.kernels[static_cast<std::size_t>(kr.index)];
      const Duration gap = src.in_cuda_graph ? spec_.launch.graph_kernel_overhead : spec_.launch.kernel_overhead;
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
    const TimePoint tf = flows_.next_completion();
    if (queue_.empty() && tf == kNever) break;
    if (tf != kNever && (queue_.empty() || tf <= queue_.top().time)) {
      now = tf;
      flows_done(now);
      continue;
    }
    const Event e = queue_.pop();
    now = e.time;
    switch (e.type) {
      case EventType::node_done: node_done(e.a, static_cast<std::int32_t>(e.b), now); break;
      case EventType::node_ready: dispatch(e.a, static_cast<std::int32_t>(e.b), now); break;
      case EventType::cta_start: start_cta(e.a, now); break;
      case EventType::kernel_launch: start_kernel(static_cast<int>(e.a), now); break;
    }
  }
  flows_.settle(now);
  check_finished();
  TimePoint end{0};
  for (const auto& kr : kernels_) end = std::max(end, kr.end);
  return collect(end);
}

}  // namespace tgsim::engine
