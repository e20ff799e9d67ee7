// A GEMM problem in the library's (column-major BLAS) view: C[m,n] = A[m,k] * B[k,n].
// Callers holding a row-major (PyTorch) view y[M,N] = x[M,K] W^T convert with from_row_major:
// the library's m is N and its n is M (docs/measurements: the `order` column).
#pragma once

#include <cstdint>

#include "sim/units/dtype.h"

namespace tgsim::gemm {

struct Problem {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t batch = 1;
  DType a_type = DType::bf16;
  DType b_type = DType::bf16;
  DType c_type = DType::bf16;
  // Grouped (MoE expert) GEMM: `groups` problems of this m x n x k, each with its own A, B and C,
  // in one launch (CUTLASS ptr-array / torch._grouped_mm). 1: a plain GEMM.
  std::int64_t groups = 1;

  double flops() const {
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) * static_cast<double>(batch) *
           static_cast<double>(groups);
  }
};

inline Problem from_row_major(std::int64_t M, std::int64_t N, std::int64_t K, DType in, DType out) {
  return Problem{N, M, K, 1, in, in, out};
}

// Output type a library picks for an input type (fp8 GEMMs write bf16, tf32 writes fp32).
constexpr DType default_output_type(DType in) {
  switch (in) {
    case DType::fp8_e4m3:
    case DType::fp8_e5m2: return DType::bf16;
    case DType::tf32: return DType::fp32;
    default: return in;
  }
}

// Bytes of one element in memory (tf32 is stored as fp32).
constexpr double element_bytes(DType t) { return dtype_bits(t) / 8.0; }

// Largest power of two, at most `cap`, that divides a row of `elements` x `bytes_per_element`
// bytes: the alignment of a leading dimension.
constexpr int row_alignment_bytes(std::int64_t elements, double bytes_per_element, int cap) {
  const auto bytes = static_cast<std::int64_t>(static_cast<double>(elements) * bytes_per_element);
  int a = cap;
  while (a > 1 && bytes % a != 0) a /= 2;
  return a;
}

}  // namespace tgsim::gemm
