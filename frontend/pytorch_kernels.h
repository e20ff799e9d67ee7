// PyTorch's memory-bound CUDA kernels by template, as profile replay and `validate` meet them:
// how each one tiles its work and what it costs besides moving bytes. The costs are properties of
// PyTorch's code (index arithmetic, parameter set-up), measured once on the lent H200 by
// tools/bench/elementwise_capture.py (traces/h200/elementwise.csv) and kept in cycles.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "frontend/elementwise.h"

namespace tgsim::frontend {

struct PytorchKernelClass {
  std::string_view name;          // vectorized, generic, generic_fp32, unrolled, cat, reduce
  int threads = 128;              // per CTA
  int elements_per_thread = 8;    // output elements per thread (CTA count = elements / threads / this)
  int ctas_per_sm = 0;            // > 0: a fixed grid of this many CTAs per SM (cat's batched copy)
  double ops_per_element = 1;     // SIMT instructions per output element (lanes), on the fp32 pipe
  double setup_cycles = 0;        // per CTA before its first load (parameters, index set-up)
  // Extra cycles for the first CTA on each SM when the kernel's code and parameters are not in
  // L2: after a flush, or in a model step once more than L2's worth of data went through since the
  // kernel last ran (flushed minus warm time of the tiny kernels; a copy-engine flush costs the
  // same, so it is L2, not the SMs' instruction caches).
  double cold_cycles = 0;
};

// The class of a kernel by its (demangled or normalised) name; unknown names are `vectorized`,
// which moves bytes at full width (the lower bound). `reduction` is true for aten reductions.
const PytorchKernelClass& pytorch_kernel_class(std::string_view kernel_name, bool reduction);

// Applies a class to a memory-bound op description (CTA shape, per-element cost, set-up). For the
// reduction class with e.rows set, the row-reduction structure: the recorded launch shape
// (grid.x CTAs, block.x threads per row, block.y rows per CTA) when given (non-zero), else
// pytorch_reduce_block().
void apply_kernel_class(const PytorchKernelClass& c, int sms, Elementwise& e, std::array<int, 3> grid = {},
                        std::array<int, 3> block = {});

// Marks the kernel as starting cold (PytorchKernelClass::cold_cycles on the first CTA of every SM).
void apply_cold_start(const PytorchKernelClass& c, int sms, Elementwise& e);

// Whether a kernel's input, just written or read by the kernel before it, is still in L2 when it
// runs: when it fits in half of the L2 (the other half holds whatever else the step touched).
inline bool input_stays_in_l2(double read_bytes, double l2_capacity_bytes) { return read_bytes <= 0.5 * l2_capacity_bytes; }

}  // namespace tgsim::frontend
