// calib_sync: what the synchronisation inside a warp-specialised kernel costs, in SM cycles: the
// one-way latency from an mbarrier arrive (or a named-barrier arrive) in one warp to the wake of a
// warp waiting on it, inside a CTA and across the two CTAs of a cluster, and a CTA-wide barrier.
// For tgsim's `signal`/`wait` nodes of `cta` scope (the mbarrier full/empty pipeline of GEMM and
// attention kernels, the warpgroups' turns in ping-pong schedules), which it otherwise takes as free.
//
// Kernels (one CTA per SM on every SM, or clusters of two; clock64 around ITERS round trips):
//   mbar_pingpong     warp A (warp 0) arrives on mbarrier b0 and waits on b1; warp B (warp W) waits
//                     on b0 and arrives on b1; one lane issues, the whole warp waits (try_wait
//                     loop, the pattern of CUTLASS's pipelines). One-way latency = round trip / 2.
//                     W = 1 (another sub-partition) and W = 4 (the same one), and the waiting side
//                     a whole warpgroup (128 threads) as a GEMM's consumers wait.
//   bar_pingpong      warpgroup 0 and warpgroup 1 take turns through two named barriers
//                     (bar.arrive id, 256 / bar.sync id, 256), as ping-pong consumer warpgroups do
//   cluster_pingpong  the mbarrier ping-pong between warp 0 of CTA 0 and warp 0 of CTA 1 of a 2-CTA
//                     cluster: arrive on the peer's barrier (mapa + mbarrier.arrive.release.cluster),
//                     wait on one's own (try_wait.acquire.cluster)
//   syncthreads       __syncthreads() of a 384-thread CTA in a loop: cycles per barrier
// Timing: clock64 in one thread per CTA around the loop after a warm-up loop, median over CTAs,
// median of 3 launches. Output: rows quantity,value,unit,method (common.h CalibCsv).
// Usage: calib_sync [calibration_sync.csv]
#include "common.h"
#include "tma_ops.h"

using namespace bench;

namespace {

constexpr int kIters = 4096;

__device__ __forceinline__ void mbar_arrive_remote(uint32_t local_bar, uint32_t cta) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local_bar), "r"(cta));
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
}

