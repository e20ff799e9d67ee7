// calib_icache: what straight-line code costs a warp the first time it runs — instruction fetch.
//
// Why: a kernel measured after an L2 flush (as tgsim's validation traces are) starts with its
// code in HBM, and FlashAttention-2's kernels are 64-86 KB of straight-line SASS whose warps
// stall on instruction fetch in short causal runs (traces/h200/attention_short_ncu_*).
// Kernel: each warp runs a straight-line body of S KiB (S * 1024 / 16 FFMA instructions from
// inline PTX, 8 independent chains, so it could issue one per cycle) `reps` times in a loop;
// clock64 around the loop, per warp. Variants:
//   S = 2 ... 256 KiB; 1 warp or 4 warps (one per sub-partition) per CTA; 1 CTA on one SM, one
//   CTA on each of the 132 SMs, or two per SM (dynamic shared memory forces the count);
//   reps = 1 (each instruction fetched once) and 4 (the body re-run: what stays cached);
//   flushed (256 MiB memset before the launch: the code is in HBM only), warm (the same kernel
//   ran just before: the code is in L2, maybe still in the SM's instruction caches) or l2 (the
//   same kernel, then 255 KiB of other code on every SM: the code in L2, the SMs' caches not).
// Cycles per instruction = median over warps of the loop's cycles / (instructions x reps); 1.0
// would be no fetch cost. Median of 5 launches after a warm-up.
// Two streams per sub-partition (`pair`): one CTA of 8 warps per SM, so each sub-partition holds
// warps w and w + 4; both run the same body (same) or warps 4-7 a different body of the same size
// (diverged, different code addresses): whether two instruction streams share the fetch path.
//
// capacity: where the fast instruction cache ends: one stream of 24-56 KiB and two diverged
// streams of 12-28 KiB each (24-56 KiB together), warm, 4 re-runs.
//
// latency: whether a miss costs a warp that is itself latency-bound. The body is CHAINS dependent
// FFMA chains (1: each instruction waits ~4 cycles for the one before, so a cached warp issues at
// ~4 cycles per instruction and a fetch path of ~2.1 would keep up); one CTA per SM of 4 warps
// (one per sub-partition) or 8 (two per sub-partition, warps 4-7 on a different body), bodies of
// 8 KiB (cached) and 64 KiB (1 stream) / 32 KiB each (2 streams), warm, 4 re-runs.
//
// Usage: calib_icache [calibration_icache.csv] [pair|capacity|latency]   (only those rows)
#include <string>

#include "common.h"

using namespace bench;

namespace {

// The straight-line body: STEPS x 8 FFMA in 8 independent chains (inline PTX, so none is merged or
// moved); called with the multiplier and addend swapped it is the same size at other addresses.
template <int STEPS>
__device__ __forceinline__ void ffma_body(float& a0, float& a1, float& a2, float& a3, float& a4, float& a5, float& a6,
                                       float& a7, float m, float c) {
#pragma unroll
  for (int i = 0; i < STEPS; ++i) {
    asm volatile(
        "fma.rn.f32 %0, %0, %9, %8;\n\tfma.rn.f32 %1, %1, %9, %8;\n\tfma.rn.f32 %2, %2, %9, %8;\n\t"
        "fma.rn.f32 %3, %3, %9, %8;\n\tfma.rn.f32 %4, %4, %9, %8;\n\tfma.rn.f32 %5, %5, %9, %8;\n\t"
        "fma.rn.f32 %6, %6, %9, %8;\n\tfma.rn.f32 %7, %7, %9, %8;"
        : "+f"(a0), "+f"(a1), "+f"(a2), "+f"(a3), "+f"(a4), "+f"(a5), "+f"(a6), "+f"(a7)
        : "f"(m), "f"(c));
  }
}

template <int STEPS>
__global__ void __launch_bounds__(128) code_kernel(int reps, long long* cycles, float* sink) {
  float a0 = threadIdx.x * 1e-3f, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6,
        a7 = a0 + 7;
  const float m = 0.9999f, c = 0.0001f;
  __syncwarp();
  const long long t0 = clock64();
  for (int r = 0; r < reps; ++r) ffma_body<STEPS>(a0, a1, a2, a3, a4, a5, a6, a7, c, m);
  const long long t1 = clock64();
  const int warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) cycles[blockIdx.x * (blockDim.x / 32) + warp] = t1 - t0;
  const float e = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
  if (e == 12345.f) sink[threadIdx.x] = e;
}

