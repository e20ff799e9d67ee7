// calib_mma: tensor-core throughput per SM per clock, independent of the clock speed.
//
// What it measures: FLOP per SM per SM-clock for
//  * wgmma (sm_90a inline PTX, A and B from shared memory through matrix descriptors, fp32
//    accumulators in registers): m64n256k16 bf16 with 1 and 2 consumer warpgroups per SM,
//    m64n128k16 bf16 with 2, and m64n256k32 fp8 e4m3 with 1 and 2. Each warpgroup issues a
//    long stream of wgmma into its own accumulator (8 per commit group, at most one group
//    outstanding behind the one being issued: the pattern of a GEMM main loop);
//  * mma.sync.m16n8k16 bf16 (fp32 accumulate) with 4, 8, 16 warps per SM and 4 or 8
//    independent accumulator chains per warp, operands in registers.
// How: one CTA per SM on all SMs (grid = SM count, dynamic shared memory > half an SM's so
// that no two CTAs share an SM), shared memory and registers filled with random values.
// Each CTA reads clock64 after a barrier before the loop and after the last wgmma
// completed (wait_group 0) and a barrier; FLOP/clk/SM = CTA FLOP / CTA cycles; the row is
// the median over CTAs of the median of 3 launches (after one warm-up launch). The
// kernel's wall time (CUDA events) gives the achieved TFLOP/s and the implied SM clock
// (cycles / time). Data correctness is irrelevant; the instructions must be in the SASS
// (run_h200.sh greps cuobjdump --dump-sass for HGMMA / QGMMA / HMMA).
//
// With "wait" as the second argument it measures only the wait behind a wgmma commit group
// (wgmma_wait_kernel: G wgmma per group, wait_group 0, G = 1..16, 1 and 2 warpgroups per SM).
//
// With "nsweep" it measures wgmma m64nNk16 bf16 for N = 8 ... 256 in a GEMM main loop's pattern
// (wgmma_n_kernel: per iteration G = 4 wgmma on one accumulator, i.e. one K step of 64, as a commit
// group; wait_group 1, one group in flight; or wait_group 0, drained every step), 1 and 2
// warpgroups per SM: what a small tile's K step costs the tensor pipe.
//
// With "ring" it runs the same K steps through a GEMM's stage ring without data: a producer thread
// waits on stage s's empty mbarrier and arrives on its full one; the consumer warpgroup waits on
// full[s], issues the K step (4 wgmma m64nNk16), commits, waits until one group is in flight and
// arrives on the previous stage's empty barrier (wgmma_ring_kernel, 4 stages): the K step's cost
// with the pipeline's barrier handshakes, to set against nsweep's.
//
// With "tf32" it runs the same K steps with wgmma m64nNk8 tf32 for N = 64, 128, 256 (4 per commit
// group: a K step of 32, the xmma tf32 kernels' K tile): the tf32 rate and its per-instruction cost.
//
// Usage: calib_mma [calibration.csv] [wait|nsweep|ring|tf32]
#include "mma_kernels.h"

#include <type_traits>

using namespace bench;

struct Result { double flop_clk_sm, tflops, implied_mhz, spread_pct; };

// Launch `launch(grid)` once to warm up and 3 times timed; per CTA flop_per_cta / cycles.
template <typename F>
static Result measure(F&& launch, int sms, double flop_per_cta, long long* d_cyc) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  launch();
  CK(cudaDeviceSynchronize());
  CKLAUNCH();
  std::vector<double> per_launch, tfl, mhz;
  std::vector<long long> cyc(sms);
  for (int r = 0; r < 3; ++r) {
    CK(cudaEventRecord(e0));
    launch();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CKLAUNCH();
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    CK(cudaMemcpy(cyc.data(), d_cyc, sms * sizeof(long long), cudaMemcpyDeviceToHost));
    std::vector<double> f(sms), c(sms);
    for (int i = 0; i < sms; ++i) { f[i] = flop_per_cta / (double)cyc[i]; c[i] = (double)cyc[i]; }
    per_launch.push_back(median(f));
    tfl.push_back(flop_per_cta * sms / (ms * 1e-3) / 1e12);
    mhz.push_back(median(c) / (ms * 1e-3) / 1e6);
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  double m = median(per_launch);
  return {m, median(tfl), median(mhz), 100.0 * (vmax(per_launch) - vmin(per_launch)) / m};
}

