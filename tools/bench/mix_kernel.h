// mix_kernel: per loop iteration every warp runs L ldmatrix.x4 (512 B of shared memory each),
// M mma.sync.m16n8k16 bf16 (fp32 accumulate, A fragments from those loads, 4 independent
// accumulator chains), E ex2.approx (SFU) and F fma.rn.f32 (8 independent chains). Thread 0 of
// each CTA writes the clock64 cycles of its `iters` iterations to cycles[blockIdx.x]. Needs
// MIX_SMEM bytes of dynamic shared memory (more than half an SM's: one CTA per SM).
// R (random operands): when false the B operand of every mma.sync is the same two registers for
// the whole run (and A too when L = 0), so the tensor core's multiplier inputs barely toggle; when
// true (needs L >= 2) both A and B come from the fragments ldmatrix loaded in this iteration (random
// shared-memory data, a new 512 B window each time), as in a real GEMM or attention kernel.
// With `ns`, thread 0 also writes the %globaltimer nanoseconds of the same loop: cycles / ns is the
// clock the SM really ran at (under a power limit it can be below what NVML reports).
// Used by calib_mix (cycles per iteration) and calib_pipe_power (clock and power under each mix).
#pragma once

#include "common.h"

static constexpr int MIX_SMEM = 140 * 1024;

using bench::urand;

__device__ inline uint32_t bf16_pair(uint64_t i, uint64_t seed) {
  const __nv_bfloat16 lo = __float2bfloat16(urand(i, seed)), hi = __float2bfloat16(urand(i + 1, seed));
  return (uint32_t)__bfloat16_as_ushort(lo) | ((uint32_t)__bfloat16_as_ushort(hi) << 16);
}

template <int L, int M, int E, int F, bool R = false>
__global__ void mix_kernel(int iters, long long* cycles, float* sink, unsigned long long* ns) {
  extern __shared__ __align__(1024) uint8_t smem[];
  // Two bf16 values in [-1, 1) per word (since 2026-12-01; before, the bits of one fp32 value,
  // whose low half read as a bf16 of random exponent).
  for (int i = threadIdx.x; i < 16384; i += blockDim.x) reinterpret_cast<uint32_t*>(smem)[i] = bf16_pair(2 * i, 7 + blockIdx.x);
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  // each warp reads its own 8 KiB window, 16 B rows, conflict-free
  const uint32_t base = (uint32_t)__cvta_generic_to_shared(smem) + (uint32_t)((warp & 7) * 8192 + lane * 16);
  float acc[4][4];
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) acc[c][r] = 0.f;
  uint32_t frag[L > 0 ? L : 1][4];
  for (int l = 0; l < (L > 0 ? L : 1); ++l)
    for (int r = 0; r < 4; ++r) frag[l][r] = bf16_pair(2 * (threadIdx.x * 16 + l * 4 + r), 3);
  const uint32_t b0 = bf16_pair(2 * threadIdx.x, 11), b1 = bf16_pair(2 * threadIdx.x, 12);
  float ex[8], fm[8];
  for (int i = 0; i < 8; ++i) {
    ex[i] = urand(threadIdx.x * 8 + i, 21) * 0.5f;
    fm[i] = urand(threadIdx.x * 8 + i, 22);
  }
  __syncthreads();
  unsigned long long g0 = 0, g1 = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
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
      static_assert(!R || L >= 2, "random operands need two fragments per iteration");
      const uint32_t* a = frag[L > 0 ? m % (L > 0 ? L : 1) : 0];
      const uint32_t* bf = frag[L > 0 ? (m + 1) % (L > 0 ? L : 1) : 0];
      const uint32_t bx = R ? bf[(m & 1) * 2] : b0, by = R ? bf[(m & 1) * 2 + 1] : b1;
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
          "{%0,%1,%2,%3};\n"
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(bx), "r"(by));
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
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  float s = 0;
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) s += acc[c][r];
  for (int i = 0; i < 8; ++i) s += ex[i] + fm[i];
  for (int l = 0; l < (L > 0 ? L : 1); ++l) s += __uint_as_float(frag[l][0]);
  if (s == 12345.f) sink[threadIdx.x] = s;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  if (threadIdx.x == 0 && ns != nullptr) ns[blockIdx.x] = g1 - g0;  // with cycles: the SM's effective clock
}
