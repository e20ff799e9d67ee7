// Attention problem + schedule -> tile graph: the attention kernel of the schedule's family and,
// for split-KV (flash-decoding), the combine kernel that follows it.
#pragma once

#include <string>
#include <vector>

#include "frontend/attention/problem.h"
#include "frontend/attention/schedule.h"
#include "sim/graph/tile_graph.h"
#include "sim/hw/gpu_spec.h"

namespace tgsim::attention {

struct LoweredAttention {
  graph::TileGraph graph;
  Schedule schedule;               // as lowered (run-time choices such as the split count resolved)
  std::vector<std::string> notes;  // decisions the lowering made that the schedule did not state
};

// Throws InputError for problems or schedules that are invalid or do not fit the GPU.
LoweredAttention lower_attention(const Problem& p, const Schedule& s, const hw::GpuSpec& spec);

// Checks a problem's fields (positive sizes, heads a multiple of heads_kv, head_dim); InputError.
void check_problem(const Problem& p);

}  // namespace tgsim::attention
