// calib_tma_kernel.h (part of calib_tma, see calib_tma.cu for the variants): the TMA ring that
// streams bytes into shared memory and throws them away. One CTA holds P rings (P = 1 as in a
// cuBLAS/CUTLASS GEMM); ring w has a producer (lane 0 of warp w) that waits for a free stage
// (empty mbarrier), arms its full mbarrier with expect_tx(box bytes) and issues one copy into it
// (2D tensor box when TILED, else a 1D bulk copy), and a consumer (warp P + w) that waits on the
// full mbarrier and releases the stage at once (no compute). DIVLOOP selects the first
// revision's producer loop (div/mod per request). With p.check, shared memory is poisoned first
// and the consumer dumps three tiles of the first and last CTA to p.dbg.
#pragma once

#include "common.h"
#include "tma_ops.h"

#include <cuda.h>

namespace bench::calib_tma {

constexpr int kMaxProducers = 4;    // rings per CTA (producer warp + consumer warp each)
constexpr int kMaxThreads = 64 * kMaxProducers;
constexpr int kPoison = 0xA5;
constexpr int kDumpSlots = 3;

struct Params {
  const unsigned char* src;   // contiguous variant: buffer base
  long long region_bytes;     // per-CTA region (both variants: CTA c owns [c*region, ...))
  int region_groups;          // contig: > 0: CTA c reads region c % region_groups (CTAs share it)
  int n_tiles;                // tiles (requests) per CTA
  int stages;                 // stages per ring
  int producers;              // independent rings per CTA (1 = GEMM-like)
  int box_rows;
  int box_bytes;
  int tiles_per_panel;        // K tiles along one panel (tiled)
  int row_groups;             // tiled: > 0: CTA c reads the panels of CTA c % row_groups (shared)
  int panels_per_cta;
  int smem_bytes;             // dynamic smem size (for the poison fill)
  int wrap_tiles;             // contiguous variant: > 0 re-reads the region every wrap_tiles requests
  int check;
  unsigned char* dbg;         // [2 CTAs][kDumpSlots][box_bytes]
  int* smid;                  // [ctas]
  unsigned long long* t0;     // [ctas] globaltimer at entry
  unsigned long long* t1;     // [ctas] globaltimer after the last tile
};

template <bool TILED, bool DIVLOOP>
__global__ void __launch_bounds__(kMaxThreads, 1) tma_stream_kernel(const __grid_constant__ CUtensorMap tm, Params p) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int cta = blockIdx.x;
  const int P = p.producers;
  if (tid == 0) {
    p.t0[cta] = globaltimer();
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    p.smid[cta] = (int)s;
  }
  const uint32_t raw = smem_u32(smem_raw);
  const uint32_t aligned = (raw + 1023u) & ~1023u;
  const uint32_t bars = aligned;           // full[P*S], empty[P*S]: 16*P*S bytes (P*S <= 64)
  const uint32_t tiles = aligned + 1024u;  // P*S stages of box_bytes, 1024-aligned
  unsigned char* tiles_g = smem_raw + (tiles - raw);
  const int S = p.stages;                  // stages per ring
  const int NS = P * S;

