// The event queue: ordered by (time, priority, insertion sequence), so equal-time events are
// handled in a fixed order and every run of the same input is identical.
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

#include "sim/units/units.h"

namespace tgsim::engine {

enum class EventType : std::uint8_t {
  node_done = 0,  // a node's result is usable: retire it, release successors
  node_ready = 1,  // a node's inputs are all usable: dispatch it
  cta_start = 2,   // a placed CTA begins executing
  kernel_launch = 3,
};

struct Event {
  TimePoint time;
  std::uint64_t seq;
  EventType type;
  std::uint32_t a;  // CTA slot or kernel index
  std::uint32_t b;  // node index
};

struct EventLater {
  bool operator()(const Event& x, const Event& y) const {
    if (x.time != y.time) return x.time > y.time;
    if (x.type != y.type) return x.type > y.type;
    return x.seq > y.seq;
  }
};

class EventQueue {
 public:
  void push(TimePoint t, EventType type, std::uint32_t a, std::uint32_t b = 0) {
    heap_.push(Event{t, seq_++, type, a, b});
  }
  bool empty() const { return heap_.empty(); }
  const Event& top() const { return heap_.top(); }
  Event pop() {
    Event e = heap_.top();
    heap_.pop();
    return e;
  }
  std::uint64_t pushed() const { return seq_; }

 private:
  std::priority_queue<Event, std::vector<Event>, EventLater> heap_;
  std::uint64_t seq_ = 0;
};

}  // namespace tgsim::engine
