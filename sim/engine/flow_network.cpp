#include "sim/engine/flow_network.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <map>

namespace tgsim::engine {

namespace {
// A link's weighted unfrozen count is a sum of positive weights; below this it is zero up to
// rounding (after the weights of frozen routes were subtracted).
constexpr double kUnfrozenEps = 1e-9;
}  // namespace

FlowNetwork::LinkId FlowNetwork::add_link(std::string name, BytesPerSecond capacity) {
  assert(capacity.value > 0);
  Link l;
  l.name = std::move(name);
  l.capacity_bps = capacity.value;
  links_.push_back(std::move(l));
  return static_cast<LinkId>(links_.size() - 1);
}

FlowNetwork::RouteId FlowNetwork::add_route(std::span<const LinkId> links, BytesPerSecond flow_cap) {
  const std::vector<double> ones(links.size(), 1.0);
  return add_route(links, ones, flow_cap);
}

FlowNetwork::RouteId FlowNetwork::add_route(std::span<const LinkId> links, std::span<const double> weights,
                                            BytesPerSecond flow_cap) {
  assert(links.size() == weights.size());
  std::vector<std::pair<LinkId, double>> pairs;
  for (std::size_t i = 0; i < links.size(); ++i) {
    assert(weights[i] > 0);
    pairs.emplace_back(links[i], weights[i]);
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
              pairs.end());
  assert(!pairs.empty());
  std::vector<LinkId> key;
  std::vector<double> w;
  for (const auto& [l, x] : pairs) {
    key.push_back(l);
    w.push_back(x);
  }
  const double cap = flow_cap.value * 1e-12;
  for (std::size_t r = 0; r < routes_.size(); ++r) {
    if (routes_[r].links == key && routes_[r].weights == w && routes_[r].cap == cap) return static_cast<RouteId>(r);
  }
  Route route;
  route.links = std::move(key);
  route.weights = std::move(w);
  route.cap = cap;
  routes_.push_back(std::move(route));
  return static_cast<RouteId>(routes_.size() - 1);
}

void FlowNetwork::advance(TimePoint now) {
  if (now <= now_) return;
  next_valid_ = false;
  if (dirty_) recompute_rates();
  const double dt = static_cast<double>((now - now_).count());
  for (RouteId r : active_routes_) {
    Route& route = routes_[r];
    route.virtual_bytes += route.rate * dt;
    const double moved = route.rate * dt * static_cast<double>(route.flows.size());
    for (std::size_t i = 0; i < route.links.size(); ++i) links_[route.links[i]].bytes += moved * route.weights[i];
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
  routes_changed_ = true;
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
  routes_changed_ = true;
}

void FlowNetwork::FlowQueue::pop() {
  if (++head_ == items_.size()) {
    items_.clear();
    head_ = 0;
  }
}

// The new flow has the largest sequence number, so it goes after every flow with a target not
// above its own.
void FlowNetwork::FlowQueue::push(double target, std::uint64_t seq, std::uint64_t token) {
  if (head_ >= 64 && head_ * 2 >= items_.size()) {  // drop the consumed prefix now and then
    items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  if (empty() || items_.back().target <= target) {
    items_.push_back(Pending{target, seq, token});
    return;
  }
  const auto pos = std::upper_bound(items_.begin() + static_cast<std::ptrdiff_t>(head_), items_.end(), target,
                                    [](double t, const Pending& q) { return t < q.target; });
  items_.insert(pos, Pending{target, seq, token});
}

void FlowNetwork::start(RouteId route_id, Bytes bytes, TimePoint now, std::uint64_t token) {
  advance(now);
  Route& route = routes_[route_id];
  if (route.active_index < 0) activate(route_id);
  route.flows.push(route.virtual_bytes + static_cast<double>(std::max<std::int64_t>(bytes.value, 1)), seq_++, token);
  for (LinkId l : route.links) ++links_[l].flows;
  ++active_flows_;
  dirty_ = true;
  next_valid_ = false;
}

std::size_t FlowNetwork::memo_slot(const MemoKey& k) {
  std::uint64_t h = 0;
  for (std::uint64_t v : k) h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
  return static_cast<std::size_t>(h >> 40) & (kMemoSlots - 1);
}

bool FlowNetwork::memo_key(MemoKey& key) const {
  if (active_routes_.size() > kMemoRoutes) return false;
  key.fill(~std::uint64_t{0});
  std::size_t n = 0;
  for (RouteId r : active_routes_) {  // insertion sort: at most kMemoRoutes entries
    const std::uint64_t v = (static_cast<std::uint64_t>(r) << 32) | routes_[r].flows.size();
    std::size_t i = n++;
    for (; i > 0 && key[i - 1] > v; --i) key[i] = key[i - 1];
    key[i] = v;
  }
  return true;
}

void FlowNetwork::collect_active_links() {
  active_links_.clear();
  for (RouteId r : active_routes_) {
    for (LinkId l : routes_[r].links) {
      if (!links_[l].collected) {
        links_[l].collected = true;
        active_links_.push_back(l);
      }
    }
  }
  for (LinkId l : active_links_) links_[l].collected = false;
}

// Rates depend only on each active route's flow count (progressive filling's arithmetic does not
// depend on the order of routes or links), so a memoised result is exactly what it would compute.
void FlowNetwork::recompute_rates() {
  dirty_ = false;
  if (routes_changed_) {
    collect_active_links();
    routes_changed_ = false;
    last_valid_ = false;  // a route that went idle and came back had its rate reset
  }
  MemoKey key;
  const bool memoisable = memo_key(key);
  if (memoisable) {
    // Same counts as the rates now set (a flow finished and the next began on the same route).
    if (last_valid_ && key == last_key_) return;
    if (memo_.empty()) memo_.resize(kMemoSlots);
    if (const MemoEntry& m = memo_[memo_slot(key)]; m.valid && m.key == key) {
      for (std::size_t i = 0; i < kMemoRoutes && key[i] != ~std::uint64_t{0}; ++i) {
        routes_[static_cast<RouteId>(key[i] >> 32)].rate = m.rates[i];
      }
      last_key_ = key;
      last_valid_ = true;
      return;
    }
  }
  last_valid_ = false;
  // A route left unfrozen keeps its previous rate (history), so only complete results are kept.
  if (!progressive_filling() || !memoisable) return;
  MemoEntry& m = memo_[memo_slot(key)];  // direct-mapped: replaces whatever was there
  m.valid = true;
  m.key = key;
  for (std::size_t i = 0; i < kMemoRoutes && key[i] != ~std::uint64_t{0}; ++i) {
    m.rates[i] = routes_[static_cast<RouteId>(key[i] >> 32)].rate;
  }
  last_key_ = key;
  last_valid_ = true;
}

// Max-min fair rates by progressive filling: raise every unfrozen flow's rate together until a
// link saturates, freeze the flows crossing it, repeat. Returns whether every route was frozen.
bool FlowNetwork::progressive_filling() {
  for (RouteId r : active_routes_) {
    const Route& route = routes_[r];
    const auto n = static_cast<double>(route.flows.size());
    for (std::size_t i = 0; i < route.links.size(); ++i) links_[route.links[i]].unfrozen += n * route.weights[i];
    routes_[r].frozen = false;
  }
  for (LinkId l : active_links_) links_[l].remaining = links_[l].capacity_bps * 1e-12;  // bytes per ps

  double level = 0;
  std::size_t unfrozen_routes = active_routes_.size();
  while (unfrozen_routes > 0) {
    double step = std::numeric_limits<double>::infinity();
    for (LinkId l : active_links_) {
      const Link& link = links_[l];
      if (link.unfrozen > kUnfrozenEps) step = std::min(step, link.remaining / link.unfrozen);
    }
    for (RouteId r : active_routes_) {
      const Route& route = routes_[r];
      if (!route.frozen && route.cap > 0) step = std::min(step, route.cap - level);
    }
    if (!std::isfinite(step)) break;
    level += step;
    for (LinkId l : active_links_) {
      Link& link = links_[l];
      if (link.unfrozen > kUnfrozenEps) link.remaining -= step * link.unfrozen;
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
      const auto n = static_cast<double>(route.flows.size());
      for (std::size_t i = 0; i < route.links.size(); ++i) links_[route.links[i]].unfrozen -= n * route.weights[i];
    }
  }
  for (LinkId l : active_links_) {
    links_[l].unfrozen = 0;
    links_[l].remaining = 0;
  }
  return unfrozen_routes == 0;
}

// std::ceil for a non-negative quotient below 2^63 (what a completion time is), without the
// library call.
std::int64_t FlowNetwork::ceil_to_int(double q) {
  auto i = static_cast<std::int64_t>(q);
  if (static_cast<double>(i) < q) ++i;
  return i;
}

TimePoint FlowNetwork::next_completion() {
  if (next_valid_) return next_;
  next_valid_ = true;
  next_ = kNever;
  if (active_routes_.empty()) return next_;
  if (dirty_) recompute_rates();
  for (RouteId r : active_routes_) {
    const Route& route = routes_[r];
    const double left = std::max(0.0, route.flows.top().target - route.virtual_bytes);
    const auto dt = ceil_to_int(left / route.rate);
    next_ = std::min(next_, now_ + Duration{dt});
  }
  return next_;
}

void FlowNetwork::take_completed(TimePoint now, std::vector<std::uint64_t>& out) {
  if (dirty_) recompute_rates();
  advance(now);
  next_valid_ = false;
  // Routes with a finished flow, handled in id order (the deterministic output order). Only they
  // can become idle: an active route always holds a flow.
  done_routes_.clear();
  for (RouteId r : active_routes_) {
    const Route& route = routes_[r];
    const double eps = route.rate * 1.0 + 1e-9;  // one picosecond's worth: completion times are rounded up
    if (route.flows.top().target <= route.virtual_bytes + eps) done_routes_.push_back(r);
  }
  // Insertion sort: usually one or two routes.
  for (std::size_t i = 1; i < done_routes_.size(); ++i) {
    for (std::size_t j = i; j > 0 && done_routes_[j - 1] > done_routes_[j]; --j) {
      std::swap(done_routes_[j - 1], done_routes_[j]);
    }
  }
  for (RouteId r : done_routes_) {
    Route& route = routes_[r];
    const double eps = route.rate * 1.0 + 1e-9;
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
