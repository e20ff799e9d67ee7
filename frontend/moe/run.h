// Simulating one MoE layer and what the report shows (docs/moe.md, "Metrics"):
//   latency      : first kernel start to last kernel end over all GPUs;
//   tensor busy %: per GPU, the time its SMs' tensor pipes run MMAs / (latency x SMs);
//   SM active %  : per GPU, CTA residency / (latency x SMs);
//   comm / compute active: per GPU, the union of the intervals in which any remote_put (comm)
//     or any MMA (compute) is running;
//   overlap %    : per GPU, |comm active ∩ compute active| / |comm active|: the share of the
//     communication time hidden under compute (0 for sequential by construction);
//   work end     : per GPU, when its last remote_put or MMA ends (the layer's latency also waits
//     for results coming back from other GPUs);
//   NVLink %     : the engine's gpuN.nvlink_egress / ingress rows (bytes carried / capacity x run).
#pragma once

#include <cstdint>
#include <vector>

#include "frontend/moe/lower.h"
#include "sim/engine/result.h"
#include "sim/engine/trace_sink.h"

namespace tgsim::moe {

struct GpuMetrics {
  int comm_sms = 0;
  std::int64_t tiles = 0, stolen = 0;
  std::int64_t push_bytes = 0;
  double expert_tflop = 0;
  double tensor_busy = 0, sm_active = 0;  // fractions
  Duration comm_active{0}, compute_active{0}, both_active{0};
  double overlap = 0;  // both / comm (0 when no comm)
  double nvlink_egress = 0, nvlink_ingress = 0;
  Duration work_end{0};  // the GPU's last put or MMA ends (its own share of the layer is done)
  double clock_mhz = 0;  // the GPU's kernels' clocks (clock model), weighted by kernel time
  CostModelTerms cost;
};

struct LayerRun {
  engine::Result result;
  std::vector<GpuMetrics> gpus;
};

// `trace` (may be null) also receives every slice (e.g. a report::ChromeTrace).
LayerRun run_layer(const MoeLayer& l, const LoweredLayer& lowered, const hw::GpuSpec& gpu, const hw::SystemSpec& sys,
                   engine::TraceSink* trace = nullptr);

}  // namespace tgsim::moe