template <int KIND, int NWG>
static void run_wgmma(CalibCsv& csv, int sms, long long* d_cyc, float* d_sink, const char* q, const char* what) {
  auto k = wgmma_kernel<KIND, NWG>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_REQ));
  const int iters = KIND == 1 ? 40000 : 20000;
  double flop = (double)NWG * iters * UNROLL * WgOp<KIND>::FLOP;
  Result r = measure([&] { k<<<sms, 128 * NWG, SMEM_REQ>>>(iters, d_cyc, d_sink, nullptr); }, sms, flop, d_cyc);
  char m[400];
  std::snprintf(m, sizeof m,
                "%s; %d consumer warpgroup(s) per SM; one CTA per SM on %d SMs; A+B from smem (no swizzle); "
                "8 wgmma per commit group; clock64 per CTA; median over CTAs of median of 3 launches; "
                "achieved %.1f TFLOP/s at implied %.0f MHz; spread %.2f%%",
                what, NWG, sms, r.tflops, r.implied_mhz, r.spread_pct);
  csv.row(q, r.flop_clk_sm, "FLOP/clk/SM", m, 1);
}

template <int G, int NWG>
static void run_wgmma_wait(CalibCsv& csv, int sms, long long* d_cyc, float* d_sink) {
  auto k = wgmma_wait_kernel<G, NWG>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_REQ));
  const int iters = 20000 / G;
  const double flop = (double)NWG * iters * G * WgOp<1>::FLOP;
  Result r = measure([&] { k<<<sms, 128 * NWG, SMEM_REQ>>>(iters, d_cyc, d_sink); }, sms, flop, d_cyc);
  const double cycles_per_iter = NWG * G * WgOp<1>::FLOP / r.flop_clk_sm;
  char q[64], m[400];
  std::snprintf(q, sizeof q, "wgmma_wait_bf16_m64n128k16_g%d_wg%d", G, NWG);
  std::snprintf(m, sizeof m,
                "per iteration each of %d warpgroup(s) per SM: wgmma.fence, %d x wgmma.mma_async m64n128k16 f32.bf16.bf16 "
                "(A+B from smem) in one commit group, wait_group 0, one accumulator read; one CTA per SM on %d SMs; "
                "clock64 per CTA; median over CTAs of median of 3 launches; %.1f FLOP/clk/SM; spread %.2f%%",
                NWG, G, sms, r.flop_clk_sm, r.spread_pct);
  csv.row(q, cycles_per_iter, "cycles/iter", m, 1);
}

// One K step of G = 4 wgmma per commit group: m64nNk16 bf16 (K step 64) or, with TF32, m64nNk8 tf32
// (K step 32, as the xmma tf32 kernels' 32-deep K tiles).
template <int N, int NWG, int WAIT, bool TF32 = false>
static void run_wgmma_n(CalibCsv& csv, int sms, long long* d_cyc, float* d_sink) {
  constexpr int G = 4;
  using Op = std::conditional_t<TF32, WgTf32<N>, WgN<N>>;
  auto k = wgmma_n_kernel<N, NWG, G, WAIT, Op>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_REQ));
  const int iters = 4000;
  const double flop = (double)NWG * iters * G * Op::FLOP;
  Result r = measure([&] { k<<<sms, 128 * NWG, SMEM_REQ>>>(iters, d_cyc, d_sink); }, sms, flop, d_cyc);
  const double cycles_per_iter = NWG * G * Op::FLOP / r.flop_clk_sm;
  const char* shape = TF32 ? "k8 f32.tf32.tf32" : "k16 f32.bf16.bf16";
  char q[64], m[420];
  std::snprintf(q, sizeof q, "wgmma_%s_m64n%dk%d_g%d_wg%d_wait%d", TF32 ? "tf32" : "bf16", N, TF32 ? 8 : 16, G, NWG,
                WAIT);
  std::snprintf(m, sizeof m,
                "per iteration each of %d warpgroup(s) per SM: wgmma.fence, %d x wgmma.mma_async m64n%d%s "
                "on one accumulator (A+B from smem) as one commit group, wait_group %d; one CTA per SM on %d SMs; "
                "clock64 per CTA; median over CTAs of median of 3 launches; %.1f FLOP/clk/SM; spread %.2f%%",
                NWG, G, N, shape, WAIT, sms, r.flop_clk_sm, r.spread_pct);
  csv.row(q, cycles_per_iter, "cycles/iter", m, 1);
  std::printf("  m64n%-3d%s wg%d wait%d: %8.1f cycles per K step of 4 wgmma (%6.1f FLOP/clk/SM)\n", N, TF32 ? "k8 " : "k16",
              NWG, WAIT, cycles_per_iter, r.flop_clk_sm);
}

