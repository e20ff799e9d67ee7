// `tgsim validate --profile TRACE.json`: every GPU kernel of a PyTorch profile, attached to its
// operator and input shapes, simulated by the frontend that models it (GEMMs from aten::mm /
// addmm / linear with the kernel name, attention from the flash-attention ops, memory-bound
// kernels from the shapes and types they read and write); per-kernel and total comparison
// of GPU kernel time. Kernels no frontend models are listed with their measured time.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "frontend/validate/profile_trace.h"
#include "sim/graph/graph_size.h"
#include "sim/hw/gpu_spec.h"

namespace tgsim::validate {

struct ReplayRow {
  std::string op;         // aten op that launched it
  std::string category;   // gemm, attention, elementwise, or "" when not simulated
  std::string kernels;    // kernel names, ';'-separated
  std::string shape;      // the op's input dims, short form
  std::string schedule;   // what was simulated
  int kernel_count = 0;
  double measured_us = 0;
  double predicted_us = 0;
  double tensor_busy_us = 0;  // predicted tensor-pipe busy time (summed over SMs / SM count)
  double power_busy_us = 0;   // the same for the power duty (KernelStat::power_duty x duration)
  bool simulated = false;
  std::string reason;  // why not simulated, or a note (e.g. default schedule used)
};

struct ReplayReport {
  std::vector<ReplayRow> rows;
  double measured_total_us = 0;
  double measured_covered_us = 0;
  double predicted_covered_us = 0;
  double predicted_total_us = 0;  // predicted where simulated, measured where not
  double coverage_pct = 0;        // share of measured kernel time that was simulated
  double covered_error_pct = 0;   // (predicted - measured) / measured over the simulated kernels
};

// Which launches start with their kernel's code and parameters out of L2: the first launch of a
// kernel, and any after which more than `l2_bytes` of tensor data (the ops' inputs) went through
// since that kernel last ran (in a model step, a layer's weights between two uses of a pointwise
// kernel). The replay gives those PytorchKernelClass::cold_cycles.
std::vector<bool> cold_launches(const std::vector<ProfiledLaunch>& launches, double l2_bytes);

// `limits`: a launch whose graph exceeds them is "not simulated" with the message.
ReplayReport replay_profile(const std::vector<ProfiledLaunch>& launches, const hw::GpuSpec& spec, int jobs,
                            const std::function<void(int, int)>& progress,
                            const graph::Limits& limits = graph::default_limits());

}  // namespace tgsim::validate
