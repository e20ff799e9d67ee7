// fill_kernels.h: a "victim" and a "copier" CTA on the same SM, for calib_fill.
//
// pair_kernel<VICTIM, COPY> is launched with two CTAs per SM (grid = 2 x SMs, 128 threads, FILL_SMEM
// bytes of dynamic shared memory each: two fit, three do not). The first CTA to arrive on an SM
// (a per-SM ticket, %smid) is the victim, the second the copier.
//   victim, 4 warps (one per sub-partition), `iters` iterations, timed with clock64:
//     VICTIM 0 (ldsm):     8 ldmatrix.x4 per warp and iteration (4 KiB), conflict-free, every
//                          result folded into a register so ptxas keeps the loads;
//     VICTIM 1 (mma):      16 mma.sync m16n8k16 bf16 per warp and iteration from registers;
//     VICTIM 2 (ldsm_mma): FlashAttention-2's S GEMM step: 6 ldmatrix.x4 (2 of Q rows, 4 of K)
//                          then 16 mma.sync on them, the next step's loads issued before this
//                          step's MMAs (software pipelined, as FlashAttention-2's gemm());
//     VICTIM 3 (idle):     sleeps for `iters` x 1000 ns (the copier's rate alone);
//     VICTIM 4 (fma):      32 fma.rn.f32 per warp and iteration on 8 independent chains.
//   copier, 4 warps: until the victim is done, copies TILE bytes at a time into its shared memory
//     with 16-byte cp.async.cg (FlashAttention-2's copy), commit, wait_all, __syncthreads;
//     COPY 0: none (waits); 1: from a 4 MiB L2-resident region; 2: from HBM (a region of its own
//     per copier, 64 MiB, streamed); 3: as 1 with two rounds in flight (two 32 KiB buffers,
//     wait_group 1), a higher fill rate; 4 / 5: as 1 with 4- / 8-byte cp.async.ca per lane
//     (CUTLASS 2.x align1/align2 kernels' copies), contiguous per warp; 6: as 1 with TMA bulk
//     copies (cp.async.bulk, 4 x 8 KiB per round from one thread, an mbarrier with expect_tx);
//     7 / 8: as 4 / 5 into the swizzled-rows layout of calib_ldgsts (lane l writes row l of its
//     warp's 32 rows of 128 B, 16-byte chunks XOR (row mod 8): 8 lanes per bank at 4 bytes, the
//     5-7 wavefronts per instruction Nsight Compute shows in CUTLASS's align2 kernels).
//     It counts the bytes and cycles it copied while the victim ran.
// Outputs per CTA: victim cycles (cycles[sm]), copier bytes (bytes[sm]) and cycles (ccycles[sm]).
#pragma once

#include "mma_sync_ops.h"
#include "tma_ops.h"

namespace bench {

inline constexpr int FILL_SMEM = 100 * 1024;
inline constexpr int FILL_TILE = 32 * 1024;                    // bytes per copy round (K + V of a d=128 block)
inline constexpr long long FILL_L2_REGION = 4ll << 20;         // shared by all copiers: stays in L2
inline constexpr long long FILL_HBM_REGION = 64ll << 20;       // per copier: streams from HBM

__device__ __forceinline__ unsigned smid() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

// The victim's loop; returns its clock64 cycles.
template <int VICTIM>
__device__ long long victim_loop(int iters, uint32_t base, float* sink) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  // Each warp reads its own 16 KiB window of 16-byte rows: lane l row (l & 15), chunk (l >> 4),
  // XOR-swizzled as FlashAttention-2's layouts, so every ldmatrix.x4 is conflict-free.
  const uint32_t win = base + (uint32_t)(warp * 16384);
  const auto at = [&](int i) {
    const int r = (i * 16 + (lane & 15)) & 127;
    return win + (uint32_t)(r * 128 + ((((lane >> 4) + 2 * (i >> 3)) ^ (r & 7)) & 7) * 16);
  };
  float acc[8][4];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int c = 0; c < 4; ++c) acc[i][c] = 0.f;
  uint32_t fold = 0;
  uint32_t f[2][6][4];
