// The event queue: ordered by (time, priority, insertion sequence), so equal-time events are
// handled in a fixed order and every run of the same input is identical.
//
// Replay pushes and pops ~1.5 events per node execution, so this is the engine's hottest data
// structure. It is a radix heap: it relies on event times never going below the time of the
// last event popped (the replay never schedules into the past), and files each event in bucket
// bit_width(time ^ last), so a push is O(1) and each event moves down a few buckets in its
// life. Events at the current minimum time wait in one FIFO per priority, each in sequence
// order, so the pop order is exactly the (time, priority, sequence) order.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <vector>

#include "sim/units/units.h"

namespace tgsim::engine {

enum class EventType : std::uint8_t {
  node_done = 0,  // a node's result is usable: retire it, release successors
  node_ready = 1,  // a node's inputs are all usable: dispatch it
  cta_start = 2,   // a placed CTA begins executing
  kernel_launch = 3,
  port_free = 4,  // an SM's read port has received a multicast tile: take the next request
};

struct Event {
  TimePoint time;
  std::uint64_t order;  // type in the top 3 bits, insertion sequence below
  std::uint32_t a;      // CTA slot or kernel index
  std::uint32_t b;      // node index

  EventType type() const { return static_cast<EventType>(order >> kSeqBits); }

  static constexpr int kSeqBits = 61;
};

class EventQueue {
 public:
  void push(TimePoint t, EventType type, std::uint32_t a, std::uint32_t b = 0) {
    assert(t >= last_);
    const Event e{t, (static_cast<std::uint64_t>(type) << Event::kSeqBits) | seq_++, a, b};
    if (t == last_) {
      to_current(e);  // the newest sequence number: last among its type
    } else {
      file(e);
    }
  }
  bool empty() const { return (current_types_ | nonempty_) == 0; }
  // Time of the next event, kNever when empty (empty buckets hold kNever as their minimum).
  TimePoint next_time() const {
    const std::int64_t later = bucket_min_[static_cast<std::size_t>(std::countr_zero(nonempty_ | kTopBucket))].count();
    const std::int64_t now = -static_cast<std::int64_t>(current_types_ != 0);  // all ones: events at last_
    return Duration{(last_.count() & now) | (later & ~now)};  // a select, not a branch: it would mispredict
  }
  Event pop() {
    if (current_types_ == 0) refill();
    const auto t = static_cast<std::size_t>(std::countr_zero(current_types_));
    std::vector<Event>& q = current_[t];
    const Event e = q[current_head_[t]++];
    if (current_head_[t] == q.size()) {
      q.clear();
      current_head_[t] = 0;
      current_types_ &= ~(std::uint64_t{1} << t);
    }
    return e;
  }
  // Events pushed so far (reported as Result::events).
  std::uint64_t pushed() const { return seq_; }

 private:
  static constexpr std::size_t kBuckets = 64;  // times are non-negative int64: 63 bits differ at most
  static constexpr std::size_t kTypes = 5;
  static constexpr std::uint64_t kTopBucket = std::uint64_t{1} << (kBuckets - 1);

  void to_current(const Event& e) {
    const auto t = static_cast<std::size_t>(e.type());
    current_[t].push_back(e);
    current_types_ |= std::uint64_t{1} << t;
  }
  // Bucket k > 0 holds events whose time first differs from last_ in bit k - 1; bucket 0 is
  // refill's scratch for events at last_.
  void file(const Event& e) {
    const auto k = static_cast<std::size_t>(std::bit_width(static_cast<std::uint64_t>(e.time.count() ^ last_.count())));
    buckets_[k].push_back(e);
    const std::int64_t t = e.time.count();
    const std::int64_t m = bucket_min_[k].count();
    bucket_min_[k] = Duration{t < m ? t : m};  // by value: std::min's reference tends to a branch
    nonempty_ |= std::uint64_t{1} << k;
  }
  // Advances last_ to the earliest time (the minimum of the lowest non-empty bucket) and
  // re-files that bucket: its events at that time land in bucket 0 (no branch per event) and
  // become current in (type, sequence) order; the others move to lower buckets. Events in higher
  // buckets stay valid: the new last_ keeps every bit of the old one above the refilled bucket's.
  void refill() {
    const auto k = static_cast<std::size_t>(std::countr_zero(nonempty_));
    last_ = bucket_min_[k];
    bucket_min_[k] = kNever;
    nonempty_ &= ~(std::uint64_t{1} << k);
    for (const Event& e : buckets_[k]) file(e);
    buckets_[k].clear();
    std::vector<Event>& batch = buckets_[0];
    const auto by_order = [](const Event& x, const Event& y) { return x.order < y.order; };
    if (!std::is_sorted(batch.begin(), batch.end(), by_order)) std::sort(batch.begin(), batch.end(), by_order);
    for (const Event& e : batch) to_current(e);
    batch.clear();
    bucket_min_[0] = kNever;
    nonempty_ &= ~std::uint64_t{1};
  }

  // Events at time last_, one FIFO per type, each in sequence order; current_head_ is the next.
  std::array<std::vector<Event>, kTypes> current_;
  std::array<std::size_t, kTypes> current_head_{};
  std::uint64_t current_types_ = 0;  // bit t: current_[t] has events left
  std::array<std::vector<Event>, kBuckets> buckets_;
  std::array<TimePoint, kBuckets> bucket_min_ = filled(kNever);
  std::uint64_t nonempty_ = 0;  // bit k: buckets_[k] is not empty
  TimePoint last_{0};           // time of the last event popped (all queued events are at or after it)
  std::uint64_t seq_ = 0;

  static std::array<TimePoint, kBuckets> filled(TimePoint t) {
    std::array<TimePoint, kBuckets> a;
    a.fill(t);
    return a;
  }
};

}  // namespace tgsim::engine
