#include "frontend/gemm/request.h"

#include <algorithm>

#include <fmt/format.h>

#include "frontend/gemm/default_schedule.h"
#include "frontend/gemm/kernel_names.h"
#include "frontend/gemm/schedule_json.h"
#include "sim/units/error.h"

namespace tgsim::gemm {

Resolved resolve(const Request& r, const hw::GpuSpec& spec) {
  Resolved out;
  const DType out_type = r.out_dtype.value_or(default_output_type(r.dtype));
  // Grouped kernels (CUTLASS pointer-array, torch._grouped_mm) tile the row-major problem as it is
  // stated (m = tokens per group): no swap to a column-major library's view.
  const bool swap = r.row_major && !(r.grouped || r.groups > 1);
  out.problem = swap ? from_row_major(r.m, r.n, r.k, r.dtype, out_type) : Problem{r.m, r.n, r.k, 1, r.dtype, r.dtype, out_type};
  out.problem.groups = std::max<std::int64_t>(1, r.groups);
  if (!r.kernel.empty() && !r.schedule_file.empty())
    throw InputError("--kernel and --schedule both given: pick one way to state the schedule");
  if (!r.kernel.empty()) {
    KernelNameResult k = parse_gemm_kernel_names(r.kernel, r.dtype);
    if (!k.supported) throw InputError(fmt::format("kernel \"{}\" is not supported: {}", r.kernel, k.reason));
    out.schedule = k.schedule;
    out.schedule_source = "kernel";
    out.notes = k.notes;
    if (out.schedule.name.empty()) out.schedule.name = k.kernels.empty() ? r.kernel : k.kernels.front();
  } else if (!r.schedule_file.empty()) {
    out.schedule = read_schedule(r.schedule_file);
    out.schedule_source = "schedule file";
  } else {
    out.schedule = default_schedule(out.problem, spec, r.grouped);
    out.schedule_source = "default rule";
  }
  // The problem's types win over what a name implied (a name may carry no types at all).
  out.schedule.a_type = out.problem.a_type;
  out.schedule.b_type = out.problem.b_type;
  out.schedule.c_type = out.problem.c_type;
  return out;
}

}  // namespace tgsim::gemm
