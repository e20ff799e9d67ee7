// mix_kernel: per loop iteration every warp runs L ldmatrix.x4 (512 B of shared memory each),
// M mma.sync.m16n8k16 bf16 (fp32 accumulate, A fragments from those loads, 4 independent
// accumulator chains), E ex2.approx (SFU) and F fma.rn.f32 (8 independent chains). Thread 0 of
// each CTA writes the clock64 cycles of its `iters` iterations to cycles[blockIdx.x]. Needs
// MIX_SMEM bytes of dynamic shared memory (more than half an SM's: one CTA per SM).
// Used by calib_mix (cycles per iteration) and calib_pipe_power (clock and power under each mix).
#pragma once

#include "common.h"

static constexpr int MIX_SMEM = 140 * 1024;

using bench::urand;

template <int L, int M, int E, int F>
__global__ void mix_kernel(int iters, long long* cycles, float* sink) {
  extern __shared__ __align__(1024) uint8_t smem[];
  for (int i = threadIdx.x; i < 16384; i += blockDim.x) reinterpret_cast<float*>(smem)[i] = urand(i, 7 + blockIdx.x);
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  // each warp reads its own 8 KiB window, 16 B rows, conflict-free
  const uint32_t base = (uint32_t)__cvta_generic_to_shared(smem) + (uint32_t)((warp & 7) * 8192 + lane * 16);
  float acc[4][4];
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) acc[c][r] = 0.f;
  uint32_t frag[L > 0 ? L : 1][4];
  for (int l = 0; l < (L > 0 ? L : 1); ++l)
    for (int r = 0; r < 4; ++r) frag[l][r] = __float_as_uint(urand(threadIdx.x * 16 + l * 4 + r, 3));
  const uint32_t b0 = __float_as_uint(urand(threadIdx.x, 11)), b1 = __float_as_uint(urand(threadIdx.x, 12));
  float ex[8], fm[8];
  for (int i = 0; i < 8; ++i) {
    ex[i] = urand(threadIdx.x * 8 + i, 21) * 0.5f;
    fm[i] = urand(threadIdx.x * 8 + i, 22);
  }
  __syncthreads();
  const long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int l = 0; l < L; ++l) {
      const uint32_t addr = base + (uint32_t)(((it * L + l) & 15) * 512) % 8192u;
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                   : "=r"(frag[l][0]), "=r"(frag[l][1]), "=r"(frag[l][2]), "=r"(frag[l][3])
                   : "r"(addr));
    }
#pragma unroll
    for (int m = 0; m < M; ++m) {
      float* d = acc[m & 3];
      const uint32_t* a = frag[L > 0 ? m % (L > 0 ? L : 1) : 0];
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
          "{%0,%1,%2,%3};\n"
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
#pragma unroll
    for (int e = 0; e < E; ++e) {
      float& x = ex[e & 7];
      asm volatile("ex2.approx.ftz.f32 %0, %0;\n" : "+f"(x));
    }
#pragma unroll
    for (int f = 0; f < F; ++f) {
      float& y = fm[f & 7];
      asm volatile("fma.rn.f32 %0, %0, %1, %2;\n" : "+f"(y) : "f"(0.999f), "f"(0.001f));
    }
  }
  __syncthreads();
  const long long t1 = clock64();
  float s = 0;
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) s += acc[c][r];
  for (int i = 0; i < 8; ++i) s += ex[i] + fm[i];
  for (int l = 0; l < (L > 0 ? L : 1); ++l) s += __uint_as_float(frag[l][0]);
  if (s == 12345.f) sink[threadIdx.x] = s;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}