  if (p.check) {  // poison the whole dynamic allocation (generic proxy)
    uint4 v;
    v.x = v.y = v.z = v.w = 0x01010101u * kPoison;
    for (int i = tid * 16; i + 16 <= p.smem_bytes; i += blockDim.x * 16)
      *reinterpret_cast<uint4*>(smem_raw + i) = v;
  }
  __syncthreads();
  if (tid == 0) {
    for (int s = 0; s < NS; ++s) {
      mbar_init(bars + 8u * s, 1);         // full: the producer's arrive.expect_tx + tx bytes
      mbar_init(bars + 8u * (NS + s), 1);  // empty: one arrive from the consumer warp
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    if (TILED) asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(&tm)) : "memory");
  }
  // order the poison stores (generic proxy) before the copy engine's writes (async proxy)
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();

  // ring w (0 <= w < P): producer = lane 0 of warp w, consumer = warp P + w; it carries
  // tiles it = w, w + P, w + 2P, ... (P = 1: one producer thread, as in a GEMM)
  const long long box = p.box_bytes;
  if (warp < P) {
    if (lane == 0) {
      const int w = warp;
      const uint32_t full0 = bars + 8u * (w * S), empty0 = bars + 8u * (NS + w * S);
      const uint32_t tile0 = tiles + (uint32_t)(w * S) * (uint32_t)p.box_bytes;
      if (DIVLOOP) {
        // the first revision's producer loop (P = 1 only): stage, phase and coordinates
        // recomputed from the tile index by division every iteration
        const unsigned char* region = p.src + (long long)cta * p.region_bytes;
        for (int it = 0; it < p.n_tiles; ++it) {
          const int s = it % S;
          const int round = it / S;
          if (round > 0) mbar_wait(empty0 + 8u * s, (round - 1) & 1);
          const uint32_t full = full0 + 8u * s;
          mbar_arrive_expect_tx(full, (uint32_t)p.box_bytes);
          const uint32_t dst = tile0 + (uint32_t)s * (uint32_t)p.box_bytes;
          if (TILED) {
            const int panel = cta * p.panels_per_cta + it / p.tiles_per_panel;
            const int k = it % p.tiles_per_panel;
            tma_load_2d(dst, &tm, k * 64, panel * p.box_rows, full);
          } else {
            bulk_load_1d(dst, region + (long long)it * box, (uint32_t)p.box_bytes, full);
          }
        }
      } else {
        // CUTLASS-style: stage index and phase advance incrementally, coordinates too. The
        // empty-wait parity starts at 1: a fresh mbarrier counts the phase before its first
        // as completed, so the first round does not wait.
        int s = 0;
        uint32_t ph = 1;
        const int cols = p.tiles_per_panel * 64, kstep = 64 * P;
        int k = 64 * w, row = (p.row_groups > 0 ? cta % p.row_groups : cta) * p.panels_per_cta * p.box_rows;
        const long long base = (long long)(p.region_groups > 0 ? cta % p.region_groups : cta) * p.region_bytes;
        const unsigned char* src = p.src + base + w * box;
        const long long src_step = P * box;
        int wi = w;  // request index within the region (contig_l2 wraps it)
        for (int it = w; it < p.n_tiles; it += P) {
          mbar_wait(empty0 + 8u * s, ph);
          const uint32_t full = full0 + 8u * s;
          mbar_arrive_expect_tx(full, (uint32_t)p.box_bytes);
          const uint32_t dst = tile0 + (uint32_t)s * (uint32_t)p.box_bytes;
          if (TILED) {
            tma_load_2d(dst, &tm, k, row, full);
            k += kstep;
            if (k >= cols) { k -= cols; row += p.box_rows; }
          } else {
            bulk_load_1d(dst, src, (uint32_t)p.box_bytes, full);
            src += src_step;
            wi += P;
            if (p.wrap_tiles > 0 && wi >= p.wrap_tiles) {
              wi -= p.wrap_tiles;
              src = p.src + base + (long long)wi * box;
            }
          }
          if (++s == S) { s = 0; ph ^= 1; }
        }
      }
    }
  } else if (warp < 2 * P) {
    const int w = warp - P;
    const uint32_t full0 = bars + 8u * (w * S), empty0 = bars + 8u * (NS + w * S);
    const unsigned char* tile0 = tiles_g + (size_t)(w * S) * p.box_bytes;
    const bool dump = p.check && (cta == 0 || cta == (int)gridDim.x - 1);
    int s = 0;
    uint32_t ph = 0;
    for (int it = w; it < p.n_tiles; it += P) {
      mbar_wait(full0 + 8u * s, ph);
      if (dump) {
        int slot = it == 0 ? 0 : (it == S ? 1 : (it == p.n_tiles - 1 ? 2 : -1));
        if (slot >= 0) {
          const uint4* from = reinterpret_cast<const uint4*>(tile0 + (size_t)s * p.box_bytes);
          uint4* to = reinterpret_cast<uint4*>(p.dbg + ((size_t)(cta == 0 ? 0 : 1) * kDumpSlots + slot) * p.box_bytes);
          for (int i = lane; i < p.box_bytes / 16; i += 32) to[i] = from[i];
        }
      }
      __syncwarp();
      if (lane == 0) mbar_arrive(empty0 + 8u * s);
      if (++s == S) { s = 0; ph ^= 1; }
    }
    if (lane == 0) atomicMax(p.t1 + cta, globaltimer());  // time only grows: stale values are smaller
  }
}

}  // namespace bench::calib_tma
