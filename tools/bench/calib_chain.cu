// calib_chain: the latency of one dependent instruction of each kind an attention softmax chains
// (docs/model.md: simt.latency, simt.shuffle_latency).
//
// What it measures: one warp per SM (no other warp to hide anything) runs a chain of 64 dependent
// instructions per loop iteration, each reading the previous one's result: add.f32, max.f32,
// fma.rn.f32, ex2.approx.f32 (the SFU), shfl.sync.bfly.b32 (a butterfly lane exchange, as row
// reductions use). SM cycles per instruction = clock64 over the loop / (iterations x 64); the
// row is the median over the CTAs of all SMs, median of 3 launches after a warm-up.
//
// Usage: calib_chain [calibration.csv]
#include "common.h"

using namespace bench;

namespace {

constexpr int kChain = 64;

template <int OP>
__device__ __forceinline__ float step(float x) {
  if constexpr (OP == 0) {
    asm volatile("add.f32 %0, %0, 0f3A800000;" : "+f"(x));  // + 2^-10
  } else if constexpr (OP == 1) {
    asm volatile("max.f32 %0, %0, 0f3F000000;" : "+f"(x));  // max(x, 0.5)
  } else if constexpr (OP == 2) {
    asm volatile("fma.rn.f32 %0, %0, 0f3F7FF000, 0f3A800000;" : "+f"(x));
  } else if constexpr (OP == 3) {
    asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x));
  } else {
    asm volatile("shfl.sync.bfly.b32 %0, %0, 1, 0x1f, 0xffffffff;" : "+f"(x));
  }
  return x;
}

template <int OP>
__global__ void chain_kernel(int iters, long long* cycles, float* sink) {
  float x = 0.25f + threadIdx.x * 1e-3f;
  __syncwarp();
  const long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int i = 0; i < kChain; ++i) x = step<OP>(x);
  }
  __syncwarp();
  const long long t1 = clock64();
  if (x == 1234.5f) sink[threadIdx.x] = x;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

template <int OP>
void run(CalibCsv& csv, int sms, long long* d_cyc, float* d_sink, const char* name, const char* what) {
  const int iters = 2000;
  const double cycles = median_cta_cycles([&] { chain_kernel<OP><<<sms, 32>>>(iters, d_cyc, d_sink); }, sms, d_cyc);
  char m[300];
  std::snprintf(m, sizeof m,
                "one warp per SM on %d SMs, %d dependent %s per loop iteration, %d iterations; clock64; median over "
                "CTAs of the median of 3 launches",
                sms, kChain, what, iters);
  csv.row(std::string("latency_") + name, cycles / (double(iters) * kChain), "cycles", m, 2);
}

}  // namespace

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "calibration.csv";
  const int sms = open_device0();
  CalibCsv csv(out);
  long long* d_cyc;
  float* d_sink;
  CK(cudaMalloc(&d_cyc, sms * sizeof(long long)));
  CK(cudaMalloc(&d_sink, 4096 * sizeof(float)));
  std::printf("dependent-instruction latency\n");
  run<0>(csv, sms, d_cyc, d_sink, "fadd", "add.f32");
  run<1>(csv, sms, d_cyc, d_sink, "fmax", "max.f32");
  run<2>(csv, sms, d_cyc, d_sink, "ffma", "fma.rn.f32");
  run<3>(csv, sms, d_cyc, d_sink, "ex2", "ex2.approx.ftz.f32");
  run<4>(csv, sms, d_cyc, d_sink, "shfl_bfly", "shfl.sync.bfly.b32");
  std::printf("calib_chain done\n");
  return 0;
}
