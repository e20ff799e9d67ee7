// Multi-GPU transfers: NVLink ports as flow-network links and remote_put/remote_get nodes as
// flows over them (docs/multigpu.md).
//
// Each GPU has an egress and an ingress link of nvlink.bandwidth (per direction; with NVSwitch a
// GPU's traffic to all its peers shares its own ports, and the switch itself never binds). A
// remote_put from GPU a to GPU b is a flow over {a egress, b ingress}; a remote_get by GPU a from
// b carries data b -> a: {b egress, a ingress}. SM-driven transfers wait in their SM's remote
// FIFO (one in flight per SM, like local loads and stores) and are capped per flow by the SM's
// remote-access rate (compiled_graph.cpp); copy-engine transfers also cross the GPU's copy-engine
// link and start at once. A put retires with its last byte (posted writes; a system-scope
// signal after it pays the cross-GPU latency), a get nvlink.latency after its last byte.
#include <fmt/format.h>

#include "sim/engine/simulator_state.h"

namespace tgsim::engine {

void Simulator::build_nvlink() {
  const hw::SystemSpec& sys = *options_.system;
  const int gpus = std::max(1, graph_.gpus);
  const BytesPerSecond ce_total{sys.copy_engines.bandwidth.value * sys.copy_engines.count};
  for (int g = 0; g < gpus; ++g) {
    egress_link_.push_back(flows_.add_link(fmt::format("gpu{}.nvlink_egress", g), sys.nvlink.bandwidth));
    ingress_link_.push_back(flows_.add_link(fmt::format("gpu{}.nvlink_ingress", g), sys.nvlink.bandwidth));
    copy_engine_link_.push_back(flows_.add_link(fmt::format("gpu{}.copy_engines", g), ce_total));
  }
}

void Simulator::dispatch_remote(CtaRun& c, std::int32_t node, TimePoint now) {
  const RunNode& n = c.run->nodes[static_cast<std::size_t>(node)];
  if (n.port == kNoPort) {
    start_remote(c, node, now);
    return;
  }
  Sm& sm = sms_[static_cast<std::size_t>(c.sm)];
  if (sm.mem_busy[kRemotePort]) {
    sm.mem_queue[kRemotePort].push_back({slot_of(c), node});
    return;
  }
  sm.mem_busy[kRemotePort] = true;
  start_remote(c, node, now);
}

void Simulator::start_remote(CtaRun& c, std::int32_t node, TimePoint now) {
  const CompiledNode& n = c.run->tmpl->nodes[static_cast<std::size_t>(node)];
  const int gpus = std::max(1, graph_.gpus);
  const int own = sms_[static_cast<std::size_t>(c.sm)].gpu;
  const int peer = ((own + n.peer) % gpus + gpus) % gpus;
  const bool put = n.kind == graph::NodeKind::remote_put;
  const auto src = static_cast<std::size_t>(put ? own : peer);
  const auto dst = static_cast<std::size_t>(put ? peer : own);
  std::vector<FlowNetwork::LinkId> links{egress_link_[src], ingress_link_[dst]};
  if (n.engine == graph::MemEngine::copy_engine) links.push_back(copy_engine_link_[static_cast<std::size_t>(own)]);
  const FlowNetwork::RouteId route = flows_.add_route(links, BytesPerSecond{n.remote_cap_bps});
  if (detail_) {
    c.hit[static_cast<std::size_t>(node)] = 0;
    c.nodes[static_cast<std::size_t>(node)].start = now;
  }
  // The token's hit bit stays clear: flows_done then adds RunNode::after_miss (= after_hit).
  const std::uint64_t token = (static_cast<std::uint64_t>(slot_of(c)) << 32) | static_cast<std::uint32_t>(node);
  flows_.start(route, Bytes{n.fetch_bytes}, now, token);
}

void Simulator::add_nvlink_stats(Result& r, double span) const {
  const auto add = [&](const std::string& name, FlowNetwork::LinkId id) {
    ResourceStat s{name, 1};
    s.busy = flows_.link_busy(id);
    s.amount = flows_.link_bytes(id);
    const double cap = flows_.link_capacity(id).value * span * 1e-12;
    s.utilisation = cap > 0 ? s.amount / cap : 0;
    r.resources.push_back(s);
  };
  for (std::size_t g = 0; g < egress_link_.size(); ++g) {
    add(fmt::format("gpu{}.nvlink_egress", g), egress_link_[g]);
    add(fmt::format("gpu{}.nvlink_ingress", g), ingress_link_[g]);
  }
}

}  // namespace tgsim::engine
