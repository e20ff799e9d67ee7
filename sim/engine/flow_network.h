// Bandwidth sharing between concurrent transfers ("flows"). Links (the L2, HBM, NVLink ports)
// have capacities; a flow follows a route (a set of links) and may be capped on its own (the
// SM's port to L2: one SM cannot fill HBM). Rates are max-min fair (progressive filling) and are
// recomputed only when the set of flows changes, which is exact for bandwidth-bound phases and
// cheap. Flows on the same route always get the same rate, so they are grouped per route with a
// virtual-time counter: starting or finishing a flow costs O(active routes + active links) (plus
// flows on the route in the rare case a flow does not go last), independent of the number of SMs.
//
// Rates are a pure function of the flow count on each active route, and bandwidth-bound phases
// revisit the same few combinations, so for a few active routes the rates are memoised (the
// memo returns exactly what progressive filling computed). The next completion time is cached
// until a flow starts or finishes.
#pragma once

#include <array>
#include <cstdint>
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
  // The same with a weight per link: a flow at rate r takes weight x r of that link's capacity
  // (and counts weight x its bytes there), e.g. 2 for a link a transfer crosses twice. Weights
  // are positive; the same links, weights and cap return the same id.
  RouteId add_route(std::span<const LinkId> links, std::span<const double> weights, BytesPerSecond flow_cap = {});

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
    double unfrozen = 0;      // weighted count of the unfrozen flows crossing it
    bool collected = false;   // scratch for collect_active_links
  };
  struct Pending {
    double target;  // route virtual bytes at which this flow is done
    std::uint64_t seq;
    std::uint64_t token;
  };
  // A route's flows in completion order (target, then start order). A new flow almost always
  // goes last (equal-size transfers finish in start order), so a sorted vector with a moving
  // head makes start and finish O(1) in the common case.
  class FlowQueue {
   public:
    bool empty() const { return head_ == items_.size(); }
    std::size_t size() const { return items_.size() - head_; }
    const Pending& top() const { return items_[head_]; }
    void pop();
    void push(double target, std::uint64_t seq, std::uint64_t token);

   private:
    std::vector<Pending> items_;
    std::size_t head_ = 0;
  };
  struct Route {
    std::vector<LinkId> links;
    std::vector<double> weights;  // per link, parallel to links
    FlowQueue flows;
    double virtual_bytes = 0;  // bytes delivered to each flow of this route since it became active
    double rate = 0;           // bytes per picosecond, per flow
    double cap = 0;            // per-flow cap, bytes per picosecond (0: none)
    bool frozen = false;       // scratch for progressive filling
    int active_index = -1;     // position in active_routes_, -1 when idle
  };

  // Up to kMemoRoutes active routes: (route id << 32 | flow count) per route, ascending, padded
  // with ~0; the rates are stored in the same order.
  static constexpr std::size_t kMemoRoutes = 4;
  static constexpr std::size_t kMemoSlots = 4096;  // direct-mapped
  using MemoKey = std::array<std::uint64_t, kMemoRoutes>;
  struct MemoEntry {
    MemoKey key{};
    std::array<double, kMemoRoutes> rates{};
    bool valid = false;
  };
  static std::size_t memo_slot(const MemoKey& k);
  static std::int64_t ceil_to_int(double q);

  void advance(TimePoint now);
  void recompute_rates();
  bool progressive_filling();
  void collect_active_links();
  bool memo_key(MemoKey& key) const;
  void activate(RouteId r);
  void deactivate(RouteId r);

  std::vector<Link> links_;
  std::vector<Route> routes_;
  std::vector<RouteId> active_routes_;
  std::vector<LinkId> active_links_;  // links of the active routes, set by recompute_rates
  bool routes_changed_ = true;        // active_routes_ changed since active_links_ was set
  std::vector<RouteId> done_routes_;  // scratch for take_completed
  std::vector<MemoEntry> memo_;  // kMemoSlots entries once used
  TimePoint now_{0};
  std::uint64_t seq_ = 0;
  int active_flows_ = 0;
  bool dirty_ = false;        // flows changed since the rates were computed
  bool next_valid_ = false;   // next_ is up to date
  TimePoint next_{kNever};
  MemoKey last_key_{};        // flow counts behind the rates now set, when last_valid_
  bool last_valid_ = false;
};

}  // namespace tgsim::engine
