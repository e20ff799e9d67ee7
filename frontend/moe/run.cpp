#include "frontend/moe/run.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/engine/simulate.h"
#include "sim/graph/validate.h"

namespace tgsim::moe {
namespace {

using Interval = std::pair<std::int64_t, std::int64_t>;

std::vector<Interval> merged(std::vector<Interval> v) {
  std::sort(v.begin(), v.end());
  std::vector<Interval> out;
  for (const auto& i : v) {
    if (!out.empty() && i.first <= out.back().second) {
      out.back().second = std::max(out.back().second, i.second);
    } else {
      out.push_back(i);
    }
  }
  return out;
}

std::int64_t length(const std::vector<Interval>& v) {
  std::int64_t n = 0;
  for (const auto& i : v) n += i.second - i.first;
  return n;
}

std::int64_t intersection(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::int64_t n = 0;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const std::int64_t lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (hi > lo) n += hi - lo;
    (a[i].second < b[j].second) ? ++i : ++j;
  }
  return n;
}

// Collects per-GPU comm (remote_put) and compute (mma) intervals and CTA residency; forwards
// everything to an optional second sink.
class MetricsSink final : public engine::TraceSink {
 public:
  MetricsSink(int gpus, engine::TraceSink* next)
      : next_(next), comm_(static_cast<std::size_t>(gpus)), mma_(comm_.size()), mma_busy_(comm_.size(), 0),
        resident_(comm_.size(), 0) {}
  bool wants_nodes(int, int) const override { return true; }
  void node(const engine::NodeSlice& s) override {
    const auto g = static_cast<std::size_t>(s.gpu);
    if (s.kind == "remote_put") comm_[g].emplace_back(s.start.count(), s.end.count());
    if (s.kind == "mma") {
      mma_[g].emplace_back(s.start.count(), s.end.count());
      mma_busy_[g] += (s.end - s.start).count();
    }
    if (next_ != nullptr && next_->wants_nodes(s.gpu, s.sm)) next_->node(s);
  }
  void cta(const engine::CtaSlice& s) override {
    resident_[static_cast<std::size_t>(s.gpu)] += (s.end - s.start).count();
    if (next_ != nullptr) next_->cta(s);
  }
  engine::TraceSink* next_;
  std::vector<std::vector<Interval>> comm_, mma_;
  std::vector<std::int64_t> mma_busy_, resident_;
};

double resource(const engine::Result& r, const std::string& name) {
  for (const auto& s : r.resources) {
    if (s.name == name) return s.utilisation;
  }
  return 0;
}

}  // namespace

LayerRun run_layer(const MoeLayer& l, const LoweredLayer& lowered, const hw::GpuSpec& gpu, const hw::SystemSpec& sys,
                   engine::TraceSink* trace) {
  graph::validate_tile_graph(lowered.graph, lowered.graph.name);
  MetricsSink sink(l.gpus, trace);
  engine::SimOptions opts;
  opts.l2_starts_dirty = true;  // as the tgsim program's default
  opts.critical_path = false;
  opts.system = &sys;
  opts.trace = &sink;
  LayerRun run;
  run.result = engine::simulate(lowered.graph, gpu, opts);
  const double span = static_cast<double>(run.result.latency.count()) * gpu.sm.count;
  for (int g = 0; g < l.gpus; ++g) {
    const auto gi = static_cast<std::size_t>(g);
    GpuMetrics m;
    m.comm_sms = lowered.comm_sms[gi];
    m.tiles = lowered.tiles[gi];
    m.stolen = lowered.stolen[gi];
    m.push_bytes = l.push_bytes(g);
    m.expert_tflop = l.expert_flops(g) * 1e-12;
    m.cost = lowered.cost[gi];
    m.tensor_busy = span > 0 ? static_cast<double>(sink.mma_busy_[gi]) / span : 0;
    m.sm_active = span > 0 ? static_cast<double>(sink.resident_[gi]) / span : 0;
    const auto comm = merged(sink.comm_[gi]), mma = merged(sink.mma_[gi]);
    m.comm_active = Duration{length(comm)};
    m.compute_active = Duration{length(mma)};
    m.both_active = Duration{intersection(comm, mma)};
    std::int64_t first = run.result.kernels.empty() ? 0 : run.result.kernels.front().start.count(), last = first;
    for (const auto& k : run.result.kernels) first = std::min(first, k.start.count());
    for (const auto& v : {comm, mma})
      if (!v.empty()) last = std::max(last, v.back().second);
    m.work_end = Duration{last - first};
    m.overlap = m.comm_active.count() > 0
                    ? static_cast<double>(m.both_active.count()) / static_cast<double>(m.comm_active.count())
                    : 0;
    m.nvlink_egress = resource(run.result, fmt::format("gpu{}.nvlink_egress", g));
    m.nvlink_ingress = resource(run.result, fmt::format("gpu{}.nvlink_ingress", g));
    double weighted = 0, total = 0;
    for (const auto& k : run.result.kernels) {
      if (k.gpu != g) continue;
      const auto d = static_cast<double>((k.end - k.start).count());
      weighted += d * k.sm_clock_mhz;
      total += d;
    }
    m.clock_mhz = total > 0 ? weighted / total : 0;
    run.gpus.push_back(m);
  }
  return run;
}

}  // namespace tgsim::moe
