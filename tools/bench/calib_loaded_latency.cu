// calib_loaded_latency: the HBM's load-to-use latency while other SMs stream from HBM — how a
// miss's latency grows with the bandwidth in use (docs/model.md, hbm.loaded_latency).
//
// What it measures: one thread of CTA 0 chases pointers through 512 MiB of 128-byte lines in a
// random cyclic order (each line visited once: every hop an L2 miss after the 256 MiB memset
// that precedes each launch), timing HOPS hops with %globaltimer and clock64; meanwhile S other
// CTAs of 512 threads each stream their own 32 MiB of an 8.25 GiB buffer with 16-byte loads (4
// in flight per thread), sleeping `throttle` ns after every 4 loads, until the chase is done.
// Rows: per (S, throttle): the streamers' HBM read rate (their bytes over their span), the
// chase's ns and SM cycles per hop (median of 3 launches after a warm-up).
//
// Usage: calib_loaded_latency [calibration_loaded_latency.csv]
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common.h"

using namespace bench;

namespace {

constexpr int kHops = 3000;
constexpr int kLine = 128;                               // bytes per chase line
constexpr long long kChaseBytes = 512ll << 20;           // chase footprint
constexpr long long kSlice = 32ll << 20;                 // bytes per streamer CTA
constexpr int kMaxStreamers = 264;
constexpr int kStreamThreads = 512;

__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

struct Out {
  unsigned long long probe_ns;
  long long probe_cycles;
  unsigned sink;
};

__global__ void __launch_bounds__(kStreamThreads) loaded_kernel(const uint32_t* chase, const uint4* stream, int streamers,
                                                                int throttle_ns, volatile int* started, volatile int* done,
                                                                unsigned long long* bytes, unsigned long long* t0,
                                                                unsigned long long* t1, Out* out) {
  if (blockIdx.x == 0) {
    if (threadIdx.x != 0) return;
    for (int spin = 0; spin < 1000000 && *started < streamers; ++spin) __nanosleep(100);
    uint32_t p = 0;
    for (int i = 0; i < 64; ++i) p = __ldcg(chase + (size_t)p * (kLine / 4));  // settle
    const unsigned long long g0 = gtime();
    const long long c0 = clock64();
    for (int i = 0; i < kHops; ++i) p = __ldcg(chase + (size_t)p * (kLine / 4));
    const long long c1 = clock64();
    const unsigned long long g1 = gtime();
    out->probe_ns = g1 - g0;
    out->probe_cycles = c1 - c0;
    out->sink = p;
    __threadfence();
    *done = 1;
    return;
  }
  const int s = blockIdx.x - 1;
  const uint4* base = stream + (size_t)s * (kSlice / 16);
  const size_t n = kSlice / 16;
  if (threadIdx.x == 0) {
    t0[s] = gtime();
    atomicAdd((int*)started, 1);
  }
  uint32_t acc = 0;
  unsigned long long moved = 0;
  size_t i = threadIdx.x;
  while (*done == 0) {
    uint4 v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = __ldcs(base + (i + (size_t)u * kStreamThreads) % n);
#pragma unroll
    for (int u = 0; u < 4; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    i = (i + 4 * kStreamThreads) % n;
    moved += 64;
    if (throttle_ns > 0) __nanosleep(throttle_ns);
  }
  atomicAdd(&bytes[s], moved);
  __syncthreads();
  if (threadIdx.x == 0) t1[s] = gtime();
  if (acc == 0x12345678u) out->sink = acc;
}

__global__ void link_lines(const uint32_t* perm, uint32_t* chase, long long lines) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < lines) chase[(size_t)perm[i] * (kLine / 4)] = perm[(i + 1) % lines];
}

}  // namespace

