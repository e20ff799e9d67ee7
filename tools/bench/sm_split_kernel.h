// sm_split_kernel.h (part of sm_split, included by sm_split.cu only): the persistent
// SM-split kernel sm_split_kernel<CHAINS> (communication CTAs copy chunks GPU 0 -> GPU 1,
// compute CTAs run mma.sync tiles; see sm_split.cu for the method), its launch parameters and
// kernel_for(chains). Kept in the unnamed namespace as when it was in sm_split.cu, so the
// kernel symbols (cuobjdump / ncu names) are unchanged.
#pragma once

#include "multigpu.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kSmem = 120 * 1024;
constexpr int kMaxThreads = 512;

struct SplitParams {
  const int4* src;   // GPU 0
  int4* dst;         // GPU 1 (peer pointer)
  long long bytes;
  long long chunk_bytes;
  int nchunks;
  int comm_blocks;
  int tiles;
  int mpt;           // mma per warp per tile
  int steal;
  int* counters;     // [0] chunks, [1] tiles
  float* sink;       // [grid * threads]
  unsigned long long* t_start;  // per CTA, globaltimer
  unsigned long long* t_copy;   // per comm CTA, after its fence (0 = none)
  unsigned long long* t_comp;   // per CTA, after its last tile (0 = none)
  long long* cyc;               // per CTA: clock64 cycles of the tile loop
  int* ntiles;                  // per CTA: tiles done
  int* sm;                      // per CTA: %smid
};

__device__ __forceinline__ void mma_bf16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ uint32_t rand_bf16x2(uint64_t i, uint64_t seed) {
  __nv_bfloat16 lo = __float2bfloat16(bench::urand(2 * i, seed)), hi = __float2bfloat16(bench::urand(2 * i + 1, seed));
  return (uint32_t)__bfloat16_as_ushort(lo) | ((uint32_t)__bfloat16_as_ushort(hi) << 16);
}

template <int CHAINS>
__global__ void __launch_bounds__(kMaxThreads, 1) sm_split_kernel(SplitParams p) {
  extern __shared__ int4 smem_unused[];  // only there to force one CTA per SM
  __shared__ int s_item;
  const int tid = threadIdx.x, T = blockDim.x, cta = blockIdx.x;
  if (tid == 0) {
    p.t_start[cta] = bench::globaltimer_ns();
    p.sm[cta] = (int)bench::smid();
    p.t_copy[cta] = 0;
    p.t_comp[cta] = 0;
    p.cyc[cta] = 0;
    p.ntiles[cta] = 0;
  }
  if (cta < p.comm_blocks) {
    for (;;) {
      if (tid == 0) s_item = atomicAdd(&p.counters[0], 1);
      __syncthreads();
      const int ch = s_item;
      __syncthreads();
      if (ch >= p.nchunks) break;
      const long long off = (long long)ch * p.chunk_bytes;
      const long long nb = p.chunk_bytes < p.bytes - off ? p.chunk_bytes : p.bytes - off;
      const int n = (int)(nb / 16);
      const int4* s = p.src + off / 16;
      int4* d = p.dst + off / 16;
      constexpr int U = 4;
      for (int base = 0; base < n; base += T * U) {
        int4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int i = base + u * T + tid;
          if (i < n) v[u] = s[i];
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int i = base + u * T + tid;
          if (i < n) d[i] = v[u];
        }
      }
    }
    __threadfence_system();
    __syncthreads();
    if (tid == 0) p.t_copy[cta] = bench::globaltimer_ns();
    if (!p.steal) {
      p.sink[(size_t)cta * T + tid] = 0.f;
      return;
    }
  }
  // compute worker (or a communication worker that steals tiles)
  const int lane = tid & 31;
  uint32_t a[4], b[2];
#pragma unroll
  for (int k = 0; k < 4; ++k) a[k] = rand_bf16x2(lane * 8 + k, 77);
#pragma unroll
  for (int k = 0; k < 2; ++k) b[k] = rand_bf16x2(lane * 8 + 4 + k, 78);
  float acc[CHAINS][4];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c)
#pragma unroll
    for (int k = 0; k < 4; ++k) acc[c][k] = bench::urand(tid * 64 + c * 4 + k, 79 + cta);
  int done = 0;
  const long long c0 = clock64();
  for (;;) {
    if (tid == 0) s_item = atomicAdd(&p.counters[1], 1);
    __syncthreads();
    const int t = s_item;
    __syncthreads();
    if (t >= p.tiles) break;
#pragma unroll 4
    for (int i = 0; i < p.mpt; i += CHAINS) {
#pragma unroll
      for (int c = 0; c < CHAINS; ++c) mma_bf16(acc[c], a, b);
    }
    ++done;
  }
  const long long c1 = clock64();
  float sum = 0.f;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c)
#pragma unroll
    for (int k = 0; k < 4; ++k) sum += acc[c][k];
  p.sink[(size_t)cta * T + tid] = sum;
  if (tid == 0) {
    p.ntiles[cta] = done;
    p.cyc[cta] = c1 - c0;
    if (done) p.t_comp[cta] = bench::globaltimer_ns();
  }
}

typedef void (*KernelFn)(SplitParams);
KernelFn kernel_for(int chains) {
  switch (chains) {
    case 1: return sm_split_kernel<1>;
    case 2: return sm_split_kernel<2>;
    case 4: return sm_split_kernel<4>;
    case 8: return sm_split_kernel<8>;
  }
  std::fprintf(stderr, "bad chains %d\n", chains);
  std::exit(2);
}

}  // namespace