template <int N>
static void run_wgmma_ring(CalibCsv& csv, int sms, long long* d_cyc, float* d_sink) {
  constexpr int S = 4;
  auto k = wgmma_ring_kernel<N, S>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_REQ));
  const int iters = 4000;
  const double flop = (double)iters * 4 * WgN<N>::FLOP;
  Result r = measure([&] { k<<<sms, 256, SMEM_REQ>>>(iters, d_cyc, d_sink); }, sms, flop, d_cyc);
  const double cycles_per_iter = 4 * WgN<N>::FLOP / r.flop_clk_sm;
  char q[64], m[480];
  std::snprintf(q, sizeof q, "wgmma_ring_bf16_m64n%dk16_s%d", N, S);
  std::snprintf(m, sizeof m,
                "per K step: the producer thread waits on empty[s] and arrives on full[s]; the consumer warpgroup waits "
                "on full[s], wgmma.fence, 4 x wgmma m64n%dk16 f32.bf16.bf16 (one accumulator), commit, wait_group 1, "
                "arrives on empty[s-1]; %d stages, no data moved; one CTA per SM on %d SMs; clock64 per CTA; median "
                "over CTAs of median of 3 launches; %.1f FLOP/clk/SM; spread %.2f%%",
                N, S, sms, r.flop_clk_sm, r.spread_pct);
  csv.row(q, cycles_per_iter, "cycles/iter", m, 1);
}

template <int N, bool TF32 = false>
static void run_wgmma_n_all(CalibCsv& csv, int sms, long long* d_cyc, float* d_sink) {
  run_wgmma_n<N, 1, 1, TF32>(csv, sms, d_cyc, d_sink);
  run_wgmma_n<N, 2, 1, TF32>(csv, sms, d_cyc, d_sink);
  run_wgmma_n<N, 1, 0, TF32>(csv, sms, d_cyc, d_sink);
}

template <int CHAINS>
static void run_mma(CalibCsv& csv, int sms, int warps, const uint32_t* d_in, long long* d_cyc, float* d_sink) {
  auto k = mma_sync_kernel<CHAINS>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_REQ));
  const int iters = 400000 / CHAINS * 4 / warps * 4;
  double flop = (double)warps * iters * CHAINS * (2.0 * 16 * 8 * 16);
  Result r = measure([&] { k<<<sms, 32 * warps, SMEM_REQ>>>(d_in, iters, d_cyc, d_sink); }, sms, flop, d_cyc);
  char q[64], m[400];
  std::snprintf(q, sizeof q, "mma_sync_bf16_m16n8k16_w%d_c%d", warps, CHAINS);
  std::snprintf(m, sizeof m,
                "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32; %d warps per SM; %d independent accumulator "
                "chains per warp; one CTA per SM on %d SMs; clock64 per CTA; median over CTAs of median of 3 "
                "launches; achieved %.1f TFLOP/s at implied %.0f MHz; spread %.2f%%",
                warps, CHAINS, sms, r.tflops, r.implied_mhz, r.spread_pct);
  csv.row(q, r.flop_clk_sm, "FLOP/clk/SM", m, 1);
}

