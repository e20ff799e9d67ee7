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

// A flow's token names the node and carries whether its L2 lookup hit (bit 31 of the node field;
// node indices are non-negative int32).
constexpr std::uint64_t kHitBit = 1ULL << 31;

// Write-backs of dirty L2 lines: traffic on HBM that no node waits for.
constexpr std::uint64_t kWritebackToken = ~std::uint64_t{0};

std::uint64_t token(std::uint32_t slot, std::int32_t node, bool hit) {
  return (static_cast<std::uint64_t>(slot) << 32) | static_cast<std::uint32_t>(node) | (hit ? kHitBit : 0);
}

void prefetch(const void* p) {
#if defined(__GNUC__)
  __builtin_prefetch(p, 1);  // for writing
#else
  (void)p;
#endif
}

}  // namespace

void Simulator::dispatch(CtaRun& c, std::int32_t node, TimePoint now) {
  const TemplateRun& tr = *c.run;
  const RunNode& n = tr.nodes[static_cast<std::size_t>(node)];
  // node_done reads the successors' states, usually their first touch since the CTA started (a
  // cache miss on large templates); start fetching them while this node is in flight.
  for (std::uint32_t e = n.succ_begin; e < n.succ_end; ++e) {
    prefetch(&c.nodes[static_cast<std::size_t>(tr.edges[e].to)]);
  }
  switch (n.pipe) {
    case Pipe::tensor:
    case Pipe::simt:
    case Pipe::sfu:
    case Pipe::fetch:
    case Pipe::smem: dispatch_compute(c, node, now); break;
    case Pipe::memory: dispatch_memory(c, node, now); break;
    case Pipe::sync: dispatch_sync(c, node, now); break;
    case Pipe::remote: dispatch_remote(c, node, now); break;
    case Pipe::none:
      if (detail_) c.nodes[static_cast<std::size_t>(node)].start = now;
      queue_.push(now + n.latency, EventType::node_done, slot_of(c), static_cast<std::uint32_t>(node));
      break;
  }
}

void Simulator::dispatch_compute(CtaRun& c, std::int32_t node, TimePoint now) {
  Sm& sm = sms_[static_cast<std::size_t>(c.sm)];
  const RunNode& n = c.run->nodes[static_cast<std::size_t>(node)];
  TimePoint start = now;
  Duration held = n.occupancy;
  if (n.pipe == Pipe::smem) {
    start = std::max(start, sm.smem_free);
    sm.smem_free = start + n.occupancy;
    sm.smem_busy_ps += static_cast<double>(n.occupancy.count());
    c.kr->smem_busy_ps += static_cast<double>(n.occupancy.count());
  } else {
    // The node waits for every sub-partition it uses, then holds them all. An mma.sync whose
    // issue takes its whole tensor time (tensor.mma_sync_issue_fraction 1) holds the SIMT
    // timeline too; one that takes a share only pushes that timeline back by the share.
    auto& free_at = n.pipe == Pipe::tensor ? sm.tensor_free
                    : n.pipe == Pipe::sfu  ? sm.sfu_free
                                            : sm.simt_free;  // simt, and fetch: its issue slots
    const bool holds_issue = n.issue_shared && mma_sync_issue_fraction_ >= 1.0;
    for (unsigned m = n.sub_partitions; m != 0; m &= m - 1) {
      const auto i = static_cast<std::size_t>(std::countr_zero(m));
      start = std::max(start, free_at[i]);
      if (holds_issue) start = std::max(start, sm.simt_free[i]);
    }
    if ((n.pipe == Pipe::simt || n.pipe == Pipe::sfu) && !n.uniform && simt_rate_during_wgmma_ < 1.0) {
      for (unsigned m = n.sub_partitions; m != 0; m &= m - 1) {
        const auto i = static_cast<std::size_t>(std::countr_zero(m));
        held = std::max(held, slowed_by_wgmma(start, n.occupancy, sm.wgmma_from[i], sm.wgmma_until[i]));
      }
    }
    const Duration issue_slots = n.issue_shared && !holds_issue ? issue_share(held) : Duration{0};
    for (unsigned m = n.sub_partitions; m != 0; m &= m - 1) {
      const auto i = static_cast<std::size_t>(std::countr_zero(m));
      free_at[i] = start + held;
      if (holds_issue) {
        sm.simt_free[i] = start + held;
      } else if (n.issue_shared) {
        sm.simt_free[i] = std::max(sm.simt_free[i], start) + issue_slots;
      }
      if (n.wgmma) {
        if (start > sm.wgmma_until[i]) sm.wgmma_from[i] = start;
        sm.wgmma_until[i] = start + held;
      }
    }
    if (n.pipe == Pipe::tensor) {
      sm.tensor_busy_ps += n.busy_share;
      sm.flops += n.flops;
      c.kr->tensor_busy_ps += n.busy_share;
      c.kr->power_tensor_ps += n.issue_shared ? n.busy_share * mma_sync_power_weight_ : n.busy_share;
    } else {
      sm.simt_busy_ps += n.busy_share;
      if (n.pipe == Pipe::simt) c.kr->simt_busy_ps += n.busy_share;
    }
  }
  if (detail_) c.nodes[static_cast<std::size_t>(node)].start = start;
  queue_.push(start + held + n.latency, EventType::node_done, slot_of(c), static_cast<std::uint32_t>(node));
}

