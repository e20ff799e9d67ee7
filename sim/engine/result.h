// What one simulation run produced. Formatting (text, JSON, CSV) lives in sim/report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/units/units.h"

namespace tgsim::engine {

struct KernelStat {
  std::string name;
  int gpu = 0;
  int stream = 0;
  TimePoint start{0};
  TimePoint end{0};
  std::int64_t ctas = 0;
  int max_ctas_per_sm = 0;  // occupancy limit for this kernel's CTA
  double waves = 0;         // ctas / (SMs * max_ctas_per_sm)
  double sm_clock_mhz = 0;  // from the clock model
  double tensor_utilisation = 0;  // tensor-pipe busy / (duration * SMs)
  double simt_utilisation = 0;    // FP32/INT32/uniform pipe busy (not SFU, not fetch) / (duration * SMs)
  double hbm_bytes = 0;           // bytes its loads, stores and write-backs moved through HBM
  double smem_utilisation = 0;    // shared-memory pipe busy / (duration * SMs)
  double l2_bytes = 0;            // bytes its requests moved between the SMs and L2 (hits and misses)
  // What the power limits see at this run's clock, in units of wgmma tensor duty: tensor duty
  // (mma.sync weighted by clock.power_weight_mma_sync) + the spec's SIMT, shared-memory, L2 and
  // clock terms + clock.power_per_hbm_tbps x HBM TB/s / sm_clock (docs/model.md "Power duty").
  // Equal to tensor_utilisation where the spec sets none of these.
  double power_duty = 0;
  bool eight_bit = false;         // most of its tensor work is 8-bit (clock model)
};

// One resource class aggregated over its instances (e.g. the tensor pipes of all SMs).
struct ResourceStat {
  std::string name;      // "tensor", "simt", "smem", "l2_port", "l2", "hbm"
  int instances = 0;
  Duration busy{0};      // summed over instances
  double utilisation = 0;  // average fraction of capacity used over the run
  double amount = 0;       // FLOPs for tensor, bytes for memory links, 0 otherwise
};

struct CriticalSegment {
  std::string what;
  Duration time{0};
};

struct Result {
  Duration latency{0};
  std::vector<KernelStat> kernels;
  std::vector<ResourceStat> resources;
  std::string bottleneck;            // resource with the highest utilisation
  double bottleneck_utilisation = 0;
  // Critical path of the CTA that finished last, aggregated by activity; sums to `latency`.
  std::vector<CriticalSegment> critical_path;
  std::int64_t node_executions = 0;
  std::int64_t events = 0;
  std::int64_t l2_hits = 0;
  std::int64_t l2_misses = 0;
};

}  // namespace tgsim::engine
