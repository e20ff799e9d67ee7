// Formatting a simulation Result for people (text) and scripts (JSON). Every JSON report carries
// the resolved GPU spec it was computed with.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/engine/result.h"

namespace tgsim::report {

struct RunContext {
  std::string gpu;           // preset name or file
  nlohmann::json gpu_spec;   // resolved spec (hw::to_json)
  nlohmann::json inputs;     // what was simulated (command, shapes, schedule...)
};

// At least: latency_us, gpu, resources, bottleneck; plus kernels, critical_path, stats, gpu_spec, inputs.
nlohmann::json result_to_json(const engine::Result& r, const RunContext& ctx);

// A short readable summary: latency, kernels, resources with utilisation, bottleneck, critical path.
std::string result_to_text(const engine::Result& r, const RunContext& ctx);

}  // namespace tgsim::report
