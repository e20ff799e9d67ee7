#include "frontend/pytorch_kernels.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace tgsim::frontend {
namespace {

// Sources: traces/h200/elementwise.csv (tools/bench/elementwise_capture.py, PyTorch 2.11, H200,
// 2026-11-30). Grid and block are the recorded launch shapes. ops_per_element turns the measured
// throughput at the largest sizes, where these kernels issue-bind below HBM speed, into SIMT
// lane-instructions: 132 SMs x 128 lanes x 1980 MHz = 33.45 T lane-ops/s divided by the element
// rate. setup_cycles: what the smallest launches (<= 16k elements, inputs just touched) take
// beyond the model without it, at 1980 MHz (docs/profile-replay.md). cold_cycles: for the launches
// of at most 32k elements, the measured time after a 256 MiB flush minus the time right after the
// same op, less what the model gives for the difference, at 1980 MHz (median per class; each of
// them within 0.14 us of its class median but the reduce pair, 0.39 / 0.66 us).
// vectorized_elementwise_kernel: 4.0-4.4 TB/s at the largest sizes (bandwidth-bound); set-up from the
// 4k-32k-element runs (0.93-1.38 us, median 0.95).
constexpr PytorchKernelClass kVectorized{"vectorized", 128, 8, 0, 1, 570, 919};
// elementwise_kernel<128, 4>: strided / broadcast operands through OffsetCalculator; 376 G el/s
// (median of the largest mul_bcast_row 398, silu_slice 362, neg_slice 376), 30 CTAs for 15,360.
constexpr PytorchKernelClass kGeneric{"generic", 128, 4, 0, 89, 1700, 2534};
// elementwise_kernel<128, 2> (fp32 with a broadcast column): 322 G el/s, 60 CTAs for 15,360.
constexpr PytorchKernelClass kGenericFp32{"generic_fp32", 128, 2, 0, 104, 750, 1505};
// unrolled_elementwise_kernel (dtype-casting copy): 341 G el/s, 8 CTAs for 4,096.
constexpr PytorchKernelClass kUnrolled{"unrolled", 128, 4, 0, 98, 2250, 2534};
// CatArrayBatchedCopy: a fixed grid of 2 x SMs per input (two inputs: 264 x 2), 512 threads;
// 239 G el/s.
constexpr PytorchKernelClass kCat{"cat", 512, 0, 4, 140, 2000, 730};
// reduce_kernel<512, 1>: bandwidth-bound when there are many rows; set-up measured on 3-row runs.
constexpr PytorchKernelClass kReduce{"reduce", 256, 0, 0, 2, 1390, 1041};

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

}  // namespace

const PytorchKernelClass& pytorch_kernel_class(std::string_view name, bool reduction) {
  if (reduction || contains(name, "reduce_kernel<")) return kReduce;
  if (contains(name, "CatArrayBatchedCopy")) return kCat;
  if (contains(name, "unrolled_elementwise_kernel<")) return kUnrolled;
  if (contains(name, "vectorized_elementwise_kernel<")) return kVectorized;
  if (contains(name, "elementwise_kernel<128, 2,")) return kGenericFp32;
  if (contains(name, "elementwise_kernel<")) return kGeneric;
  return kVectorized;
}

void apply_kernel_class(const PytorchKernelClass& c, int sms, Elementwise& e, std::array<int, 3> grid,
                        std::array<int, 3> block) {
  if (&c == &kReduce && e.rows > 0) {
    e.row_length = e.elements / static_cast<double>(e.rows);
    if (block[0] > 0 && grid[0] > 0) {
      // The recorded launch: PyTorch's ReduceConfig puts block.y on rows while rows are many
      // (e.g. 2048 rows of 4096: grid 128, block 32 x 16, 16 rows per CTA) and on the row itself
      // when they are long (2048 rows of 8192: grid 2048, block 32 x 16, one row per CTA, its
      // partial sums combined through shared memory). Rows per CTA = rows / CTAs either way.
      e.ctas = static_cast<std::int64_t>(grid[0]) * std::max(1, grid[1]);
      const std::int64_t threads = static_cast<std::int64_t>(block[0]) * std::max(1, block[1]);
      const std::int64_t rows_per_cta = std::clamp<std::int64_t>((e.rows + e.ctas - 1) / e.ctas, 1, threads);
      e.rows_per_cta = static_cast<int>(rows_per_cta);
      e.row_threads = static_cast<int>(threads / rows_per_cta);
      // More CTAs than rows (grid.y > 1): each row is split across CTAs (a global reduction).
      if (e.ctas > e.rows) e.row_length *= static_cast<double>(e.rows) / static_cast<double>(e.ctas);
    } else {
      const auto shape = pytorch_reduce_block(e.rows, e.row_length);
      e.row_threads = shape[0];
      e.rows_per_cta = shape[1];
      e.ctas = 0;
    }
  }
  e.threads = c.threads;
  if (c.elements_per_thread > 0) e.elements_per_thread = c.elements_per_thread;
  if (c.ctas_per_sm > 0) e.ctas = static_cast<std::int64_t>(c.ctas_per_sm) * sms;
  e.ops_per_element = std::max(e.ops_per_element, c.ops_per_element);
  e.setup_cycles = c.setup_cycles;
}

void apply_cold_start(const PytorchKernelClass& c, int sms, Elementwise& e) {
  e.cold_cycles = c.cold_cycles;
  e.cold_ctas = sms;
}

}  // namespace tgsim::frontend
