// Memory-bound kernels (norms, RoPE, activations, residual adds, copies, reductions) as tile
// graphs: bytes in, a few SIMT instructions per element, bytes out. Used by the LLM step and by
// profile replay.
#pragma once

#include <cstdint>
#include <string>

#include "sim/graph/tile_graph.h"

namespace tgsim::frontend {

// rows > 0: that many CTAs (one per row); else CTAs of 256 threads x 8 elements.
struct Elementwise {
  double elements = 0;
  double read_bytes = 0;
  double write_bytes = 0;
  double ops_per_element = 1;
  std::int64_t rows = 0;
};


// rows > 0: one CTA of 256 threads per row (a reduction over the row, as RMSNorm does); else
// CTAs of 256 threads x 8 elements (16-byte vector accesses of 16-bit data).
graph::Kernel elementwise_kernel(const std::string& name, const Elementwise& e);

}  // namespace tgsim::frontend
