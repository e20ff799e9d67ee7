#include "sim/engine/flow_network.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <map>

namespace tgsim::engine {

FlowNetwork::LinkId FlowNetwork::add_link(std::string name, BytesPerSecond capacity) {
  assert(capacity.value > 0);
  Link l;
  l.name = std::move(name);
  l.capacity_bps = capacity.value;
  links_.push_back(std::move(l));
  return static_cast<LinkId>(links_.size() - 1);
}

FlowNetwork::RouteId FlowNetwork::add_route(std::span<const LinkId> links, BytesPerSecond flow_cap) {
  std::vector<LinkId> key(links.begin(), links.end());
  std::sort(key.begin(), key.end());
  key.erase(std::unique(key.begin(), key.end()), key.end());
  assert(!key.empty());
  const double cap = flow_cap.value * 1e-12;
  for (std::size_t r = 0; r < routes_.size(); ++r) {
    if (routes_[r].links == key && routes_[r].cap == cap) return static_cast<RouteId>(r);
  }
  Route route;
  route.links = std::move(key);
  route.cap = cap;
  routes_.push_back(std::move(route));
  return static_cast<RouteId>(routes_.size() - 1);
}

void FlowNetwork::advance(TimePoint now) {
  if (now <= now_) return;
  if (dirty_) recompute_rates();
  const double dt = static_cast<double>((now - now_).count());
  for (RouteId r : active_routes_) {
    Route& route = routes_[r];
    route.virtual_bytes += route.rate * dt;
    const double moved = route.rate * dt * static_cast<double>(route.flows.size());
    for (LinkId l : route.links) links_[l].bytes += moved;
  }
  for (LinkId l : active_links_) {
    if (links_[l].flows > 0) links_[l].busy += now - now_;
  }
  now_ = now;
}

void FlowNetwork::activate(RouteId r) {
  Route& route = routes_[r];
  route.virtual_bytes = 0;
  route.active_index = static_cast<int>(active_routes_.size());
  active_routes_.push_back(r);
}

void FlowNetwork::deactivate(RouteId r) {
  Route& route = routes_[r];
  const int idx = route.active_index;
  const RouteId last = active_routes_.back();
  active_routes_[idx] = last;
  routes_[last].active_index = idx;
  active_routes_.pop_back();
  route.active_index = -1;
  route.rate = 0;
}

void FlowNetwork::start(RouteId route_id, Bytes bytes, TimePoint now, std::uint64_t token) {
  advance(now);
  Route& route = routes_[route_id];
  if (route.active_index < 0) activate(route_id);
  route.flows.push(Pending{route.virtual_bytes + static_cast<double>(std::max<std::int64_t>(bytes.value, 1)),
                           seq_++, token});
  for (LinkId l : route.links) ++links_[l].flows;
  ++active_flows_;
  dirty_ = true;
}

// Max-min fair rates by progressive filling: raise every unfrozen flow's rate together until a
// link saturates, freeze the flows crossing it, repeat.
void FlowNetwork::recompute_rates() {
  dirty_ = false;
  active_links_.clear();
  for (RouteId r : active_routes_) {
    for (LinkId l : routes_[r].links) {
      Link& link = links_[l];
      if (link.unfrozen == 0 && link.remaining >= 0) {
        active_links_.push_back(l);
        link.remaining = -1;  // marks "collected" until reset below
      }
      link.unfrozen += static_cast<int>(routes_[r].flows.size());
    }
    routes_[r].frozen = false;
  }
  for (LinkId l : active_links_) links_[l].remaining = links_[l].capacity_bps * 1e-12;  // bytes per ps

  double level = 0;
  std::size_t unfrozen_routes = active_routes_.size();
  while (unfrozen_routes > 0) {
    double step = std::numeric_limits<double>::infinity();
    for (LinkId l : active_links_) {
      const Link& link = links_[l];
      if (link.unfrozen > 0) step = std::min(step, link.remaining / link.unfrozen);
    }
    for (RouteId r : active_routes_) {
      const Route& route = routes_[r];
      if (!route.frozen && route.cap > 0) step = std::min(step, route.cap - level);
    }
    if (!std::isfinite(step)) break;
    level += step;
    for (LinkId l : active_links_) {
      Link& link = links_[l];
      if (link.unfrozen > 0) link.remaining -= step * link.unfrozen;
    }
    for (RouteId r : active_routes_) {
      Route& route = routes_[r];
      if (route.frozen) continue;
      bool saturated = route.cap > 0 && level >= route.cap * (1 - 1e-12);
      for (LinkId l : route.links) {
        const Link& link = links_[l];
        if (link.remaining <= link.capacity_bps * 1e-12 * 1e-9) saturated = true;
      }
      if (!saturated) continue;
      route.frozen = true;
      route.rate = level;
      --unfrozen_routes;
      for (LinkId l : route.links) links_[l].unfrozen -= static_cast<int>(route.flows.size());
    }
  }
  for (LinkId l : active_links_) {
    links_[l].unfrozen = 0;
    links_[l].remaining = 0;
  }
}

TimePoint FlowNetwork::next_completion() {
  if (active_routes_.empty()) return kNever;
  if (dirty_) recompute_rates();
  TimePoint best = kNever;
  for (RouteId r : active_routes_) {
    const Route& route = routes_[r];
    const double left = std::max(0.0, route.flows.top().target - route.virtual_bytes);
    const auto dt = static_cast<std::int64_t>(std::ceil(left / route.rate));
    best = std::min(best, now_ + Duration{dt});
  }
  return best;
}

void FlowNetwork::take_completed(TimePoint now, std::vector<std::uint64_t>& out) {
  if (dirty_) recompute_rates();
  advance(now);
  // Iterate over a snapshot: deactivate() reorders active_routes_.
  std::vector<RouteId> routes = active_routes_;
  std::sort(routes.begin(), routes.end());
  for (RouteId r : routes) {
    Route& route = routes_[r];
    const double eps = route.rate * 1.0 + 1e-9;  // one picosecond's worth: completion times are rounded up
    while (!route.flows.empty() && route.flows.top().target <= route.virtual_bytes + eps) {
      out.push_back(route.flows.top().token);
      route.flows.pop();
      for (LinkId l : route.links) --links_[l].flows;
      --active_flows_;
      dirty_ = true;
    }
    if (route.flows.empty()) deactivate(r);
  }
}

}  // namespace tgsim::engine
