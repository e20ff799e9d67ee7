// Memory-bound kernels (norms, RoPE, activations, residual adds, copies, reductions) as tile
// graphs: bytes in, a few SIMT instructions per element, bytes out. Used by the LLM step and by
// profile replay.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "sim/graph/tile_graph.h"

namespace tgsim::frontend {

// CTAs: `ctas` when > 0; else one per row when rows > 0 (a reduction over each row, as RMSNorm
// does); else elements / (threads x elements_per_thread).
struct Elementwise {
  double elements = 0;
  double read_bytes = 0;
  double write_bytes = 0;
  double ops_per_element = 1;   // SIMT lane-instructions per element (fp32 pipe)
  std::int64_t rows = 0;
  std::int64_t ctas = 0;
  int threads = 256;
  int elements_per_thread = 8;  // 16-byte vector accesses of 16-bit data
  double setup_cycles = 0;      // per CTA before its load (kernel parameters, index set-up)
  double cold_cycles = 0;       // more for the first `cold_ctas` CTAs (one per SM): code and parameters from HBM
  int cold_ctas = 0;
  // A row reduction as PyTorch's reduce_kernel runs it: `row_threads` threads per row (block.x),
  // `rows_per_cta` rows per CTA (block.y); each thread walks its share of a row of `row_length`
  // elements `round_elements` at a time (loads in flight), one memory round trip per round.
  // 0: a plain load -> compute -> store CTA.
  int row_threads = 0;
  int rows_per_cta = 0;
  double row_length = 0;
  int round_elements = 4;
  bool inputs_in_l2 = false;  // the reduction's input was just written or read: its loads hit L2
};

// PyTorch's launch shape for a reduction over the contiguous last dimension (ReduceConfig for
// reduce_kernel<512, 1>): a warp per row, as many rows per CTA as fit in 512 threads; with few
// rows, the threads spread over the row, and with long rows (>= 256 values per thread of a warp)
// the whole CTA takes one row. Returns {threads per row, rows per CTA}.
std::array<int, 2> pytorch_reduce_block(std::int64_t rows, double row_length);

// One kernel: per CTA an optional set-up delay, a load of its share of the bytes, the SIMT work,
// and a store.
graph::Kernel elementwise_kernel(const std::string& name, const Elementwise& e);

}  // namespace tgsim::frontend
