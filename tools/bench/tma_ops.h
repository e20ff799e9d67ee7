// tma_ops.h: the Hopper TMA, mbarrier and cluster primitives the TMA microbenchmarks share (calib_tma,
// calib_tma_mix, calib_tma_hitmiss, calib_tma_multicast, calib_gemm_feed, calib_sync): PTX wrappers for mbarrier
// set-up/arrive/wait, cluster rank/size/barrier, 2D tensor and 1D bulk copies
// into shared memory, and a 2D bf16 tensor map with 128-byte swizzle built through the
// driver's cuTensorMapEncodeTiled (found at run time, so no link against libcuda); a read-only
// L2 flush kernel, the checkpoint interpolation the streaming benchmarks share, and the check of
// a swizzled box against its source.
#pragma once

#include "common.h"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>

namespace bench {

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ unsigned long long globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n"
      ".reg .pred P1;\n"
      "LAB_WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
      "@P1 bra DONE;\n"
      "bra LAB_WAIT;\n"
      "DONE:\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}
// Thread-block clusters: this CTA's rank, the cluster's CTA count, a barrier over all its threads.
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ uint32_t cluster_size() {
  uint32_t n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  return n;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// Sets up a ring of `stages` full barriers at `bars` (count 1: the local producer, plus its
// transaction bytes) followed by as many empty barriers (count `releases`: one per CTA that
// releases each stage), visible to the whole cluster before any CTA of it copies into a peer.
// Every thread of the CTA calls it.
__device__ __forceinline__ void init_cluster_ring(uint32_t bars, int stages, uint32_t releases) {
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) mbar_init(bars + 8u * s, 1);
    for (int s = 0; s < stages; ++s) mbar_init(bars + 8u * (stages + s), releases);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  cluster_sync();
}
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* tm, int c0, int c1, uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(tm)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}
// An arrive on the barrier at the same offset in CTA `cta` of the cluster, with the default
// semantics (release, CTA scope), as CUTLASS's ClusterBarrier::arrive(cta_id) issues it.
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t local_bar, uint32_t cta) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local_bar), "r"(cta));
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
}
__device__ __forceinline__ void tma_load_2d_multicast(uint32_t dst, const CUtensorMap* tm, int c0, int c1, uint32_t bar,
                                                      uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, "
      "%3}], [%4], %5;" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(tm)), "r"(c0), "r"(c1), "r"(bar), "h"(mask)
      : "memory");
}
__device__ __forceinline__ void bulk_load_1d(uint32_t dst, const void* src, uint32_t bytes, uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}

// reads a buffer so that L2 ends up holding clean lines (after the flush memset's dirty ones)
__global__ void read_flush_kernel(const int4* __restrict__ p, size_t n, int4* sink) {
  int4 acc = make_int4(0, 0, 0, 0);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    int4 a = p[i];
    acc.x ^= a.x; acc.y ^= a.y; acc.z ^= a.z; acc.w ^= a.w;
  }
  if ((acc.x & acc.y & acc.z & acc.w) == 0x7fffffff) sink[0] = acc;
}

// Tiles CTA c had delivered by time w (ns after t_min), from its checkpoints: ck[c * max_ck + i]
// is the globaltimer after tile (i + 1) * per_ck - 1; linear between checkpoints, from t_start.
inline double tiles_by(const std::vector<unsigned long long>& ck, int c, int nck, int max_ck, int per_ck,
                       unsigned long long t_start, unsigned long long t_min, double w) {
  double prev_t = (double)(t_start - t_min), prev_n = 0;
  for (int i = 0; i < nck; ++i) {
    const double t = (double)(ck[(size_t)c * max_ck + i] - t_min), n = (double)(i + 1) * per_ck;
    if (t >= w) return prev_n + (n - prev_n) * (w - prev_t) / std::max(t - prev_t, 1.0);
    prev_t = t;
    prev_n = n;
  }
  return prev_n;
}

inline PFN_cuTensorMapEncodeTiled_v12000 g_encode = nullptr;

// Looks up cuTensorMapEncodeTiled once; exits with a message if the driver lacks it.
inline void load_tensor_map_encoder() {
  if (g_encode) return;
  cudaDriverEntryPointQueryResult q{};
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&g_encode), 12000,
                                      cudaEnableDefault, &q));
  if (!g_encode || q != cudaDriverEntryPointSuccess) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled not found (query result %d)\n", (int)q);
    std::exit(2);
  }
}

// A bf16 matrix of `rows` x `cols` (row pitch cols x 2 B) read in boxes of 64 cols x box_rows.
inline CUtensorMap make_map(void* base, uint64_t cols, uint64_t rows, uint32_t box_rows, CUtensorMapL2promotion promo) {
  CUtensorMap m;
  cuuint64_t dims[2] = {cols, rows};
  cuuint64_t strides[1] = {cols * 2};
  cuuint32_t box[2] = {64, box_rows};
  cuuint32_t estr[2] = {1, 1};
  CUresult r = g_encode(&m, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box, estr,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, promo,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed (%d): cols %llu rows %llu box_rows %u\n", (int)r,
                 (unsigned long long)cols, (unsigned long long)rows, box_rows);
    std::exit(2);
  }
  return m;
}

// Mismatching bytes between a box of `rows` x 128 B that a kernel dumped from shared memory (as
// the 128B swizzle laid it out) and the box at (col, row) of the row-major bf16 matrix src_dev
// of `pitch` bytes per row.
inline long long compare_swizzled_box(const unsigned char* dumped, const unsigned char* src_dev, int pitch, int col,
                                      int row, int rows) {
  std::vector<unsigned char> ref((size_t)rows * 128);
  CK(cudaMemcpy2D(ref.data(), 128, src_dev + (size_t)row * pitch + (size_t)col * 2, pitch, 128, rows,
                  cudaMemcpyDeviceToHost));
  long long bad = 0;
  for (int r = 0; r < rows; ++r)
    for (int byte = 0; byte < 128; ++byte)
      bad += dumped[r * 128 + ((((byte >> 4) ^ (r & 7)) << 4) | (byte & 15))] != ref[(size_t)r * 128 + byte];
  return bad;
}

}  // namespace bench