template <int STEPS, bool DIVERGED>
__global__ void __launch_bounds__(256) pair_kernel(int reps, long long* cycles, float* sink) {
  float a0 = threadIdx.x * 1e-3f, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6,
        a7 = a0 + 7;
  const float m = 0.9999f, c = 0.0001f;
  const int warp = threadIdx.x / 32;
  __syncthreads();
  const long long t0 = clock64();
  if (DIVERGED && warp >= 4) {
    for (int r = 0; r < reps; ++r) ffma_body<STEPS>(a0, a1, a2, a3, a4, a5, a6, a7, c, m);
  } else {
    for (int r = 0; r < reps; ++r) ffma_body<STEPS>(a0, a1, a2, a3, a4, a5, a6, a7, m, c);
  }
  const long long t1 = clock64();
  if (threadIdx.x % 32 == 0) cycles[blockIdx.x * 8 + warp] = t1 - t0;
  const float e = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
  if (e == 12345.f) sink[threadIdx.x % 128] = e;
}

// CHAINS dependent FFMA chains, 8 instructions per step, round robin over the chains.
template <int STEPS, int CHAINS>
__device__ __forceinline__ void chain_body(float& a0, float& a1, float& a2, float& a3, float m, float c) {
#pragma unroll
  for (int i = 0; i < STEPS; ++i) {
    if constexpr (CHAINS == 1) {
      asm volatile(
          "fma.rn.f32 %0, %0, %2, %1;\n\tfma.rn.f32 %0, %0, %2, %1;\n\tfma.rn.f32 %0, %0, %2, %1;\n\t"
          "fma.rn.f32 %0, %0, %2, %1;\n\tfma.rn.f32 %0, %0, %2, %1;\n\tfma.rn.f32 %0, %0, %2, %1;\n\t"
          "fma.rn.f32 %0, %0, %2, %1;\n\tfma.rn.f32 %0, %0, %2, %1;"
          : "+f"(a0)
          : "f"(m), "f"(c));
    } else if constexpr (CHAINS == 2) {
      asm volatile(
          "fma.rn.f32 %0, %0, %3, %2;\n\tfma.rn.f32 %1, %1, %3, %2;\n\tfma.rn.f32 %0, %0, %3, %2;\n\t"
          "fma.rn.f32 %1, %1, %3, %2;\n\tfma.rn.f32 %0, %0, %3, %2;\n\tfma.rn.f32 %1, %1, %3, %2;\n\t"
          "fma.rn.f32 %0, %0, %3, %2;\n\tfma.rn.f32 %1, %1, %3, %2;"
          : "+f"(a0), "+f"(a1)
          : "f"(m), "f"(c));
    } else {
      asm volatile(
          "fma.rn.f32 %0, %0, %5, %4;\n\tfma.rn.f32 %1, %1, %5, %4;\n\tfma.rn.f32 %2, %2, %5, %4;\n\t"
          "fma.rn.f32 %3, %3, %5, %4;\n\tfma.rn.f32 %0, %0, %5, %4;\n\tfma.rn.f32 %1, %1, %5, %4;\n\t"
          "fma.rn.f32 %2, %2, %5, %4;\n\tfma.rn.f32 %3, %3, %5, %4;"
          : "+f"(a0), "+f"(a1), "+f"(a2), "+f"(a3)
          : "f"(m), "f"(c));
    }
  }
}

