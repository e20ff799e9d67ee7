// Consistency checks of a parsed GpuSpec that no single field can make on its own (SMs per GPC sum
// to sm.count, per-CTA shared memory fits the SM, instruction families match the architecture).
// Internal to spec_json.cpp; errors go through ReadContext so they name the file and JSON path.
#pragma once

#include "sim/hw/gpu_spec.h"
#include "sim/hw/json_reader.h"

namespace tgsim::hw {

// Throws InputError at the first violated rule.
void check_gpu_spec(const GpuSpec& spec, const ReadContext& ctx);

}  // namespace tgsim::hw
