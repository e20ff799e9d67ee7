// Memory-bound kernels (norms, RoPE, activations, residual adds, copies, reductions) as tile
// graphs: bytes in, a few SIMT instructions per element, bytes out. Used by the LLM step and by
// profile replay.
#pragma once

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
};

// One kernel: per CTA an optional set-up delay, a load of its share of the bytes, the SIMT work,
// and a store.
graph::Kernel elementwise_kernel(const std::string& name, const Elementwise& e);

}  // namespace tgsim::frontend