// The issue slots of an mma.sync that holds its tensor core for `held`.
Duration Simulator::issue_share(Duration held) const {
  return Duration{static_cast<std::int64_t>(std::llround(static_cast<double>(held.count()) * mma_sync_issue_fraction_))};
}

// SIMT work of `work` starting at `start` progresses at simt.rate_during_wgmma while a wgmma
// runs on its sub-partition ([from, until): the latest run of back-to-back wgmma reservations)
// and at full rate otherwise; returns how long it holds its pipe.
Duration Simulator::slowed_by_wgmma(TimePoint start, Duration work, TimePoint from, TimePoint until) const {
  if (until <= start) return work;
  TimePoint t = start;
  double left = static_cast<double>(work.count());
  if (from > t) {
    const double fast = std::min(left, static_cast<double>((from - t).count()));
    left -= fast;
    t += Duration{static_cast<std::int64_t>(fast)};
  }
  if (left > 0 && t < until) {
    const double span = static_cast<double>((until - t).count());
    const double need = left / simt_rate_during_wgmma_;
    if (need <= span) return (t - start) + Duration{static_cast<std::int64_t>(std::llround(need))};
    left -= span * simt_rate_during_wgmma_;
    t = until;
  }
  return (t - start) + Duration{static_cast<std::int64_t>(std::llround(left))};
}

void Simulator::dispatch_memory(CtaRun& c, std::int32_t node, TimePoint now) {
  Sm& sm = sms_[static_cast<std::size_t>(c.sm)];
  const RunNode& rn = c.run->nodes[static_cast<std::size_t>(node)];
  if (rn.l1_at_issue) {  // the LSU works through the instructions now; later shared-memory work queues behind
    const TimePoint start = std::max(now, sm.smem_free);
    sm.smem_free = start + rn.occupancy;
    sm.smem_busy_ps += static_cast<double>(rn.occupancy.count());
    c.kr->smem_busy_ps += static_cast<double>(rn.occupancy.count());
  }
  const std::size_t dir = rn.is_store ? 1 : 0;
  if (sm.mem_busy[dir]) {
    sm.mem_queue[dir].push_back({slot_of(c), node});
    return;
  }
  sm.mem_busy[dir] = true;
  start_transfer(c, node, now);
}

