// Import of GEMM schedules from the kernel names a profiler prints (nsys, torch.profiler, CUPTI).
// The grammars, with real examples and what each field means, are in docs/kernel-names.md.
//
// Contract: a name is either decoded field by field or reported unsupported with a reason; nothing is
// guessed silently. A field the name does not carry keeps the Schedule default (or comes from `dtype`),
// and every assumption or ignored token is listed in `notes`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontend/gemm/schedule.h"
#include "sim/units/dtype.h"

namespace tgsim::gemm {

struct KernelNameResult {
  bool supported = false;  // false: `reason` says why (never guess silently)
  std::string reason;
  Schedule schedule;                 // tile sizes etc. in the library's own m/n view, as written in the name
  bool has_splitk_reduce = false;    // the list also held a split-K reduction kernel (e.g. splitKreduce_kernel)
  std::vector<std::string> kernels;  // the individual names, in order
  std::vector<std::string> notes;    // assumptions made and tokens ignored, one per line
  // The name does not say the cluster shape / whether the kernel is persistent (xmma names carry
  // neither): resolve() takes them from the recorded launch where it has one (Request::launch_*).
  bool cluster_from_launch = false;
  bool persistence_from_launch = false;
};

// One name, or a ';'-separated list as in the measurement CSV's `kernel` column (a GEMM kernel
// followed by its split-K reduction kernel). `dtype` fills types the name does not carry.
KernelNameResult parse_gemm_kernel_names(std::string_view names, DType dtype);

}  // namespace tgsim::gemm
