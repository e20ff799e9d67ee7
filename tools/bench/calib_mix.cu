// calib_mix: how the instruction streams of a FlashAttention-2 style warp share an SM.
//
// What it measures: SM cycles per loop iteration when every warp of the SM runs, per iteration,
//   L x ldmatrix.x4 (512 B from shared memory each), M x mma.sync.m16n8k16 bf16 (fp32 accumulate,
//   A fragments from those ldmatrix loads, 4 independent accumulator chains), E x ex2.approx (SFU)
//   and F x fma.rn.f32 (8 independent chains), alone and in combinations, with 4, 8 and 16 warps
//   per SM. Comparing T(a+b) with T(a) and T(b) says whether two instruction kinds overlap
//   (T(a+b) = max) or serialise (T(a+b) = sum) on the SM: the model's pipe structure is checked
//   against it (docs/model.md).
// How: one CTA per SM on all SMs (dynamic shared memory > half an SM's), shared memory and
// registers filled with random values; clock64 around the loop between barriers; the row is the
// median over CTAs of the median of 3 launches after a warm-up.
//
// Usage: calib_mix [calibration.csv]
#include "mix_kernel.h"

using namespace bench;

template <int L, int M, int E, int F>
static void run(CalibCsv& csv, int sms, int warps, long long* d_cyc, float* d_sink) {
  auto k = mix_kernel<L, M, E, F>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, MIX_SMEM));
  const int iters = 4000;
  const double cycles = median_cta_cycles([&] { k<<<sms, 32 * warps, MIX_SMEM>>>(iters, d_cyc, d_sink, nullptr); }, sms, d_cyc);
  char q[96], m[400];
  std::snprintf(q, sizeof q, "mix_w%d_ldsm%d_mma%d_ex2_%d_fma%d", warps, L, M, E, F);
  std::snprintf(m, sizeof m,
                "SM cycles per iteration; %d warps per SM, each per iteration: %d ldmatrix.x4, %d mma.sync m16n8k16 "
                "bf16, %d ex2.approx, %d fma.f32; one CTA per SM on %d SMs; clock64; median over CTAs of median of "
                "3 launches",
                warps, L, M, E, F, sms);
  csv.row(q, cycles / iters, "cycles/iter", m, 1);
}

template <int L, int M, int E, int F>
static void run_all_warps(CalibCsv& csv, int sms, long long* d_cyc, float* d_sink) {
  for (int w : {4, 8, 16}) run<L, M, E, F>(csv, sms, w, d_cyc, d_sink);
}

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "calibration.csv";
  const int sms = open_device0();
  CalibCsv csv(out);
  long long* d_cyc;
  float* d_sink;
  CK(cudaMalloc(&d_cyc, sms * sizeof(long long)));
  CK(cudaMalloc(&d_sink, 4096 * sizeof(float)));
  std::printf("instruction mix (cycles per iteration per SM)\n");
  // FA2 d=128, 128x64 tile, 4 warps, per warp and KV block: 256 mma, 80 ldmatrix.x4, 64 ex2,
  // ~350 FP32: in units of 16 mma: 5 ldsm, 4 ex2, 22 fma.
  run_all_warps<0, 16, 0, 0>(csv, sms, d_cyc, d_sink);
  run_all_warps<5, 0, 0, 0>(csv, sms, d_cyc, d_sink);
  run_all_warps<5, 16, 0, 0>(csv, sms, d_cyc, d_sink);
  run_all_warps<10, 16, 0, 0>(csv, sms, d_cyc, d_sink);
  run_all_warps<10, 0, 0, 0>(csv, sms, d_cyc, d_sink);
  run_all_warps<0, 0, 4, 0>(csv, sms, d_cyc, d_sink);
  run_all_warps<0, 0, 0, 22>(csv, sms, d_cyc, d_sink);
  run_all_warps<0, 16, 4, 0>(csv, sms, d_cyc, d_sink);
  run_all_warps<0, 16, 0, 22>(csv, sms, d_cyc, d_sink);
  run_all_warps<0, 0, 4, 22>(csv, sms, d_cyc, d_sink);
  run_all_warps<5, 0, 4, 0>(csv, sms, d_cyc, d_sink);
  run_all_warps<5, 16, 4, 22>(csv, sms, d_cyc, d_sink);
  std::printf("calib_mix done\n");
  return 0;
}
