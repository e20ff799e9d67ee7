// End of run: the deadlock check, the critical path of the last CTA, and the Result.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "sim/engine/simulator_state.h"
#include "sim/units/error.h"

namespace tgsim::engine {
namespace {

std::string activity(const CompiledNode& n, bool hit) {
  using graph::NodeKind;
  switch (n.kind) {
    case NodeKind::mma: return "mma (tensor pipe)";
    case NodeKind::load: return hit ? "load (L2 hit)" : "load (HBM)";
    case NodeKind::store: return "store";
    case NodeKind::simt: return n.pipe == Pipe::fetch ? "instruction fetch" : "simt";
    case NodeKind::smem: return "shared-memory move";
    case NodeKind::signal: return "signal";
    case NodeKind::wait: return "wait for a signal";
    case NodeKind::delay: return "fixed delay";
    case NodeKind::remote_put:
    case NodeKind::remote_get: return "remote transfer (NVLink)";
  }
  return "?";
}

std::string queue_label(const CompiledNode& n) {
  switch (n.pipe) {
    case Pipe::tensor: return "queued for the tensor pipe";
    case Pipe::simt: return "queued for the SIMT pipe";
    case Pipe::sfu: return "queued for the SFU pipe";
    case Pipe::fetch: return "queued for instruction fetch";
    case Pipe::smem: return "queued for shared memory";
    default: return "queued";
  }
}

}  // namespace

void Simulator::record_critical_path(const CtaRun& c) {
  const CompiledTemplate& t = *c.run->tmpl;
  std::map<std::string, Duration> parts;
  std::int32_t cur = c.last_done;
  while (cur >= 0) {
    const auto i = static_cast<std::size_t>(cur);
    const CompiledNode& n = t.nodes[i];
    const NodeState& x = c.nodes[i];
    parts[activity(n, c.hit[i] != 0)] += x.done - x.start;
    if (x.start > x.ready_at) parts[queue_label(n)] += x.start - x.ready_at;  // dispatched at ready_at
    const std::int32_t g = x.gate;
    if (g < 0) break;
    const Duration gap = x.ready_at - c.nodes[static_cast<std::size_t>(g)].done;
    if (gap > Duration{0}) parts[t.nodes[static_cast<std::size_t>(g)].kind == graph::NodeKind::mma ? "mma result latency" : "edge latency"] += gap;
    cur = g;
  }
  const KernelRun& kr = *c.kr;
  if (c.start > kr.start) parts["waiting for an SM (earlier CTAs, CTA launch)"] += c.start - kr.start;
  if (kr.start > TimePoint{0}) parts["earlier kernels and launch gaps"] += kr.start;
  critical_.clear();
  for (auto& [what, d] : parts) {
    if (d > Duration{0}) critical_.push_back({what, d});
  }
  std::stable_sort(critical_.begin(), critical_.end(), [](const auto& a, const auto& b) { return a.time > b.time; });
}

void Simulator::check_finished() const {
  std::vector<std::string> stuck;
  std::int64_t blocked = 0;
  for (std::size_t slot = 0; slot < ctas_.size(); ++slot) {
    const CtaRun& c = ctas_[slot];
    if (!c.active) continue;
    const CompiledKernel& ck = compiled_.kernels[static_cast<std::size_t>(c.kernel)];
    const CompiledTemplate& t = *c.run->tmpl;
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
      if (c.nodes[i].pending == kRetired) continue;
      if (c.nodes[i].pending > 0) {
        ++blocked;
        continue;
      }
      if (stuck.size() >= 20) continue;
      // The frontier: dispatched, never finished. Only a wait can be left there.
      std::string why = "dispatched but never finished";
      const CompiledNode& n = t.nodes[i];
      if (n.kind == graph::NodeKind::wait) {
        const std::int64_t index = coord(c, n.flag_index);
        std::int64_t value = 0;
        for (const auto& [key, f] : flags_) {
          for (const auto& w : f.waiters) {
            if (w.slot == slot && w.node == static_cast<std::int32_t>(i)) value = f.value;
          }
        }
        why = fmt::format("waits for flag \"{}\"[{}] to reach {}, but it is {} and nothing left can signal it",
                          graph_.flags[static_cast<std::size_t>(n.flag)].name, index, n.value, value);
      }
      stuck.push_back(fmt::format("kernel \"{}\" CTA {} node \"{}\" {}", ck.source->name, c.cta, t.node_ids[i], why));
    }
  }
  std::vector<std::string> unfinished;
  for (const auto& kr : kernels_) {
    if (!kr.finished) {
      const auto& ck = compiled_.kernels[static_cast<std::size_t>(kr.index)];
      unfinished.push_back(fmt::format("\"{}\" ({} of {} CTAs finished)", ck.source->name, kr.done_ctas, ck.ctas));
    }
  }
  if (unfinished.empty()) return;
  std::string msg = fmt::format("deadlock: no event left but kernels unfinished: {}", fmt::join(unfinished, ", "));
  if (!stuck.empty()) msg += fmt::format("; stuck: {}", fmt::join(stuck, "; "));
  if (blocked > 0) msg += fmt::format("; {} more nodes blocked behind them", blocked);
  throw SimulationError(msg);
}

