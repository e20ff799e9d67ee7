// calib_mem: memory-system calibration numbers for tgsim's H200 config.
//
// What it measures (rows appended to the calibration CSV: quantity,value,unit,method):
//  * HBM bandwidth on 4 GiB buffers (64x the L2): cudaMemcpyAsync device-to-device (bytes
//    read + written), a copy kernel (read + write), a read-only kernel and a write-only
//    kernel; 16-byte (int4) accesses, grid-stride, 4 independent loads in flight per
//    thread, 8 blocks x 256 threads per SM. Median of 15 reps timed with CUDA events.
//  * L2 bandwidth: a read-only kernel (ld.global.cg, so L1 is bypassed) sweeping a
//    resident buffer of 4..40 MiB (and 48, 64, 128 MiB to show where it leaves L2) many
//    times in one launch on all SMs; bytes = sweeps x buffer; one warm-up launch first;
//    median of 15 reps (l2_bw_read_*). A second kernel keeps 4 independent loads in flight
//    per thread at any buffer size, reading (i + j*T) mod n (l2_bw_read_ilp4_*).
//  * Load latency by pointer chasing, one thread, cycles from clock64 around N dependent
//    64-bit loads: L1 hit (16 KiB chain, ld.ca, warm), L2 hit (8 MiB chain, ld.cg, warm),
//    DRAM (random chains over 256 MiB and 1 GiB, ld.cg, L2 flushed by a 256 MiB write first;
//    128-byte slots in random order, so each load is a new line; TLB misses included).
//
// Usage: calib_mem [calibration.csv]
#include "common.h"

#include <numeric>
#include <random>

using namespace bench;

__device__ __forceinline__ int4 ldcg4(const int4* p) { return __ldcg(p); }

__global__ void read_kernel(const int4* __restrict__ p, size_t n, int4* sink) {
  int4 acc = make_int4(0, 0, 0, 0);
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    int4 a = p[i], b = p[i + stride], c = p[i + 2 * stride], d = p[i + 3 * stride];
    acc.x ^= a.x ^ b.x ^ c.x ^ d.x; acc.y ^= a.y ^ b.y ^ c.y ^ d.y;
    acc.z ^= a.z ^ b.z ^ c.z ^ d.z; acc.w ^= a.w ^ b.w ^ c.w ^ d.w;
  }
  for (; i < n; i += stride) { int4 a = p[i]; acc.x ^= a.x; acc.y ^= a.y; acc.z ^= a.z; acc.w ^= a.w; }
  if ((acc.x & acc.y & acc.z & acc.w) == 0x7fffffff) sink[0] = acc;  // keeps the loads alive
}

__global__ void write_kernel(int4* __restrict__ p, size_t n, int v) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
    p[i] = make_int4(v, (int)i, v ^ (int)i, 1);
}

__global__ void copy_kernel(const int4* __restrict__ s, int4* __restrict__ d, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    int4 a = s[i], b = s[i + stride], c = s[i + 2 * stride], e = s[i + 3 * stride];
    d[i] = a; d[i + stride] = b; d[i + 2 * stride] = c; d[i + 3 * stride] = e;
  }
  for (; i < n; i += stride) d[i] = s[i];
}

// n = int4 elements of the resident buffer; sweeps = passes over it inside the kernel
__global__ void l2_read_kernel(const int4* __restrict__ p, size_t n, int sweeps, int4* sink) {
  int4 acc = make_int4(0, 0, 0, 0);
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i0 = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  for (int s = 0; s < sweeps; ++s) {
    size_t i = i0;
    for (; i + 3 * stride < n; i += 4 * stride) {
      int4 a = ldcg4(p + i), b = ldcg4(p + i + stride), c = ldcg4(p + i + 2 * stride), d = ldcg4(p + i + 3 * stride);
      acc.x ^= a.x ^ b.x ^ c.x ^ d.x; acc.y ^= a.y ^ b.y ^ c.y ^ d.y;
      acc.z ^= a.z ^ b.z ^ c.z ^ d.z; acc.w ^= a.w ^ b.w ^ c.w ^ d.w;
    }
    for (; i < n; i += stride) { int4 a = ldcg4(p + i); acc.x ^= a.x; acc.y ^= a.y; acc.z ^= a.z; acc.w ^= a.w; }
    acc.x += s;
  }
  if ((acc.x & acc.y & acc.z & acc.w) == 0x7fffffff) sink[0] = acc;
}

