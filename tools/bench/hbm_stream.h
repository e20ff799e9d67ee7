// hbm_stream: a kernel that streams a buffer far larger than L2 from HBM for a fixed time, alone
// or beside calib_pipe_power's MMA mixes (a second stream, co-resident on every SM), so the power
// an HBM stream adds to tensor work can be measured (calib_pipe_power phases hbm_read, *_hbm;
// docs/model.md, "The SM clock").
// Each CTA's threads issue 8 independent 16-byte ld.global.cs (streaming, evict-first) loads per
// iteration, coalesced across the grid, until `dur_ns` of %globaltimer have passed; thread 0
// writes the CTA's bytes, nanoseconds and clock64 cycles.
#pragma once

#include "common.h"

namespace bench {

constexpr size_t kHbmBufBytes = size_t(8) << 30;  // 8 GiB: 136 times the H200's L2

__global__ void hbm_stream_kernel(const int4* __restrict__ p, size_t n_int4, unsigned long long dur_ns,
                                  unsigned long long* bytes, unsigned long long* ns, long long* cycles,
                                  unsigned long long* clock_ns, float* sink) {
  unsigned long long g0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  const long long t0 = clock64();
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) % n_int4;
  int acc = 0;
  unsigned long long iters = 0, g = g0;
  while (g - g0 < dur_ns) {
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int4 v = __ldcs(p + (i + k * stride) % n_int4);
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    i = (i + 8 * stride) % n_int4;
    ++iters;
    if ((iters & 15) == 0) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
  }
  __syncthreads();
  const long long t1 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
  if (acc == 0x1234567) sink[threadIdx.x] = (float)acc;
  if (threadIdx.x == 0) {
    bytes[blockIdx.x] = iters * 8 * 16 * blockDim.x;
    ns[blockIdx.x] = g - g0;
    if (cycles != nullptr) cycles[blockIdx.x] = t1 - t0;  // with clock_ns: the SM's effective clock
    if (clock_ns != nullptr) clock_ns[blockIdx.x] = g - g0;
  }
}

// The HBM stream's state: its buffer, per-CTA counters and the two streams the combined phases
// launch on (the MMA mix on one, the stream on the other, so they run side by side).
struct HbmStream {
  int4* buf = nullptr;
  unsigned long long* bytes = nullptr;
  unsigned long long* ns = nullptr;
  cudaStream_t mix = nullptr, hbm = nullptr;
  void init(int sms) {
    CK(cudaMalloc(&buf, kHbmBufBytes));
    CK(cudaMemset(buf, 1, kHbmBufBytes));
    CK(cudaMalloc(&bytes, sms * sizeof(unsigned long long)));
    CK(cudaMalloc(&ns, sms * sizeof(unsigned long long)));
    CK(cudaStreamCreateWithFlags(&mix, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&hbm, cudaStreamNonBlocking));
  }
  // Launch on `s`: `threads` per CTA, one CTA per SM, streaming for dur_ns.
  void launch(cudaStream_t s, int sms, int threads, unsigned long long dur_ns, long long* cycles, float* sink,
              unsigned long long* clock_ns) const {
    hbm_stream_kernel<<<sms, threads, 0, s>>>(buf, kHbmBufBytes / sizeof(int4), dur_ns, bytes, ns, cycles, clock_ns,
                                              sink);
  }
  // GB/s of the last launch: sum over CTAs of bytes / median CTA time.
  double gbps(int sms) const {
    std::vector<unsigned long long> b(sms), t(sms);
    CK(cudaMemcpy(b.data(), bytes, sms * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(t.data(), ns, sms * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    double total = 0, tmax = 0;
    for (int i = 0; i < sms; ++i) {
      total += (double)b[i];
      tmax = std::max(tmax, (double)t[i]);
    }
    return tmax > 0 ? total / tmax : 0.0;  // bytes per ns = GB/s
  }
};

}  // namespace bench