Result Simulator::collect(TimePoint end) {
  Result r;
  r.latency = end;
  r.node_executions = node_executions_;
  r.events = static_cast<std::int64_t>(queue_.pushed());
  r.l2_hits = l2_hits_;
  r.l2_misses = l2_misses_;
  r.critical_path = critical_;
  const double span = std::max<double>(1.0, static_cast<double>(end.count()));
  const int total_sms = static_cast<int>(sms_.size());
  for (const auto& kr : kernels_) {
    const auto& ck = compiled_.kernels[static_cast<std::size_t>(kr.index)];
    KernelStat k;
    k.name = ck.source->name;
    k.gpu = ck.source->gpu;
    k.stream = ck.source->stream;
    k.start = kr.start;
    k.end = kr.end;
    k.ctas = ck.ctas;
    k.max_ctas_per_sm = kr.max_ctas_per_sm;
    k.waves = kr.max_ctas_per_sm > 0 ? static_cast<double>(ck.ctas) / (spec_.sm.count * kr.max_ctas_per_sm) : 0;
    k.sm_clock_mhz = kr.hz / 1e6;
    const double dur = std::max<double>(1.0, static_cast<double>((kr.end - kr.start).count()));
    k.tensor_utilisation = kr.tensor_busy_ps / (dur * spec_.sm.count);
    k.simt_utilisation = kr.simt_busy_ps / (dur * spec_.sm.count);
    k.hbm_bytes = kr.hbm_bytes;
    const double hbm_tbps = kr.hbm_bytes / (dur * 1e-12) / 1e12;
    k.smem_utilisation = kr.smem_busy_ps / (dur * spec_.sm.count);
    k.l2_bytes = kr.l2_bytes;
    const double l2_duty = kr.l2_bytes / (spec_.sm.count * dur * 1e-12 * kr.hz * 64.0);
    const auto& c = spec_.clock;
    k.power_duty = kr.power_tensor_ps / (dur * spec_.sm.count) + c.power_weight_simt * k.simt_utilisation +
                   c.power_weight_smem * k.smem_utilisation + c.power_weight_l2 * l2_duty + c.power_weight_clock +
                   c.power_per_hbm_tbps.value * hbm_tbps / kr.hz;
    k.eight_bit = ck.eight_bit;
    r.kernels.push_back(std::move(k));
  }
  ResourceStat tensor{"tensor", total_sms}, simt{"simt", total_sms}, smem{"smem", total_sms};
  for (const auto& sm : sms_) {
    tensor.busy += Duration{static_cast<std::int64_t>(sm.tensor_busy_ps)};
    tensor.amount += sm.flops;
    simt.busy += Duration{static_cast<std::int64_t>(sm.simt_busy_ps)};
    smem.busy += Duration{static_cast<std::int64_t>(sm.smem_busy_ps)};
  }
  for (ResourceStat* s : {&tensor, &simt, &smem}) {
    s->utilisation = static_cast<double>(s->busy.count()) / (span * s->instances);
    r.resources.push_back(*s);
  }
  // Memory links: utilisation is bytes carried over what the link could carry in the run.
  auto add_links = [&](const std::string& name, const std::vector<FlowNetwork::LinkId>& ids) {
    ResourceStat s{name, static_cast<int>(ids.size())};
    double cap = 0;
    for (auto id : ids) {
      s.busy += flows_.link_busy(id);
      s.amount += flows_.link_bytes(id);
      cap += flows_.link_capacity(id).value * span * 1e-12;
    }
    s.utilisation = cap > 0 ? s.amount / cap : 0;
    r.resources.push_back(s);
  };
  ResourceStat port{"l2_port", total_sms};
  const double port_capacity = spec_.sm.l2_bandwidth_per_sm.value * spec_.clock.boost.value * span * 1e-12;
  for (const auto& sm : sms_) port.amount += sm.port_bytes;
  port.utilisation = port_capacity > 0 ? port.amount / (2.0 * port_capacity * total_sms) : 0;  // two directions
  r.resources.push_back(port);
  add_links("l2", l2_link_);
  add_links("hbm", hbm_link_);
  if (!miss_link_.empty()) add_links("l2_miss", miss_link_);
  if (options_.system != nullptr) add_nvlink_stats(r, span);
  for (const auto& s : r.resources) {
    if (s.utilisation > r.bottleneck_utilisation) {
      r.bottleneck_utilisation = s.utilisation;
      r.bottleneck = s.name;
    }
  }
  return r;
}

}  // namespace tgsim::engine