// L2 read with 4 independent 16-B loads per thread per iteration at (i + j*T) mod n,
// j = 0..3, T = threads in the grid: every thread keeps 4 loads in flight whatever the
// buffer size (the grid-stride kernel above has only one per thread for small buffers).
__global__ void l2_read_ilp_kernel(const int4* __restrict__ p, unsigned n, int iters, int4* sink) {
  const unsigned T = gridDim.x * blockDim.x;
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned step = (unsigned)((4ull * T) % n);
  unsigned o0 = tid % n, o1 = (unsigned)((tid + (unsigned long long)T) % n),
           o2 = (unsigned)((tid + 2ull * T) % n), o3 = (unsigned)((tid + 3ull * T) % n);
  int4 acc = make_int4(0, 0, 0, 0);
  for (int it = 0; it < iters; ++it) {
    int4 a = ldcg4(p + o0), b = ldcg4(p + o1), c = ldcg4(p + o2), d = ldcg4(p + o3);
    acc.x ^= a.x ^ b.x ^ c.x ^ d.x; acc.y ^= a.y ^ b.y ^ c.y ^ d.y;
    acc.z ^= a.z ^ b.z ^ c.z ^ d.z; acc.w ^= a.w ^ b.w ^ c.w ^ d.w;
    o0 += step; o0 -= o0 >= n ? n : 0;
    o1 += step; o1 -= o1 >= n ? n : 0;
    o2 += step; o2 -= o2 >= n ? n : 0;
    o3 += step; o3 -= o3 >= n ? n : 0;
  }
  if ((acc.x & acc.y & acc.z & acc.w) == 0x7fffffff) sink[0] = acc;
}