// One CTA per SM of `blockDim.x` / 32 warps; with 8 warps, warps 4-7 run the body at other code
// addresses (multiplier and addend swapped).
template <int STEPS, int CHAINS>
__global__ void __launch_bounds__(256) latency_kernel(int reps, long long* cycles, float* sink) {
  float a0 = threadIdx.x * 1e-3f, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3;
  const float m = 0.9999f, c = 0.0001f;
  const int warp = threadIdx.x / 32;
  __syncthreads();
  const long long t0 = clock64();
  if (warp >= 4) {
    for (int r = 0; r < reps; ++r) chain_body<STEPS, CHAINS>(a0, a1, a2, a3, c, m);
  } else {
    for (int r = 0; r < reps; ++r) chain_body<STEPS, CHAINS>(a0, a1, a2, a3, m, c);
  }
  const long long t1 = clock64();
  if (threadIdx.x % 32 == 0) cycles[blockIdx.x * 8 + warp] = t1 - t0;
  const float e = a0 + a1 + a2 + a3;
  if (e == 12345.f) sink[threadIdx.x % 128] = e;
}

struct Ctx {
  CalibCsv* csv;
  int sms;
  long long* d_cyc;
  float* d_sink;
  void* flush;
  size_t flush_bytes;
  cudaEvent_t e0, e1;
};

enum class State { flushed, warm, l2 };

template <int STEPS>
void run(Ctx& c, int ctas_per_sm, int ctas, int threads, int reps, State state) {
  const bool flushed = state == State::flushed;
  auto k = code_kernel<STEPS>;
  // Shared memory holds the CTAs-per-SM count: one CTA per SM above half of it, two below.
  const int smem = ctas_per_sm == 1 ? 150 * 1024 : 100 * 1024;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const int warps = ctas * threads / 32;
  std::vector<double> per, worst, us;
  std::vector<long long> cyc(warps);
  for (int rep = 0; rep < 6; ++rep) {
    if (flushed) {
      CK(cudaMemsetAsync(c.flush, rep, c.flush_bytes));
    } else {
      k<<<ctas, threads, smem>>>(reps, c.d_cyc, c.d_sink);  // the code is now in L2
      CKLAUNCH();
      if (state == State::l2) {  // other code through every SM's instruction caches
        code_kernel<2040><<<c.sms, 128>>>(1, c.d_cyc + 8 * c.sms, c.d_sink);
        CKLAUNCH();
      }
    }
    CK(cudaEventRecord(c.e0));
    k<<<ctas, threads, smem>>>(reps, c.d_cyc, c.d_sink);
    CKLAUNCH();
    CK(cudaEventRecord(c.e1));
    CK(cudaDeviceSynchronize());
    if (rep == 0) continue;
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, c.e0, c.e1));
    CK(cudaMemcpy(cyc.data(), c.d_cyc, warps * sizeof(long long), cudaMemcpyDeviceToHost));
    std::vector<double> v(cyc.begin(), cyc.end());
    per.push_back(median(v));
    worst.push_back(vmax(v));
    us.push_back(ms * 1e3);
  }
  const double insts = 8.0 * STEPS * reps;
  const double kib = STEPS * 8 * 16 / 1024.0;
  char q[128], m[800];
  const char* sname = flushed ? "flushed" : state == State::warm ? "warm" : "l2";
  std::snprintf(q, sizeof q, "icache_%gKiB_ctas%d_w%d_r%d_%s", kib, ctas, threads / 32, reps, sname);
  std::snprintf(m, sizeof m,
                "straight-line body of %g KiB (%d FFMA, 8 independent chains) run %d time(s) per warp; %d CTA(s) of %d "
                "warp(s), %d per SM; %s; cycles per instruction = median over warps of clock64 cycles / (%g "
                "instructions); worst warp %.0f cycles; kernel %.2f us (events); median of 5 launches after a warm-up "
                "(tools/bench/calib_icache.cu)",
                kib, 8 * STEPS, reps, ctas, threads / 32, ctas_per_sm,
                flushed                ? "L2 flushed by a 256 MiB memset before the launch (code in HBM)"
                : state == State::warm ? "the same kernel ran just before (code in L2)"
                                       : "the same kernel ran, then 255 KiB of other code on every SM (code in L2, "
                                         "not in the SMs' instruction caches)",
                insts, median(worst), median(us));
  c.csv->row(q, median(per) / insts, "cycles/instruction", m, 3);
}

