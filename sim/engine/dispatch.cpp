// Node dispatch and retirement: the replay rule. A node whose inputs are usable takes its pipe
// (compute), starts a flow (memory) or touches a flag (sync); when its result is usable it retires
// and releases its successors.
#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "sim/engine/simulator_state.h"
#include "sim/units/error.h"

namespace tgsim::engine {
namespace {

std::uint64_t token(std::uint32_t slot, std::int32_t node) {
  return (static_cast<std::uint64_t>(slot) << 32) | static_cast<std::uint32_t>(node);
}

}  // namespace

void Simulator::dispatch(std::uint32_t slot, std::int32_t node, TimePoint now) {
  CtaRun& c = ctas_[slot];
  const CompiledNode& n =
      compiled_.kernels[static_cast<std::size_t>(c.kernel)].templates[static_cast<std::size_t>(c.tmpl)].nodes[static_cast<std::size_t>(node)];
  c.t_ready[static_cast<std::size_t>(node)] = now;
  switch (n.pipe) {
    case Pipe::tensor:
    case Pipe::simt:
    case Pipe::smem: dispatch_compute(c, n, node, now); break;
    case Pipe::memory: dispatch_memory(c, n, node, now); break;
    case Pipe::sync: dispatch_sync(c, n, node, now); break;
    case Pipe::none:
      c.t_start[static_cast<std::size_t>(node)] = now;
      queue_.push(now + cycles(c, n.latency_cycles), EventType::node_done, slot, static_cast<std::uint32_t>(node));
      break;
  }
}

void Simulator::dispatch_compute(CtaRun& c, const CompiledNode& n, std::int32_t node, TimePoint now) {
  Sm& sm = sms_[static_cast<std::size_t>(c.sm)];
  const Duration occupancy = cycles(c, n.occupancy_cycles);
  TimePoint start = now;
  const int sps = spec_.sm.sub_partitions;
  if (n.pipe == Pipe::smem) {
    start = std::max(start, sm.smem_free);
    sm.smem_free = start + occupancy;
    sm.smem_busy_ps += static_cast<double>(occupancy.count());
  } else {
    auto& free_at = n.pipe == Pipe::tensor ? sm.tensor_free : sm.simt_free;
    for (int sp = 0; sp < sps; ++sp) {
      if (n.sub_partitions & (1u << sp)) start = std::max(start, free_at[static_cast<std::size_t>(sp)]);
    }
    for (int sp = 0; sp < sps; ++sp) {
      if (n.sub_partitions & (1u << sp)) free_at[static_cast<std::size_t>(sp)] = start + occupancy;
    }
    const double share = static_cast<double>(std::popcount(n.sub_partitions)) / sps * static_cast<double>(occupancy.count());
    if (n.pipe == Pipe::tensor) {
      sm.tensor_busy_ps += share;
      sm.flops += n.flops;
      kernels_[static_cast<std::size_t>(c.kernel)].tensor_busy_ps += share;
    } else {
      sm.simt_busy_ps += share;
    }
  }
  const auto slot = static_cast<std::uint32_t>(&c - ctas_.data());
  c.t_start[static_cast<std::size_t>(node)] = start;
  queue_.push(start + occupancy + cycles(c, n.latency_cycles), EventType::node_done, slot, static_cast<std::uint32_t>(node));
}

void Simulator::dispatch_memory(CtaRun& c, const CompiledNode& n, std::int32_t node, TimePoint now) {
  Sm& sm = sms_[static_cast<std::size_t>(c.sm)];
  const auto slot = static_cast<std::uint32_t>(&c - ctas_.data());
  const std::size_t dir = n.kind == graph::NodeKind::store ? 1 : 0;
  if (sm.mem_busy[dir]) {
    sm.mem_queue[dir].push_back({slot, node});
    return;
  }
  sm.mem_busy[dir] = true;
  start_transfer(slot, node, now);
}

void Simulator::start_transfer(std::uint32_t slot, std::int32_t node, TimePoint now) {
  CtaRun& c = ctas_[slot];
  const CompiledNode& n =
      compiled_.kernels[static_cast<std::size_t>(c.kernel)].templates[static_cast<std::size_t>(c.tmpl)].nodes[static_cast<std::size_t>(node)];
  Sm& sm = sms_[static_cast<std::size_t>(c.sm)];
  const bool is_store = n.kind == graph::NodeKind::store;
  bool hit = false;
  if (n.tensor_key >= 0) {
    const TileKey key{sm.gpu, n.tensor_key, coord(c, n.tile.coords[0]), coord(c, n.tile.coords[1]),
                      coord(c, n.tile.coords[2])};
    hit = l2_[static_cast<std::size_t>(sm.gpu)]->access(key, Bytes{n.fetch_bytes}, is_store);
  }
  // Stores are written back to HBM; loads that hit stay on the SM-L2 path.
  const bool via_hbm = is_store || !hit;
  if (!is_store) (hit ? l2_hits_ : l2_misses_)++;
  c.hit[static_cast<std::size_t>(node)] = hit ? 1 : 0;
  c.t_start[static_cast<std::size_t>(node)] = now;
  sm.port_bytes += static_cast<double>(n.fetch_bytes);
  flows_.start(via_hbm ? sm.route_miss : sm.route_hit, Bytes{n.fetch_bytes}, now, token(slot, node));
}

void Simulator::flows_done(TimePoint now) {
  completed_flows_.clear();
  flows_.take_completed(now, completed_flows_);
  for (std::uint64_t t : completed_flows_) {
    const auto slot = static_cast<std::uint32_t>(t >> 32);
    const auto node = static_cast<std::int32_t>(t & 0xffffffffu);
    CtaRun& c = ctas_[slot];
    const CompiledNode& n =
        compiled_.kernels[static_cast<std::size_t>(c.kernel)].templates[static_cast<std::size_t>(c.tmpl)].nodes[static_cast<std::size_t>(node)];
    const bool is_store = n.kind == graph::NodeKind::store;
    double lat = n.latency_cycles;
    lat += (is_store || c.hit[static_cast<std::size_t>(node)]) ? spec_.l2.hit_latency.value : spec_.hbm.latency.value;
    if (n.engine == graph::MemEngine::tma) lat += spec_.tma.issue_latency.value;
    queue_.push(now + cycles(c, lat), EventType::node_done, slot, static_cast<std::uint32_t>(node));
    // The SM's port is free for its next request in that direction.
    Sm& sm = sms_[static_cast<std::size_t>(c.sm)];
    auto& q = sm.mem_queue[is_store ? 1 : 0];
    if (q.empty()) {
      sm.mem_busy[is_store ? 1 : 0] = false;
    } else {
      const auto next = q.front();
      q.pop_front();
      start_transfer(next.slot, next.node, now);
    }
  }
}

void Simulator::dispatch_sync(CtaRun& c, const CompiledNode& n, std::int32_t node, TimePoint now) {
  const auto slot = static_cast<std::uint32_t>(&c - ctas_.data());
  const int gpu = sms_[static_cast<std::size_t>(c.sm)].gpu;
  FlagSlot& f = flags_[TileKey{gpu, n.flag, coord(c, n.flag_index), 0, 0}];
  c.t_start[static_cast<std::size_t>(node)] = now;
  const TimePoint done = now + cycles(c, n.latency_cycles);
  if (n.kind == graph::NodeKind::wait) {
    if (f.value >= n.value) {
      queue_.push(done, EventType::node_done, slot, static_cast<std::uint32_t>(node));
    } else {
      f.waiters.push_back({slot, node, n.value});
    }
    return;
  }
  f.value += n.value;
  // A GPU-scope flag is written to L2 by the signaller and seen by a poll through L2.
  const graph::FlagScope scope = graph_.flags[static_cast<std::size_t>(n.flag)].scope;
  const double wake_cycles = scope == graph::FlagScope::cta ? 0.0 : 2.0 * spec_.l2.hit_latency.value;
  auto keep = f.waiters.begin();
  for (auto it = f.waiters.begin(); it != f.waiters.end(); ++it) {
    if (it->threshold <= f.value) {
      CtaRun& w = ctas_[it->slot];
      const CompiledNode& wn = compiled_.kernels[static_cast<std::size_t>(w.kernel)]
                                   .templates[static_cast<std::size_t>(w.tmpl)]
                                   .nodes[static_cast<std::size_t>(it->node)];
      queue_.push(now + cycles(w, wake_cycles + wn.latency_cycles), EventType::node_done, it->slot,
                  static_cast<std::uint32_t>(it->node));
    } else {
      *keep++ = *it;
    }
  }
  f.waiters.erase(keep, f.waiters.end());
  queue_.push(done, EventType::node_done, slot, static_cast<std::uint32_t>(node));
}

void Simulator::node_done(std::uint32_t slot, std::int32_t node, TimePoint now) {
  CtaRun& c = ctas_[slot];
  const CompiledTemplate& t =
      compiled_.kernels[static_cast<std::size_t>(c.kernel)].templates[static_cast<std::size_t>(c.tmpl)];
  const CompiledNode& n = t.nodes[static_cast<std::size_t>(node)];
  c.t_done[static_cast<std::size_t>(node)] = now;
  c.last_done = node;
  ++node_executions_;
  if (options_.trace) {
    const Sm& sm = sms_[static_cast<std::size_t>(c.sm)];
    if (options_.trace->wants_nodes(sm.gpu, sm.index)) {
      options_.trace->node(NodeSlice{sm.gpu, sm.index, c.lane, c.kernel, c.cta, t.role_names[static_cast<std::size_t>(n.role)],
                                     t.node_ids[static_cast<std::size_t>(node)], graph::to_string(n.kind),
                                     c.t_start[static_cast<std::size_t>(node)], now});
    }
  }
  for (std::uint32_t e = n.succ_begin; e < n.succ_end; ++e) {
    const std::int32_t s = t.succ[e];
    const auto si = static_cast<std::size_t>(s);
    const TimePoint ready = now + (t.succ_delay_cycles[e] > 0 ? cycles(c, t.succ_delay_cycles[e]) : Duration{0});
    if (ready >= c.ready_at[si]) {
      c.ready_at[si] = ready;
      c.gate[si] = node;
    }
    if (--c.pending[si] == 0) {
      if (c.ready_at[si] > now) {
        queue_.push(c.ready_at[si], EventType::node_ready, slot, static_cast<std::uint32_t>(s));
      } else {
        dispatch(slot, s, now);
      }
    }
  }
  if (--c.remaining == 0) finish_cta(slot, now);
}

}  // namespace tgsim::engine
