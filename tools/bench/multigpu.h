// tgsim_bench multi-GPU helpers (calib_nvlink, sm_split): peer-access set-up, per-device
// streams and L2-flush buffers, a globaltimer reader, and the writer of
// calibration_nvlink.csv (one header shared by every program that appends to it).
#pragma once

#include "common.h"

#include <string>
#include <vector>

namespace bench {

__device__ __forceinline__ unsigned long long globaltimer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

// Two GPUs (0 and 1) with peer access enabled both ways, one non-blocking stream each and
// a 256 MiB buffer each for L2 flushes (memset; the H200's L2 is 60 MiB).
struct PeerPair {
  static constexpr size_t kFlushBytes = 256ull << 20;
  int ndev = 0;
  bool peer_ok = false;
  int nsm = 0;
  cudaStream_t s[2] = {nullptr, nullptr};
  void* flushbuf[2] = {nullptr, nullptr};
  int flush_val = 1;
  std::string topo;  // "p2p 0->1 attr perf rank X, native atomics Y" etc.

  bool init() {
    CK(cudaGetDeviceCount(&ndev));
    std::printf("# %d CUDA devices\n", ndev);
    for (int d = 0; d < ndev; ++d) print_device(d);
    if (ndev < 2) { std::fprintf(stderr, "need 2 GPUs\n"); return false; }
    int a01 = 0, a10 = 0;
    CK(cudaDeviceCanAccessPeer(&a01, 0, 1));
    CK(cudaDeviceCanAccessPeer(&a10, 1, 0));
    int rank = -1, atom = -1;
    cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, 0, 1);
    cudaDeviceGetP2PAttribute(&atom, cudaDevP2PAttrNativeAtomicSupported, 0, 1);
    char b[160];
    std::snprintf(b, sizeof b, "canAccessPeer 0->1 %d 1->0 %d, P2P performance rank %d, native atomics %d",
                  a01, a10, rank, atom);
    topo = b;
    std::printf("# %s\n", b);
    if (!a01 || !a10) { std::fprintf(stderr, "no peer access between GPU 0 and 1\n"); return false; }
    for (int d = 0; d < 2; ++d) {
      CK(cudaSetDevice(d));
      cudaError_t e = cudaDeviceEnablePeerAccess(1 - d, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
      else CK(e);
      CK(cudaStreamCreateWithFlags(&s[d], cudaStreamNonBlocking));
      CK(cudaMalloc(&flushbuf[d], kFlushBytes));
    }
    CK(cudaSetDevice(0));
    cudaDeviceProp p{};
    CK(cudaGetDeviceProperties(&p, 0));
    nsm = p.multiProcessorCount;
    peer_ok = true;
    return true;
  }
  // memset of 256 MiB on device d's stream (evicts that GPU's L2; the value changes each
  // call so no write is ever skipped as redundant)
  void flush(int d) {
    CK(cudaSetDevice(d));
    CK(cudaMemsetAsync(flushbuf[d], (flush_val++) & 0xff, kFlushBytes, s[d]));
    CK(cudaSetDevice(0));
  }
  // flush GPU 1 and wait for it, then queue a flush of GPU 0 on stream 0: whatever is
  // queued on s[0] next starts with both L2s cold and GPU 1 idle.
  void flush_both() {
    flush(1);
    CK(cudaStreamSynchronize(s[1]));
    flush(0);
  }
};

// calibration_nvlink.csv: one row per measured quantity. Columns (empty = not applicable):
//   test       what was measured (push_vs_ctas, pull_vs_ctas, push_1sm, pull_1sm,
//              size_sweep, latency, mma_loop, ...)
//   direction  0to1 (GPU 0's kernel stores into GPU 1), 1to0_pull (GPU 0's kernel loads
//              from GPU 1), bidir (both GPUs push at once), "" where none
//   method     sm_copy (SM loads/stores, 16 B per thread per access), copy_engine
//              (cudaMemcpyPeerAsync), flag ping-pong variants, mma_sync
//   ctas,threads,unroll,chains,bytes  the configuration (bytes: payload of one transfer,
//              per direction)
//   time_us    median time; gbps = bytes / time (per direction; bidir: both directions
//              together, 2*bytes/time) in 1e9 B/s
//   value,unit a derived quantity (latency ns, cycles per mma, ...)
//   spread_pct (max-min)/median of the pass medians; reps (per pass); passes; note
struct NvCsv {
  FILE* f = nullptr;
  explicit NvCsv(const char* path) {
    if (!path) return;
    f = std::fopen(path, "a+");
    if (!f) { std::perror(path); return; }
    std::fseek(f, 0, SEEK_END);
    if (std::ftell(f) == 0)
      std::fprintf(f, "test,direction,method,ctas,threads,unroll,chains,bytes,time_us,gbps,value,unit,"
                      "spread_pct,reps,passes,note\n");
    std::fflush(f);
  }
  ~NvCsv() { if (f) std::fclose(f); }
  struct Row {
    std::string test, direction, method;
    long long ctas = -1, threads = -1, unroll = -1, chains = -1, bytes = -1;
    double time_us = NAN, gbps = NAN, value = NAN;
    std::string unit;
    double spread_pct = NAN;
    int reps = -1, passes = -1;
    std::string note;
  };
  static std::string I(long long v) { return v < 0 ? std::string() : std::to_string(v); }
  void row(const Row& r) {
    std::printf("  %-13s %-9s %-22s ctas=%-4s thr=%-4s u=%-2s ch=%-2s bytes=%-11s t=%10s us %9s GB/s %10s %-16s spread %s%%\n",
                r.test.c_str(), r.direction.c_str(), r.method.c_str(), I(r.ctas).c_str(), I(r.threads).c_str(),
                I(r.unroll).c_str(), I(r.chains).c_str(), I(r.bytes).c_str(), fmt(r.time_us, 2).c_str(),
                fmt(r.gbps, 1).c_str(), fmt(r.value, 2).c_str(), r.unit.c_str(), fmt(r.spread_pct, 1).c_str());
    std::fflush(stdout);
    if (!f) return;
    std::fprintf(f, "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", csv_field(r.test).c_str(),
                 csv_field(r.direction).c_str(), csv_field(r.method).c_str(), I(r.ctas).c_str(),
                 I(r.threads).c_str(), I(r.unroll).c_str(), I(r.chains).c_str(), I(r.bytes).c_str(),
                 fmt(r.time_us, 3).c_str(), fmt(r.gbps, 2).c_str(), fmt(r.value, 3).c_str(),
                 csv_field(r.unit).c_str(), fmt(r.spread_pct, 2).c_str(), I(r.reps).c_str(), I(r.passes).c_str(),
                 csv_field(r.note).c_str());
    std::fflush(f);
  }
};

// (max - min) / median in percent
inline double spread_pct(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  double m = median(v);
  return m > 0 ? (vmax(v) - vmin(v)) / m * 100.0 : NAN;
}

}  // namespace bench
