// The schedule tgsim assumes when neither a kernel name nor a schedule file is given: a rule of
// the kind libraries use (documented in docs/gemm.md), and the candidate set --autotune searches.
#pragma once

#include <vector>

#include "frontend/gemm/problem.h"
#include "frontend/gemm/schedule.h"
#include "sim/hw/gpu_spec.h"

namespace tgsim::gemm {

// Grouped problems (p.groups > 1, or `grouped`: a grouped kernel even for one group) on Hopper in
// 16-bit types get grouped_default_schedule.
Schedule default_schedule(const Problem& p, const hw::GpuSpec& spec, bool grouped = false);
Schedule grouped_default_schedule(const Problem& p, const hw::GpuSpec& spec);

// Byte alignment (1 to 16) of the problem's leading dimensions in the library's TN view: A and B
// rows of k elements, C columns of m. Below 16 no TMA kernel can run it (default_schedule then
// picks a CUTLASS 2.x cp.async schedule and throws InputError below 4 bytes, or for fp8).
int operand_alignment_bytes(const Problem& p);

// Schedules a library would consider for this problem on this GPU (tile shapes, stages that fit,
// cluster, warp specialisation, split-K); the default is among them.
std::vector<Schedule> candidate_schedules(const Problem& p, const hw::GpuSpec& spec);

}  // namespace tgsim::gemm