void Simulator::start_transfer(CtaRun& c, std::int32_t node, TimePoint now) {
  const CompiledNode& n = c.run->tmpl->nodes[static_cast<std::size_t>(node)];
  Sm& sm = sms_[static_cast<std::size_t>(c.sm)];
  const bool is_store = n.kind == graph::NodeKind::store;
  bool hit = n.tensor_key < 0 && n.tile.resident && !is_store;
  bool combined = false;
  std::int64_t waits_for = 0;  // dirty bytes this miss writes back ahead of its read (l2.miss_waits_for_writeback)
  if (n.tensor_key >= 0) {
    const TileKey key{sm.gpu, n.tensor_key, coord(c, n.tile.coords[0]), coord(c, n.tile.coords[1]),
                      coord(c, n.tile.coords[2])};
    L2Model& l2 = *l2_[static_cast<std::size_t>(sm.gpu)];
    hit = l2.access(key, Bytes{n.fetch_bytes}, is_store);
    // Only TMA reads of 128-byte-aligned rows combine: the rings that show combining are TMA, and
    // rows only 16 / 32 bytes aligned gain nothing from sharing (calib_tma pitch_l2_*, and Nsight
    // Compute's L2 reads of the K = 1000 GEMMs: docs/validation.md). Multicast reads do not (the
    // operand feed's two cluster orders, calib_gemm_feed); plain grids only with l2.gpc_combine_plain.
    combined = !is_store && sm.route_combined >= 0 && n.engine == graph::MemEngine::tma && n.pitch_class == 0 &&
               n.multicast <= 1 &&
               (spec_.l2.gpc_combine_plain || compiled_.kernels[static_cast<std::size_t>(c.kernel)].cluster_size > 1) &&
               combined_with_gpc_fetch(key, sm.gpc, now);
    hit = hit || combined;
    if (const std::int64_t wb = l2.take_writeback(); wb > 0) {
      c.kr->hbm_bytes += static_cast<double>(wb);
      if (!hit && spec_.l2.miss_waits_for_writeback) {
        waits_for = wb;
      } else {
        flows_.start(writeback_route_[static_cast<std::size_t>(sm.gpu)], Bytes{wb}, now, kWritebackToken);
      }
    }
  }
  // Stores are written back to HBM; loads that hit stay on the SM-L2 path.
  const bool via_hbm = is_store || !hit;
  if (via_hbm && !n.tile.zero_fill) c.kr->hbm_bytes += static_cast<double>(n.fetch_bytes);
  if (!combined && !n.tile.zero_fill) c.kr->l2_bytes += static_cast<double>(n.fetch_bytes);
  if (!is_store) (hit ? l2_hits_ : l2_misses_)++;
  if (detail_) {
    c.hit[static_cast<std::size_t>(node)] = hit ? 1 : 0;
    c.nodes[static_cast<std::size_t>(node)].start = now;
  }
  sm.port_bytes += static_cast<double>(n.fetch_bytes) * n.multicast;  // received: all k slices
  if (n.multicast > 1 && !is_store) {
    sm.read_port_held_until = now + Duration{static_cast<std::int64_t>(std::llround(static_cast<double>(n.bytes) * port_ps_per_byte_))};
  }
  const FlowNetwork::RouteId route = combined                                     ? sm.route_combined
                                     : n.tile.zero_fill                            ? sm.route_zero_fill
                                     : via_hbm                                     ? sm.route_miss
                                     : n.pitch_class == 1 && sm.route_hit_pitch16 >= 0 ? sm.route_hit_pitch16
                                     : n.pitch_class == 2 && sm.route_hit_pitch32 >= 0 ? sm.route_hit_pitch32
                                                                                   : sm.route_hit;
  flows_.start(route, Bytes{n.fetch_bytes + waits_for}, now, token(slot_of(c), node, hit));
}

bool Simulator::combined_with_gpc_fetch(const TileKey& key, int gpc, TimePoint now) {
  const auto gpcs = std::max<std::int32_t>(spec_.gpc.count, static_cast<std::int32_t>(spec_.gpc.sms_per_gpc.size()));
  TileKey k = key;
  k.gpu = key.gpu * gpcs + gpc;  // one key space per (GPU, GPC)
  auto [it, fresh] = gpc_fetches_.try_emplace(k);
  GpcFetch& f = it->second;
  if (fresh || now - f.at > spec_.l2.gpc_combine_window) {  // no recent fetch: this one goes to L2
    f.at = now;
    return false;
  }
  // A read that could combine adds gpc_combine_fraction to its GPC's credit; the one that brings it
  // to 1 goes to L2. The credit is the GPC's, not the tile's, so a tile with few readers per window
  // (two SMs of a GPC) still sends that fraction on average, not none.
  double& credit = gpc_credit_[static_cast<std::size_t>(k.gpu)];
  credit += spec_.l2.gpc_combine_fraction;
  if (credit < 1.0) return true;
  credit -= 1.0;
  return false;
}