template <int STEPS, bool DIVERGED>
void run_pair(Ctx& c, int reps) {
  auto k = pair_kernel<STEPS, DIVERGED>;
  const int smem = 150 * 1024;  // one CTA per SM
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  std::vector<double> per;
  std::vector<long long> cyc(8 * c.sms);
  for (int rep = 0; rep < 6; ++rep) {
    k<<<c.sms, 256, smem>>>(reps, c.d_cyc, c.d_sink);
    CKLAUNCH();
    CK(cudaDeviceSynchronize());
    if (rep == 0) continue;
    CK(cudaMemcpy(cyc.data(), c.d_cyc, cyc.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    per.push_back(median(std::vector<double>(cyc.begin(), cyc.end())));
  }
  const double insts = 8.0 * STEPS * reps;
  const double kib = STEPS * 8 * 16 / 1024.0;
  char q[128], m[700];
  std::snprintf(q, sizeof q, "icache_pair_%gKiB_%s_r%d", kib, DIVERGED ? "diverged" : "same", reps);
  std::snprintf(m, sizeof m,
                "one CTA of 8 warps per SM on %d SMs (two warps per sub-partition), each warp running a straight-line "
                "body of %g KiB (%d FFMA, 8 independent chains) %d times; %s; cycles per instruction = median over "
                "warps of clock64 cycles / %g instructions; the kernel ran just before (warm); median of 5 launches "
                "after a warm-up (tools/bench/calib_icache.cu)",
                c.sms, kib, 8 * STEPS, reps,
                DIVERGED ? "warps 4-7 run a different body (other code addresses) than warps 0-3"
                         : "all warps run the same body",
                insts);
  c.csv->row(q, median(per) / insts, "cycles/instruction", m, 3);
}

template <int STEPS, int CHAINS>
void run_latency(Ctx& c, int warps) {
  auto k = latency_kernel<STEPS, CHAINS>;
  const int smem = 150 * 1024;  // one CTA per SM
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const int reps = 4;
  std::vector<double> per;
  std::vector<long long> cyc(8 * c.sms, 0);
  for (int rep = 0; rep < 6; ++rep) {
    k<<<c.sms, 32 * warps, smem>>>(reps, c.d_cyc, c.d_sink);
    CKLAUNCH();
    CK(cudaDeviceSynchronize());
    if (rep == 0) continue;
    CK(cudaMemcpy(cyc.data(), c.d_cyc, cyc.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    std::vector<double> v;
    for (int b = 0; b < c.sms; ++b) {
      for (int w = 0; w < warps; ++w) v.push_back(static_cast<double>(cyc[static_cast<size_t>(b * 8 + w)]));
    }
    per.push_back(median(v));
  }
  const double insts = 8.0 * STEPS * reps;
  const double kib = STEPS * 8 * 16 / 1024.0;
  char q[128], m[700];
  std::snprintf(q, sizeof q, "icache_latency_%gKiB_chains%d_w%d", kib, CHAINS, warps);
  std::snprintf(m, sizeof m,
                "one CTA of %d warps per SM on %d SMs (%s), each warp running a straight-line body of %g KiB "
                "(%d FFMA in %d dependent chain(s)) %d times; cycles per instruction = median over warps of clock64 "
                "cycles / %g instructions; the kernel ran just before (warm); median of 5 launches after a warm-up "
                "(tools/bench/calib_icache.cu latency)",
                warps, c.sms,
                warps > 4 ? "two warps per sub-partition, warps 4-7 on a different body" : "one warp per sub-partition",
                kib, 8 * STEPS, CHAINS, reps, insts);
  c.csv->row(q, median(per) / insts, "cycles/instruction", m, 3);
}

template <int CHAINS>
void latencies(Ctx& c) {
  run_latency<64, CHAINS>(c, 4);   //  8 KiB, cached
  run_latency<512, CHAINS>(c, 4);  // 64 KiB, one stream per sub-partition
  run_latency<64, CHAINS>(c, 8);   //  2 x 8 KiB, cached
  run_latency<256, CHAINS>(c, 8);  //  2 x 32 KiB
}

template <int STEPS>
void pairs(Ctx& c) {
  for (int reps : {1, 4}) {
    run_pair<STEPS, false>(c, reps);
    run_pair<STEPS, true>(c, reps);
  }
}

template <int STEPS>
void sweep(Ctx& c) {
  for (State st : {State::flushed, State::warm, State::l2}) {
    for (int reps : {1, 4}) {
      run<STEPS>(c, 1, 1, 32, reps, st);
      run<STEPS>(c, 1, c.sms, 32, reps, st);
      run<STEPS>(c, 1, c.sms, 128, reps, st);
      run<STEPS>(c, 2, 2 * c.sms, 128, reps, st);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "calibration_icache.csv";
  Ctx c{};
  c.sms = open_device0();
  CalibCsv csv(out);
  c.csv = &csv;
  CK(cudaMalloc(&c.d_cyc, 12 * c.sms * 4 * sizeof(long long)));
  CK(cudaMalloc(&c.d_sink, 128 * sizeof(float)));
  c.flush_bytes = 256u << 20;
  CK(cudaMalloc(&c.flush, c.flush_bytes));
  CK(cudaEventCreate(&c.e0));
  CK(cudaEventCreate(&c.e1));
  std::printf("straight-line code: cycles per instruction by code size, warps, CTAs, re-runs, L2 state\n");
  if (argc > 2 && std::string(argv[2]) == "capacity") {
    run<192>(c, 1, c.sms, 32, 4, State::warm);  // 24 KiB
    run<320>(c, 1, c.sms, 32, 4, State::warm);  // 40 KiB
    run<384>(c, 1, c.sms, 32, 4, State::warm);  // 48 KiB
    run<448>(c, 1, c.sms, 32, 4, State::warm);  // 56 KiB
    run_pair<96, true>(c, 4);                   // 2 x 12 KiB
    run_pair<160, true>(c, 4);                  // 2 x 20 KiB
    run_pair<192, true>(c, 4);                  // 2 x 24 KiB
    run_pair<224, true>(c, 4);                  // 2 x 28 KiB
    std::printf("calib_icache done\n");
    return 0;
  }
  if (argc > 2 && std::string(argv[2]) == "latency") {
    latencies<1>(c);
    latencies<2>(c);
    latencies<4>(c);
    std::printf("calib_icache done\n");
    return 0;
  }
  if (argc > 2 && std::string(argv[2]) == "pair") {
    pairs<64>(c);
    pairs<128>(c);
    pairs<256>(c);
    pairs<512>(c);
    std::printf("calib_icache done\n");
    return 0;
  }
  sweep<16>(c);    //   2 KiB
  sweep<64>(c);    //   8 KiB
  sweep<256>(c);   //  32 KiB
  sweep<512>(c);   //  64 KiB
  sweep<1024>(c);  // 128 KiB
  sweep<2048>(c);  // 256 KiB
  pairs<64>(c);    //   8 KiB per body
  pairs<128>(c);   //  16 KiB
  pairs<256>(c);   //  32 KiB
  pairs<512>(c);   //  64 KiB
  std::printf("calib_icache done\n");
  return 0;
}