__device__ __forceinline__ void mbar_wait_cluster(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n"
      ".reg .pred P1;\n"
      "WAIT_C:\n"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 P1, [%0], %1;\n"
      "@P1 bra DONE_C;\n"
      "bra WAIT_C;\n"
      "DONE_C:\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}

// B_WARP: the warp that answers; B_THREADS: how many threads of it (and after it) wait.
template <int B_WARP, int B_THREADS>
__global__ void mbar_pingpong(int iters, long long* cycles) {
  __shared__ __align__(8) unsigned long long bars[2];
  const uint32_t b0 = (uint32_t)__cvta_generic_to_shared(&bars[0]), b1 = b0 + 8;
  const int tid = threadIdx.x, warp = tid / 32;
  if (tid == 0) {
    mbar_init(b0, 1);
    mbar_init(b1, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  const bool a_side = warp == 0;
  const bool b_side = tid >= B_WARP * 32 && tid < B_WARP * 32 + B_THREADS;
  long long t0 = 0;
  for (int it = -64; it < iters; ++it) {  // 64 warm-up round trips
    const uint32_t parity = (uint32_t)(it + 64) & 1u;
    if (it == 0 && tid == 0) t0 = clock64();
    if (a_side) {
      if ((tid & 31) == 0) mbar_arrive(b0);
      mbar_wait(b1, parity);
    } else if (b_side) {
      mbar_wait(b0, parity);
      if (tid == B_WARP * 32) mbar_arrive(b1);
    }
  }
  if (tid == 0) cycles[blockIdx.x] = clock64() - t0;
}

__global__ void bar_pingpong(int iters, long long* cycles) {
  const int wg = threadIdx.x / 128;
  long long t0 = 0;
  for (int it = -64; it < iters; ++it) {
    if (it == 0 && threadIdx.x == 0) t0 = clock64();
    if (wg == 0) {
      asm volatile("bar.arrive 1, 256;" ::: "memory");
      asm volatile("bar.sync 2, 256;" ::: "memory");
    } else {
      asm volatile("bar.sync 1, 256;" ::: "memory");
      asm volatile("bar.arrive 2, 256;" ::: "memory");
    }
  }
  if (threadIdx.x == 0) cycles[blockIdx.x] = clock64() - t0;
}

__global__ void __cluster_dims__(2, 1, 1) cluster_pingpong(int iters, long long* cycles) {
  __shared__ __align__(8) unsigned long long bar;
  const uint32_t b = (uint32_t)__cvta_generic_to_shared(&bar);
  const uint32_t rank = cluster_rank();
  if (threadIdx.x == 0) {
    mbar_init(b, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster_sync();
  long long t0 = 0;
  if (threadIdx.x < 32) {
    for (int it = -64; it < iters; ++it) {
      const uint32_t parity = (uint32_t)(it + 64) & 1u;
      if (it == 0 && threadIdx.x == 0) t0 = clock64();
      if (rank == 0) {
        if (threadIdx.x == 0) mbar_arrive_remote(b, 1);
        mbar_wait_cluster(b, parity);
      } else {
        mbar_wait_cluster(b, parity);
        if (threadIdx.x == 0) mbar_arrive_remote(b, 0);
      }
    }
  }
  if (threadIdx.x == 0) cycles[blockIdx.x] = clock64() - t0;
  cluster_sync();
}

__global__ void syncthreads_loop(int iters, long long* cycles) {
  long long t0 = 0;
  for (int it = -64; it < iters; ++it) {
    if (it == 0 && threadIdx.x == 0) t0 = clock64();
    __syncthreads();
  }
  if (threadIdx.x == 0) cycles[blockIdx.x] = clock64() - t0;
}

// median over CTAs (those that wrote: every CTA, or rank 0 of each cluster) of 3 launches
template <typename F>
double median_cycles(F launch, int ctas, long long* d) {
  std::vector<double> per;
  std::vector<long long> c(ctas);
  for (int rep = 0; rep < 4; ++rep) {
    CK(cudaMemset(d, 0, ctas * sizeof(long long)));
    launch();
    CKLAUNCH();
    CK(cudaDeviceSynchronize());
    if (rep == 0) continue;
    CK(cudaMemcpy(c.data(), d, ctas * sizeof(long long), cudaMemcpyDeviceToHost));
    std::vector<double> v;
    for (long long x : c)
      if (x > 0) v.push_back((double)x);
    per.push_back(median(v));
  }
  return median(per);
}

}  // namespace

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "calibration_sync.csv";
  const int sms = open_device0();
  CalibCsv csv(out);
  long long* d;
  CK(cudaMalloc(&d, 2 * sms * sizeof(long long)));
  const std::string common = "; one CTA per SM on " + std::to_string(sms) + " SMs (clusters: " + std::to_string(sms / 2) +
                             " of 2); clock64 in thread 0 around " + std::to_string(kIters) +
                             " round trips after 64 warm-up ones; median over CTAs of the median of 3 launches";
  auto one_way = [&](const char* q, const char* what, double cyc) {
    csv.row(q, cyc / kIters / 2.0, "cycles", std::string(what) + common, 1);
  };
  one_way("mbarrier_one_way_other_subpartition",
          "mbarrier arrive (one lane) to the wake of a warp waiting in a try_wait.parity loop, warps 0 and 1 of a "
          "64-thread CTA (different sub-partitions), ping-pong on two barriers; value = round trip / 2",
          median_cycles([&] { mbar_pingpong<1, 32><<<sms, 64>>>(kIters, d); }, sms, d));
  one_way("mbarrier_one_way_same_subpartition",
          "the same between warps 0 and 4 of a 160-thread CTA (the same sub-partition); value = round trip / 2",
          median_cycles([&] { mbar_pingpong<4, 32><<<sms, 160>>>(kIters, d); }, sms, d));
  one_way("mbarrier_one_way_to_warpgroup",
          "the same, the answering side a whole warpgroup (threads 128-255 wait, thread 128 arrives), as a GEMM's "
          "consumers wait on a full barrier; value = round trip / 2",
          median_cycles([&] { mbar_pingpong<4, 128><<<sms, 256>>>(kIters, d); }, sms, d));
  one_way("named_barrier_one_way_warpgroups",
          "two warpgroups take turns through named barriers 1 and 2 (bar.arrive id, 256 / bar.sync id, 256), as "
          "ping-pong consumer warpgroups do; value = round trip / 2",
          median_cycles([&] { bar_pingpong<<<sms, 256>>>(kIters, d); }, sms, d));
  one_way("mbarrier_one_way_cluster_peer",
          "mbarrier ping-pong between warp 0 of the two CTAs of a 2-CTA cluster: mapa + "
          "mbarrier.arrive.release.cluster on the peer's barrier, try_wait.parity.acquire.cluster on one's own; "
          "value = round trip / 2",
          median_cycles([&] { cluster_pingpong<<<(sms / 2) * 2, 32>>>(kIters, d); }, (sms / 2) * 2, d));
  csv.row("syncthreads_384_threads", median_cycles([&] { syncthreads_loop<<<sms, 384>>>(kIters, d); }, sms, d) / kIters,
          "cycles", "__syncthreads() of a 384-thread CTA in a loop; value = cycles per barrier" + common, 1);
  std::printf("calib_sync done\n");
  return 0;
}