void Simulator::flows_done(TimePoint now) {
  completed_flows_.clear();
  flows_.take_completed(now, completed_flows_);
  for (std::uint64_t t : completed_flows_) {
    if (t == kWritebackToken) continue;
    const auto slot = static_cast<std::uint32_t>(t >> 32);
    const auto node = static_cast<std::int32_t>(t & (kHitBit - 1));
    const bool hit = (t & kHitBit) != 0;
    CtaRun& c = ctas_[slot];
    const auto i = static_cast<std::size_t>(node);
    const RunNode& n = c.run->nodes[i];
    queue_.push(now + (hit ? n.after_hit : n.after_miss), EventType::node_done, slot, static_cast<std::uint32_t>(node));
    // The SM's port is free for its next request in that direction.
    const std::size_t dir = n.port;
    if (dir >= kSmPorts) continue;  // a copy engine's transfer: no SM port
    Sm& sm = sms_[static_cast<std::size_t>(c.sm)];
    if (n.pipe == Pipe::memory && n.occupancy.count() > 0 && !n.l1_at_issue) {
      // cp.async's shared-memory writes happened while the data arrived: they fill the pipe's
      // idle time within the transfer's last `occupancy`, and push later work back only when
      // the pipe was busy then. (Their stall of the SM's compute pipes comes when the data has
      // landed: node_done.)
      sm.smem_free = std::max(sm.smem_free, now - n.occupancy) + n.occupancy;
      sm.smem_busy_ps += static_cast<double>(n.occupancy.count());
      c.kr->smem_busy_ps += static_cast<double>(n.occupancy.count());
    }
    if (dir == kReadPort && now < sm.read_port_held_until) {  // still receiving a multicast tile's other slices
      queue_.push(sm.read_port_held_until, EventType::port_free, static_cast<std::uint32_t>(c.sm));
      continue;
    }
    next_transfer(static_cast<std::uint32_t>(c.sm), dir, now);
  }
}

// A fill of `stall` that ended at `now`: every compute pipe of the SM that was busy within it is
// pushed back by the part of it that was busy (its idle time absorbs the rest).
void Simulator::stall_for_fill(Sm& sm, TimePoint now, Duration stall) const {
  const auto push = [&](TimePoint& free_at) { free_at = std::max(free_at, now - stall) + stall; };
  for (int i = 0; i < spec_.sm.sub_partitions; ++i) {
    const auto k = static_cast<std::size_t>(i);
    push(sm.tensor_free[k]);
    push(sm.simt_free[k]);
    push(sm.sfu_free[k]);
  }
}

void Simulator::next_transfer(std::uint32_t sm_index, std::size_t dir, TimePoint now) {
  Sm& sm = sms_[sm_index];
  auto& q = sm.mem_queue[dir];
  if (q.empty()) {
    sm.mem_busy[dir] = false;
    return;
  }
  const auto next = q.front();
  q.pop_front();
  if (dir == kRemotePort) {
    start_remote(ctas_[next.slot], next.node, now);
  } else {
    start_transfer(ctas_[next.slot], next.node, now);
  }
}

