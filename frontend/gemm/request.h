// From what a user or a measurement row states (shape, dtype, kernel name or schedule file) to a
// Problem and Schedule in the library's view, ready to lower.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "frontend/gemm/problem.h"
#include "frontend/gemm/schedule.h"
#include "sim/hw/gpu_spec.h"

namespace tgsim::gemm {

struct Request {
  std::int64_t m = 0, n = 0, k = 0;  // as the caller states them (see row_major)
  std::int64_t groups = 1;           // grouped GEMM: this many problems of m x n x k in one launch
  bool grouped = false;              // a grouped kernel ran (even for one group): its default rule applies
  DType dtype = DType::bf16;
  std::optional<DType> out_dtype;    // default: default_output_type(dtype)
  bool row_major = true;             // true: PyTorch view, cuBLAS m = n, n = m
  std::string kernel;                // kernel name(s) from a profile, ';'-separated
  std::string schedule_file;
  // The GEMM kernel's launch as a profiler recorded it (grid and cluster dims; 0: not recorded).
  // Used only for what its name leaves out (KernelNameResult::*_from_launch).
  std::array<int, 3> launch_grid{0, 0, 0};
  std::array<int, 3> launch_cluster{0, 0, 0};
};

struct Resolved {
  Problem problem;
  Schedule schedule;
  std::string schedule_source;  // "kernel", "schedule file" or "default rule"
  std::vector<std::string> notes;
};

// Throws InputError for an unsupported kernel name (with the parser's reason) or a bad schedule file.
Resolved resolve(const Request& r, const hw::GpuSpec& spec);

}  // namespace tgsim::gemm