template <int MODE>  // 0: ld.ca (L1), 1: ld.cg (L2)
__global__ void chase_kernel(uint64_t p0, int steps, long long* cycles, uint64_t* sink) {
  uint64_t p = p0;
  long long t0 = clock64();
  for (int i = 0; i < steps; ++i) {
    if (MODE == 0) asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(p) : "l"(p) : "memory");
    else asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(p) : "l"(p) : "memory");
  }
  long long t1 = clock64();
  cycles[0] = t1 - t0;
  sink[0] = p;
}

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "calibration.csv";
  const int sms = open_device0();
  Nvml nvml(0);
  CalibCsv csv(out);

  const size_t BYTES = 4ull << 30;
  const size_t N4 = BYTES / 16;
  int4 *a, *b, *sink;
  CK(cudaMalloc(&a, BYTES));
  CK(cudaMalloc(&b, BYTES));
  CK(cudaMalloc(&sink, 64));
  fill_random((float*)a, BYTES / 4, 7);
  fill_random((float*)b, BYTES / 4, 8);
  CK(cudaDeviceSynchronize());

  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  auto time_ms = [&](auto&& fn, int reps) {
    fn();  // warm-up
    CK(cudaDeviceSynchronize());
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
      CK(cudaEventRecord(e0));
      fn();
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      CK(cudaGetLastError());
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      t.push_back(ms);
    }
    return median(t);
  };
  const int grid = sms * 8, blk = 256;
  const int REPS = 15;
  std::printf("HBM bandwidth (4 GiB buffers)\n");
  double ms;
  ms = time_ms([&] { CK(cudaMemcpyAsync(b, a, BYTES, cudaMemcpyDeviceToDevice)); }, REPS);
  csv.row("hbm_bw_memcpy_d2d", 2.0 * BYTES / (ms * 1e-3) / 1e9, "GB/s",
          "cudaMemcpyAsync D2D 4 GiB; bytes read+written; median of 15 reps; CUDA events");
  ms = time_ms([&] { copy_kernel<<<grid, blk>>>(a, b, N4); }, REPS);
  csv.row("hbm_bw_copy_kernel", 2.0 * BYTES / (ms * 1e-3) / 1e9, "GB/s",
          "copy kernel int4 loads/stores 4 GiB; 8x256 threads/SM; bytes read+written; median of 15 reps");
  ms = time_ms([&] { read_kernel<<<grid, blk>>>(a, N4, sink); }, REPS);
  csv.row("hbm_bw_read", BYTES / (ms * 1e-3) / 1e9, "GB/s",
          "read-only kernel int4 loads 4 GiB (4 loads in flight/thread); 8x256 threads/SM; median of 15 reps");
  ms = time_ms([&] { write_kernel<<<grid, blk>>>(b, N4, 3); }, REPS);
  csv.row("hbm_bw_write", BYTES / (ms * 1e-3) / 1e9, "GB/s",
          "write-only kernel int4 stores 4 GiB; 8x256 threads/SM; median of 15 reps");
  std::printf("    (SM clock after: %.0f MHz, memory clock %.0f MHz)\n", nvml.sm_mhz(), nvml.mem_mhz());

  std::printf("L2 bandwidth (read-only, ld.global.cg, resident buffer)\n");
  for (int mib : {4, 8, 16, 24, 32, 40, 48, 64, 128}) {
    size_t bytes = (size_t)mib << 20;
    int sweeps = (int)std::max<size_t>(1, (8ull << 30) / bytes);
    if (mib >= 64) sweeps = std::max(1, sweeps / 4);
    size_t n = bytes / 16;
    ms = time_ms([&] { l2_read_kernel<<<grid, blk>>>(a, n, sweeps, sink); }, REPS);
    char q[64], m[256];
    std::snprintf(q, sizeof q, "l2_bw_read_%dMiB", mib);
    std::snprintf(m, sizeof m,
                  "read-only kernel ld.global.cg int4 over a %d MiB buffer x %d sweeps in one launch; all SMs "
                  "8x256 threads; warm-up launch; median of 15 reps",
                  mib, sweeps);
    csv.row(q, (double)bytes * sweeps / (ms * 1e-3) / 1e9, "GB/s", m);
  }
  for (int mib : {4, 8, 16, 24, 32, 40, 48, 64, 128}) {
    size_t bytes = (size_t)mib << 20;
    unsigned n = (unsigned)(bytes / 16);
    const long long T = (long long)grid * blk;
    int iters = (int)((8ull << 30) / (64ull * T));  // ~8 GiB of loads per launch
    if (mib >= 64) iters /= 4;
    ms = time_ms([&] { l2_read_ilp_kernel<<<grid, blk>>>(a, n, iters, sink); }, REPS);
    char q[64], m[256];
    std::snprintf(q, sizeof q, "l2_bw_read_ilp4_%dMiB", mib);
    std::snprintf(m, sizeof m,
                  "read-only kernel ld.global.cg int4; 4 independent loads/thread/iteration at (i+j*T) mod n over a "
                  "%d MiB buffer; %d iterations; all SMs 8x256 threads; bytes = loads issued x 16; median of 15 reps",
                  mib, iters);
    csv.row(q, (double)iters * 64.0 * T / (ms * 1e-3) / 1e9, "GB/s", m);
  }
  double clk_l2 = nvml.sm_mhz();
  std::printf("    (SM clock after: %.0f MHz)\n", clk_l2);

  std::printf("Latency (pointer chase, one thread, clock64)\n");
  long long* d_cyc;
  uint64_t* d_sink;
  CK(cudaMalloc(&d_cyc, sizeof(long long)));
  CK(cudaMalloc(&d_sink, sizeof(uint64_t)));
  std::mt19937_64 rng(12345);
  void* flush;
  CK(cudaMalloc(&flush, 256ull << 20));
  struct LatCase { const char* q; size_t bytes; int mode; bool warm; int steps; const char* m; };
  const LatCase cases[] = {
      {"l1_hit_latency", 16 << 10, 0, true, 20000, "ld.global.ca chain over 16 KiB (128 B slots, random order), warm"},
      {"l2_hit_latency", 8 << 20, 1, true, 65536, "ld.global.cg chain over 8 MiB (128 B slots, random order), warm; mixes near and far L2 partitions"},
      {"dram_latency_256MiB", 256ull << 20, 1, false, 20000, "ld.global.cg random chain over 256 MiB (128 B slots), L2 flushed first; TLB misses included"},
      {"dram_latency_1GiB", 1ull << 30, 1, false, 20000, "ld.global.cg random chain over 1 GiB (128 B slots), L2 flushed first; TLB misses included"},
  };
  for (const auto& c : cases) {
    size_t slots = c.bytes / 128;
    std::vector<uint64_t> order(slots);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    // the chain lives in buffer b (8-byte words; slot s at word s*16)
    std::vector<uint64_t> host(c.bytes / 8, 0);
    uint64_t base = (uint64_t)b;
    for (size_t i = 0; i < slots; ++i) host[order[i] * 16] = base + order[(i + 1) % slots] * 128;
    CK(cudaMemcpy(b, host.data(), c.bytes, cudaMemcpyHostToDevice));
    uint64_t p0 = base + order[0] * 128;
    int steps = c.steps;
    if (c.warm) {
      int wsteps = (int)std::min<size_t>(slots, 1 << 20);
      if (c.mode == 0) chase_kernel<0><<<1, 1>>>(p0, wsteps, d_cyc, d_sink);
      else chase_kernel<1><<<1, 1>>>(p0, wsteps, d_cyc, d_sink);
    } else {
      CK(cudaMemset(flush, 1, 256ull << 20));
    }
    CK(cudaDeviceSynchronize());
    if (c.mode == 0) chase_kernel<0><<<1, 1>>>(p0, steps, d_cyc, d_sink);
    else chase_kernel<1><<<1, 1>>>(p0, steps, d_cyc, d_sink);
    CK(cudaDeviceSynchronize());
    CKLAUNCH();
    long long cyc;
    CK(cudaMemcpy(&cyc, d_cyc, sizeof cyc, cudaMemcpyDeviceToHost));
    double clk = nvml.sm_mhz();
    char m[320];
    std::snprintf(m, sizeof m, "pointer chase; one thread; %d dependent 64-bit loads; clock64 cycles/load; %s (SM clock read after: %.0f MHz)",
                  steps, c.m, clk);
    csv.row(c.q, (double)cyc / steps, "cycles", m, 1);
  }
  std::printf("calib_mem done\n");
  return 0;
}