void Simulator::dispatch_sync(CtaRun& c, std::int32_t node, TimePoint now) {
  const CompiledNode& n = c.run->tmpl->nodes[static_cast<std::size_t>(node)];
  const auto slot = slot_of(c);
  // In a multi-GPU system a system-scope flag is one set of slots that every GPU sees.
  const graph::FlagScope scope = graph_.flags[static_cast<std::size_t>(n.flag)].scope;
  const bool cross_gpu = options_.system != nullptr && scope == graph::FlagScope::system;
  const int gpu = cross_gpu ? -1 : sms_[static_cast<std::size_t>(c.sm)].gpu;
  FlagSlot& f = flags_[TileKey{gpu, n.flag, coord(c, n.flag_index), 0, 0}];
  if (detail_) c.nodes[static_cast<std::size_t>(node)].start = now;
  const TimePoint done = now + c.run->nodes[static_cast<std::size_t>(node)].latency;
  if (n.kind == graph::NodeKind::wait) {
    if (f.value >= n.value) {
      queue_.push(done, EventType::node_done, slot, static_cast<std::uint32_t>(node));
    } else {
      f.waiters.push_back({slot, node, n.value});
    }
    return;
  }
  f.value += n.value;
  // A GPU-scope flag is written to L2 by the signaller and seen by a poll through L2; a
  // system-scope one (with a system) crosses NVLink: the measured cross-GPU signal latency.
  const double wake_cycles = scope == graph::FlagScope::cta ? 0.0 : 2.0 * spec_.l2.hit_latency.value;
  const Duration wake_extra = cross_gpu ? options_.system->signal_latency : Duration{0};
  auto keep = f.waiters.begin();
  for (auto it = f.waiters.begin(); it != f.waiters.end(); ++it) {
    if (it->threshold <= f.value) {
      const CtaRun& w = ctas_[it->slot];
      const CompiledNode& wn = w.run->tmpl->nodes[static_cast<std::size_t>(it->node)];
      const Duration wake = cross_gpu ? wake_extra + cycles(w, wn.latency_cycles) : cycles(w, wake_cycles + wn.latency_cycles);
      queue_.push(now + wake, EventType::node_done, it->slot,
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
  const TemplateRun& tr = *c.run;
  const RunNode& n = tr.nodes[static_cast<std::size_t>(node)];
  NodeState* states = c.nodes.data();
  states[node].pending = kRetired;
  c.last_done = node;
  // A cp.async's data landing in shared memory stalls the SM's compute pipes
  // (sm.cp_async_fill_stall_cycles per warp instruction, calib_fill): when it is usable, after
  // the transfer and the L2 or HBM latency, not when its last byte left L2.
  if (n.pipe == Pipe::memory && n.port < kSmPorts) {
    if (const double cycles = c.run->tmpl->nodes[static_cast<std::size_t>(node)].fill_stall_cycles; cycles > 0) {
      stall_for_fill(sms_[static_cast<std::size_t>(c.sm)], now,
                     Duration{static_cast<std::int64_t>(std::llround(cycles * c.kr->period_ps))});
    }
  }
  ++node_executions_;
  if (detail_) {
    states[node].done = now;
    if (options_.trace) trace_node(c, node, now);
  }
  for (std::uint32_t e = n.succ_begin; e < n.succ_end; ++e) {
    const RunEdge& edge = tr.edges[e];
    NodeState& succ = states[edge.to];
    const TimePoint ready = now + edge.delay;
    if (ready >= succ.ready_at) {
      succ.ready_at = ready;
      succ.gate = node;
    }
    if (--succ.pending == 0) {
      if (succ.ready_at > now) {
        queue_.push(succ.ready_at, EventType::node_ready, slot, static_cast<std::uint32_t>(edge.to));
      } else {
        dispatch(c, edge.to, now);
      }
    }
  }
  if (--c.remaining == 0) finish_cta(slot, now);
}

void Simulator::trace_node(const CtaRun& c, std::int32_t node, TimePoint now) {
  const Sm& sm = sms_[static_cast<std::size_t>(c.sm)];
  if (!options_.trace->wants_nodes(sm.gpu, sm.index)) return;
  const CompiledTemplate& t = *c.run->tmpl;
  const auto i = static_cast<std::size_t>(node);
  const CompiledNode& n = t.nodes[i];
  options_.trace->node(NodeSlice{sm.gpu, sm.index, c.lane, c.kernel, c.cta,
                                 t.role_names[static_cast<std::size_t>(n.role)], t.node_ids[i],
                                 graph::to_string(n.kind), c.nodes[i].start, now});
}

}  // namespace tgsim::engine