#pragma unroll
  for (int s = 0; s < 2; ++s)
#pragma unroll
    for (int j = 0; j < 6; ++j)
#pragma unroll
      for (int c = 0; c < 4; ++c) f[s][j][c] = 0x3c003c00u + (uint32_t)(threadIdx.x * 24 + j * 4 + c);
  __syncthreads();
  const long long t0 = clock64();
  if constexpr (VICTIM == 3) {
    for (int it = 0; it < iters; ++it) __nanosleep(1000);
  } else if constexpr (VICTIM == 0) {
    for (int it = 0; it < iters; ++it) {
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        uint32_t r[4];
        ldsm_x4(r, at(it * 8 + j));
        fold ^= r[0] ^ r[1] ^ r[2] ^ r[3];
      }
    }
  } else if constexpr (VICTIM == 4) {
    float x[8];
#pragma unroll
    for (int c = 0; c < 8; ++c) x[c] = acc[c][0] + 1.0f;
    for (int it = 0; it < iters; ++it) {
#pragma unroll
      for (int m = 0; m < 32; ++m) x[m & 7] = fmaf(x[m & 7], 0.999f, 0.001f);
    }
#pragma unroll
    for (int c = 0; c < 8; ++c) acc[c][1] = x[c];
  } else if constexpr (VICTIM == 1) {
    for (int it = 0; it < iters; ++it) {
#pragma unroll
      for (int m = 0; m < 16; ++m) mma16816(acc[m & 7], f[0][m & 3], f[1][m & 1][0], f[1][m & 1][1]);
    }
  } else {
    // stage s of step it: 6 ldmatrix.x4 (2 Q slabs, 4 K pairs), then 2 x 8 mma.sync
#pragma unroll
    for (int j = 0; j < 6; ++j) ldsm_x4(f[0][j], at(j));
    for (int it = 0; it < iters; it += 2) {
#pragma unroll
      for (int s = 0; s < 2; ++s) {
#pragma unroll
        for (int j = 0; j < 6; ++j) ldsm_x4(f[s ^ 1][j], at((it + s + 1) * 6 + j));
#pragma unroll
        for (int a = 0; a < 2; ++a)
#pragma unroll
          for (int b = 0; b < 8; ++b) mma16816(acc[(a * 8 + b) & 7], f[s][a], f[s][2 + b / 2][(b & 1) * 2], f[s][2 + b / 2][(b & 1) * 2 + 1]);
      }
    }
  }
  __syncthreads();
  const long long t1 = clock64();
  float e = __uint_as_float(fold & 0x3fffffffu);
#pragma unroll
  for (int i = 0; i < 8; ++i) e += acc[i][0] + acc[i][1] + acc[i][2] + acc[i][3];
  if (e == 1234.5f) sink[threadIdx.x] = e;
  return t1 - t0;
}

