// Internal state of the Simulator (shared by its .cpp files; not part of the public API).
#pragma once

#include <array>
#include <deque>
#include <vector>

#include "sim/engine/simulator.h"

namespace tgsim::engine {

constexpr int kMaxSubPartitions = 8;

struct Simulator::Sm {
  int gpu = 0;
  int index = 0;  // within its GPU
  int gpc = 0;
  // occupancy in use
  int threads = 0;
  int warps = 0;
  int registers = 0;
  std::int64_t shared_memory = 0;
  int ctas = 0;
  std::uint64_t lanes = 0;  // residency slots in use (bit per lane), for traces
  // pipes: when each becomes free
  std::array<TimePoint, kMaxSubPartitions> tensor_free{};
  std::array<TimePoint, kMaxSubPartitions> simt_free{};
  TimePoint smem_free{0};
  // busy time, in SM-equivalents (a sub-partition counts 1/sub_partitions)
  double tensor_busy_ps = 0;
  double simt_busy_ps = 0;
  double smem_busy_ps = 0;
  double flops = 0;
  // Memory requests of one SM stream through its port in issue order, one flow at a time per
  // direction (0: reads, 1: writes); latency overlaps with the next transfer.
  struct MemRequest {
    std::uint32_t slot;
    std::int32_t node;
  };
  std::array<std::deque<MemRequest>, 2> mem_queue;
  std::array<bool, 2> mem_busy{false, false};
  double port_bytes = 0;  // bytes through this SM's L2 port (utilisation)
  FlowNetwork::RouteId route_hit = -1;
  FlowNetwork::RouteId route_miss = -1;
};

struct Simulator::KernelRun {
  int index = 0;
  int waiting_on = 0;        // predecessors (stream order + after) not yet finished
  std::vector<int> successors;
  bool launched = false;      // launch event queued
  bool started = false;       // launch event handled: CTAs may be placed
  bool finished = false;
  TimePoint ready_at{0};     // when all predecessors finished
  TimePoint start{0};
  TimePoint end{0};
  std::int64_t next_cta = 0;  // next CTA (blockIdx) to place
  std::int64_t done_ctas = 0;
  std::size_t next_group = 0;
  double period_ps = 1000;    // SM clock period for this kernel
  double hz = 1e9;
  int max_ctas_per_sm = 0;
  double tensor_busy_ps = 0;
};

struct Simulator::CtaRun {
  bool active = false;
  int kernel = 0;
  int tmpl = 0;
  std::int64_t cta = 0;
  int sm = 0;  // global SM index
  int lane = 0;
  const std::int64_t* params = nullptr;
  int remaining = 0;
  TimePoint start{0};
  std::vector<std::int32_t> pending;
  std::vector<TimePoint> ready_at;
  // per node timing for the critical path and trace
  std::vector<std::int32_t> gate;  // predecessor whose result arrived last (-1: CTA start)
  std::vector<TimePoint> t_ready, t_start, t_done;
  std::vector<std::uint8_t> hit;  // memory nodes: 1 = L2 hit
  std::int32_t last_done = -1;
};

struct Simulator::FlagSlot {
  std::int64_t value = 0;
  struct Waiter {
    std::uint32_t slot;
    std::int32_t node;
    std::int64_t threshold;
  };
  std::vector<Waiter> waiters;
};

}  // namespace tgsim::engine