// Calls f(std::integral_constant<int, N>{}) for each N, in order.
template <int... Ns, typename F>
static void run_each(F&& f) {
  (f(std::integral_constant<int, Ns>{}), ...);
}

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "calibration.csv";
  const int sms = open_device0();
  CalibCsv csv(out);
  long long* d_cyc;
  float* d_sink;
  uint32_t* d_in;
  CK(cudaMalloc(&d_cyc, sms * sizeof(long long)));
  CK(cudaMalloc(&d_sink, 4096 * sizeof(float)));
  CK(cudaMalloc(&d_in, 4096 * sizeof(uint32_t)));
  fill_random((__nv_bfloat16*)d_in, 8192, 5);
  CK(cudaDeviceSynchronize());

  if (argc > 2 && std::string(argv[2]) == "wait") {
    std::printf("wgmma group wait\n");
    run_wgmma_wait<1, 1>(csv, sms, d_cyc, d_sink);
    run_wgmma_wait<2, 1>(csv, sms, d_cyc, d_sink);
    run_wgmma_wait<4, 1>(csv, sms, d_cyc, d_sink);
    run_wgmma_wait<8, 1>(csv, sms, d_cyc, d_sink);
    run_wgmma_wait<16, 1>(csv, sms, d_cyc, d_sink);
    run_wgmma_wait<4, 2>(csv, sms, d_cyc, d_sink);
    run_wgmma_wait<8, 2>(csv, sms, d_cyc, d_sink);
    std::printf("calib_mma done\n");
    return 0;
  }
  if (argc > 2 && std::string(argv[2]) == "nsweep") {
    std::printf("wgmma m64nNk16 N sweep\n");
    run_each<8, 16, 32, 48, 64, 96, 128, 256>([&](auto n) { run_wgmma_n_all<decltype(n)::value>(csv, sms, d_cyc, d_sink); });
    std::printf("calib_mma done\n");
    return 0;
  }
  if (argc > 2 && std::string(argv[2]) == "tf32") {
    std::printf("wgmma m64nNk8 tf32 K steps\n");
    run_each<64, 128, 256>([&](auto n) { run_wgmma_n_all<decltype(n)::value, true>(csv, sms, d_cyc, d_sink); });
    std::printf("calib_mma done\n");
    return 0;
  }
  if (argc > 2 && std::string(argv[2]) == "ring") {
    std::printf("wgmma K steps through a 4-stage mbarrier ring\n");
    run_each<8, 16, 32, 48, 64, 128, 256>([&](auto n) { run_wgmma_ring<decltype(n)::value>(csv, sms, d_cyc, d_sink); });
    std::printf("calib_mma done\n");
    return 0;
  }
  std::printf("wgmma throughput\n");
  run_wgmma<0, 1>(csv, sms, d_cyc, d_sink, "wgmma_bf16_m64n256k16_wg1", "wgmma.mma_async m64n256k16 f32.bf16.bf16");
  run_wgmma<0, 2>(csv, sms, d_cyc, d_sink, "wgmma_bf16_m64n256k16_wg2", "wgmma.mma_async m64n256k16 f32.bf16.bf16");
  run_wgmma<1, 2>(csv, sms, d_cyc, d_sink, "wgmma_bf16_m64n128k16_wg2", "wgmma.mma_async m64n128k16 f32.bf16.bf16");
  run_wgmma<2, 1>(csv, sms, d_cyc, d_sink, "wgmma_fp8_m64n256k32_wg1", "wgmma.mma_async m64n256k32 f32.e4m3.e4m3");
  run_wgmma<2, 2>(csv, sms, d_cyc, d_sink, "wgmma_fp8_m64n256k32_wg2", "wgmma.mma_async m64n256k32 f32.e4m3.e4m3");
  std::printf("mma.sync throughput\n");
  for (int w : {4, 8, 16}) {
    run_mma<4>(csv, sms, w, d_in, d_cyc, d_sink);
    run_mma<8>(csv, sms, w, d_in, d_cyc, d_sink);
  }
  std::printf("calib_mma done\n");
  return 0;
}