template <int COPY>
__device__ void copier_loop(uint32_t base, const uint8_t* src, long long region, const volatile int* done,
                            long long* bytes, long long* cycles) {
  long long n = 0, off = 0;
  const long long t0 = clock64();
  if constexpr (COPY == 0) {
    while (*done == 0) __nanosleep(500);
  } else if constexpr (COPY == 6) {
    __shared__ __align__(8) unsigned long long bar_storage;
    const uint32_t bar = smem_u32(&bar_storage);
    if (threadIdx.x == 0) mbar_init(bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    __syncthreads();
    uint32_t parity = 0;
    while (*done == 0) {
      if (threadIdx.x == 0) {
        mbar_arrive_expect_tx(bar, FILL_TILE);
        for (int q = 0; q < 4; ++q) {
          bulk_load_1d(base + (uint32_t)(q * (FILL_TILE / 4)), src + (off + q * (FILL_TILE / 4)) % region, FILL_TILE / 4, bar);
        }
      }
      mbar_wait(bar, parity);
      parity ^= 1;
      __syncthreads();
      n += FILL_TILE;
      off += FILL_TILE;
    }
  } else {
    int buf = 0;
    while (*done == 0) {
      const uint32_t dst = base + (uint32_t)(COPY == 3 ? buf * FILL_TILE : 0);
      if constexpr (COPY == 7 || COPY == 8) {  // narrow copies into swizzled rows (bank conflicts)
        constexpr int W = COPY == 7 ? 4 : 8;
        const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll 4
        for (int i = 0; i < FILL_TILE / (128 * W); ++i) {  // warp instruction i: 32 lanes x W bytes
          const int group = i / (128 / W), col = (i % (128 / W)) * W;
          const int row = (warp * (FILL_TILE / 4 / 128)) + group * 32 + lane;
          const uint32_t d = (uint32_t)(row * 128 + ((((col >> 4) ^ (lane & 7)) << 4) | (col & 15)));
          asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(dst + d),
                       "l"(src + (off + (long long)(i * 32 + lane) * W + warp * (FILL_TILE / 4)) % region), "n"(W)
                       : "memory");
        }
      } else if constexpr (COPY == 4 || COPY == 5) {  // narrow copies: 4 or 8 bytes per lane, contiguous per warp
        constexpr int W = COPY == 4 ? 4 : 8;
#pragma unroll 4
        for (int c = threadIdx.x; c < FILL_TILE / W; c += 128) {
          asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(dst + (uint32_t)(c * W)),
                       "l"(src + (off + c * W) % region), "n"(W)
                       : "memory");
        }
      } else {
#pragma unroll 4
        for (int c = threadIdx.x; c < FILL_TILE / 16; c += 128) {
          asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst + (uint32_t)(c * 16)),
                       "l"(src + (off + c * 16) % region)
                       : "memory");
        }
      }
      asm volatile("cp.async.commit_group;" ::: "memory");
      if constexpr (COPY == 3) {
        asm volatile("cp.async.wait_group 1;" ::: "memory");
      } else {
        asm volatile("cp.async.wait_all;" ::: "memory");
      }
      __syncthreads();
      n += FILL_TILE;
      off += FILL_TILE;
      buf ^= 1;
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
  }
  const long long t1 = clock64();
  if (threadIdx.x == 0) {
    *bytes = n;
    *cycles = t1 - t0;
  }
}

// tickets: one int per SM slot (zeroed before each launch), done: one int per SM slot (zeroed).
template <int VICTIM, int COPY>
__global__ void __launch_bounds__(128) pair_kernel(int iters, int* tickets, int* done, long long* vcycles,
                                                   long long* cbytes, long long* ccycles, const uint8_t* src,
                                                   float* sink) {
  extern __shared__ __align__(1024) uint8_t smem[];
  __shared__ int role;
  const unsigned sm = smid();
  if (threadIdx.x == 0) role = atomicAdd(&tickets[sm], 1);
  for (int i = threadIdx.x; i < FILL_SMEM / 4; i += blockDim.x) reinterpret_cast<uint32_t*>(smem)[i] = 0x3c003c00u ^ (i * 2654435761u);
  __syncthreads();
  const uint32_t base = (uint32_t)__cvta_generic_to_shared(smem);
  if (role == 0) {
    // wait (bounded) for the copier to arrive so both run together
    if (threadIdx.x == 0) {
      for (int spin = 0; spin < 200000 && atomicAdd(&tickets[sm], 0) < 2; ++spin) __nanosleep(100);
    }
    __syncthreads();
    const long long c = victim_loop<VICTIM>(iters, base, sink);
    if (threadIdx.x == 0) {
      vcycles[sm] = c;
      __threadfence();
      atomicExch(&done[sm], 1);
    }
  } else if (role == 1) {
    const long long region = COPY == 2 ? FILL_HBM_REGION : FILL_L2_REGION;  // COPY 3: L2
    const uint8_t* from = COPY == 2 ? src + (long long)sm * FILL_HBM_REGION : src + (long long)(sm * 65536) % FILL_L2_REGION;
    copier_loop<COPY>(base, from, region, done + sm, cbytes + sm, ccycles + sm);
  }
}

}  // namespace bench
