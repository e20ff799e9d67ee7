// Bandwidth sharing between concurrent transfers ("flows"). Links (the L2, HBM, NVLink ports)
// have capacities; a flow follows a route (a set of links) and may be capped on its own (the
// SM's port to L2: one SM cannot fill HBM). Rates are max-min fair (progressive filling) and are
// recomputed only when the set of flows changes, which is exact for bandwidth-bound phases and
// cheap. Flows on the same route always get the same rate, so they are grouped per route with a
// virtual-time counter: starting or finishing a flow costs O(active routes + active links +
// log flows), independent of the number of SMs.
#pragma once

#include <cstdint>
#include <queue>
#include <span>
#include <string>
#include <vector>

#include "sim/units/units.h"

namespace tgsim::engine {

class FlowNetwork {
 public:
  using LinkId = int;
  using RouteId = int;

  LinkId add_link(std::string name, BytesPerSecond capacity);
  // Interns a route over `links` (order irrelevant) whose flows each run at most at
  // `flow_cap` (0: no cap); the same links and cap return the same id.
  RouteId add_route(std::span<const LinkId> links, BytesPerSecond flow_cap = {});

  // Starts a flow of `bytes` on `route` at `now`; `token` comes back from take_completed.
  void start(RouteId route, Bytes bytes, TimePoint now, std::uint64_t token);
  // Time the next flow finishes (kNever when idle). Recomputes rates if flows changed.
  TimePoint next_completion();
  // Removes every flow that has finished by `now` (now == next_completion()) and appends
  // their tokens, in a deterministic order, to `out`.
  void take_completed(TimePoint now, std::vector<std::uint64_t>& out);

  int active_flows() const { return active_flows_; }
  // Time each link carried at least one flow, and bytes it carried (for utilisation).
  Duration link_busy(LinkId l) const { return links_[l].busy; }
  double link_bytes(LinkId l) const { return links_[l].bytes; }
  BytesPerSecond link_capacity(LinkId l) const { return {links_[l].capacity_bps}; }
  const std::string& link_name(LinkId l) const { return links_[l].name; }
  int link_count() const { return static_cast<int>(links_.size()); }
  // Brings busy-time and byte counters up to `now` (call before reading them at the end).
  void settle(TimePoint now) { advance(now); }

 private:
  struct Link {
    std::string name;
    double capacity_bps = 0;  // bytes per second
    Duration busy{0};
    double bytes = 0;
    int flows = 0;            // active flows crossing it
    // scratch for progressive filling
    double remaining = 0;
    int unfrozen = 0;
  };
  struct Pending {
    double target;  // route virtual bytes at which this flow is done
    std::uint64_t seq;
    std::uint64_t token;
    bool operator>(const Pending& o) const { return target != o.target ? target > o.target : seq > o.seq; }
  };
  struct Route {
    std::vector<LinkId> links;
    std::priority_queue<Pending, std::vector<Pending>, std::greater<>> flows;
    double virtual_bytes = 0;  // bytes delivered to each flow of this route since it became active
    double rate = 0;           // bytes per picosecond, per flow
    double cap = 0;            // per-flow cap, bytes per picosecond (0: none)
    bool frozen = false;       // scratch for progressive filling
    int active_index = -1;     // position in active_routes_, -1 when idle
  };

  void advance(TimePoint now);
  void recompute_rates();
  void activate(RouteId r);
  void deactivate(RouteId r);

  std::vector<Link> links_;
  std::vector<Route> routes_;
  std::vector<RouteId> active_routes_;
  std::vector<LinkId> active_links_;  // scratch
  TimePoint now_{0};
  std::uint64_t seq_ = 0;
  int active_flows_ = 0;
  bool dirty_ = false;
};

}  // namespace tgsim::engine
