// Simulating an LLM step: each layer group's kernel sequence becomes one tile graph on one
// stream (so launch gaps and per-kernel clocks are modelled), simulated once and scaled by the
// group's layer count.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "frontend/llm/step.h"
#include "sim/graph/tile_graph.h"
#include "sim/hw/gpu_spec.h"

namespace tgsim::llm {

struct StepOptions {
  bool cuda_graph = false;  // kernels launched from a CUDA graph (smaller gaps)
  bool l2_starts_dirty = true;
  // Time of one all-reduce of `bytes` per GPU over the tensor-parallel group (tp > 1 only).
  std::function<double(double bytes)> all_reduce_us;
  std::function<void(int done, int total)> progress;
};

struct KernelRow {
  std::string group;
  std::string name;
  std::string schedule;   // kernel or schedule simulated
  std::int64_t calls = 0;  // per step
  double us_per_call = 0;
  double total_us = 0;
};

struct StepResult {
  double total_us = 0;
  double kernel_us = 0;  // time inside kernels
  double gap_us = 0;     // launch gaps between them (and the first launch)
  std::int64_t tokens = 0;
  std::int64_t kernels = 0;  // launched per step
  std::vector<KernelRow> rows;
  std::vector<std::string> notes;
};

StepResult simulate_step(const StepPlan& plan, const ModelConfig& m, const hw::GpuSpec& spec, const StepOptions& o);

// One layer of each group and the head in one graph (all-reduces left out): what --trace shows.
graph::TileGraph sample_graph(const StepPlan& plan, const ModelConfig& m, const hw::GpuSpec& spec, bool cuda_graph);

}  // namespace tgsim::llm