int main(int argc, char** argv) {
  const int sms = open_device0();
  CalibCsv csv(argc > 1 ? argv[1] : nullptr);
  const long long lines = kChaseBytes / kLine;
  std::vector<uint32_t> perm(lines);
  std::iota(perm.begin(), perm.end(), 0u);
  std::mt19937_64 rng(0x10ad);
  for (long long i = lines - 1; i > 0; --i) std::swap(perm[i], perm[rng() % i]);  // Sattolo: one cycle
  // the chase starts at line 0: rotate so that perm[0] == 0
  const auto z = std::find(perm.begin(), perm.end(), 0u);
  std::rotate(perm.begin(), z, perm.end());
  uint32_t *d_perm, *chase;
  uint4* stream;
  uint8_t* flush;
  CK(cudaMalloc(&d_perm, lines * 4));
  CK(cudaMalloc(&chase, kChaseBytes));
  CK(cudaMalloc(&stream, kSlice * kMaxStreamers));
  CK(cudaMalloc(&flush, 256ll << 20));
  CK(cudaMemcpy(d_perm, perm.data(), lines * 4, cudaMemcpyHostToDevice));
  CK(cudaMemset(chase, 0, kChaseBytes));
  link_lines<<<(unsigned)((lines + 255) / 256), 256>>>(d_perm, chase, lines);
  CKLAUNCH();
  CK(cudaMemset(stream, 0x3c, kSlice * kMaxStreamers));
  int *started, *done;
  unsigned long long *bytes, *t0, *t1;
  Out* out;
  CK(cudaMalloc(&started, 4));
  CK(cudaMalloc(&done, 4));
  CK(cudaMalloc(&bytes, kMaxStreamers * 8));
  CK(cudaMalloc(&t0, kMaxStreamers * 8));
  CK(cudaMalloc(&t1, kMaxStreamers * 8));
  CK(cudaMalloc(&out, sizeof(Out)));
  CK(cudaDeviceSynchronize());
  struct Case { int streamers, throttle; };
  std::vector<Case> cases = {{0, 0}, {8, 0}, {16, 0}, {33, 0}, {66, 0}, {132, 0}, {264, 0},
                             {264, 16000}, {264, 8000}, {264, 4000}, {264, 2000}, {264, 1000}, {264, 500}};
  std::printf("calib_loaded_latency: %d hops over %lld MiB; streamers of %d threads, 32 MiB each\n", kHops,
              kChaseBytes >> 20, kStreamThreads);
  for (const Case& c : cases) {
    std::vector<double> ns, cyc, gbps;
    for (int rep = 0; rep < 4; ++rep) {
      CK(cudaMemset(flush, rep, 256ll << 20));
      CK(cudaMemset(started, 0, 4));
      CK(cudaMemset(done, 0, 4));
      CK(cudaMemset(bytes, 0, kMaxStreamers * 8));
      loaded_kernel<<<1 + c.streamers, kStreamThreads>>>(chase, stream, c.streamers, c.throttle, started, done, bytes, t0,
                                                         t1, out);
      CKLAUNCH();
      CK(cudaDeviceSynchronize());
      if (rep == 0) continue;
      Out h{};
      CK(cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost));
      ns.push_back((double)h.probe_ns / kHops);
      cyc.push_back((double)h.probe_cycles / kHops);
      if (c.streamers > 0) {
        std::vector<unsigned long long> b(c.streamers), a(c.streamers), e(c.streamers);
        CK(cudaMemcpy(b.data(), bytes, c.streamers * 8, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(a.data(), t0, c.streamers * 8, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(e.data(), t1, c.streamers * 8, cudaMemcpyDeviceToHost));
        const double sum = std::accumulate(b.begin(), b.end(), 0.0);
        const double span = (double)(*std::max_element(e.begin(), e.end()) - *std::min_element(a.begin(), a.end()));
        gbps.push_back(sum / span);
      } else {
        gbps.push_back(0);
      }
    }
    const std::string tag = "loaded_latency_s" + std::to_string(c.streamers) + "_t" + std::to_string(c.throttle);
    char m[480];
    std::snprintf(m, sizeof m,
                  "one thread chases %d random 128-byte lines of a 512 MiB region (L2 misses; 256 MiB memset before each "
                  "launch) while %d CTAs of 512 threads on %d SMs stream 16-byte loads from 32 MiB each, %d ns sleep per 4 "
                  "loads; median of 3 launches (tools/bench/calib_loaded_latency.cu)",
                  kHops, c.streamers, sms, c.throttle);
    csv.row(tag + "_hbm_read", median(gbps), "GB/s", m, 1);
    csv.row(tag + "_ns_per_hop", median(ns), "ns", m, 1);
    csv.row(tag + "_cycles_per_hop", median(cyc), "cycles", m, 1);
  }
  return 0;
}
