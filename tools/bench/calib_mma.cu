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
// Usage: calib_mma [calibration.csv] [wait]
#include "common.h"
#include "wgmma_ops.h"

using namespace bench;

static constexpr int SMEM_REQ = 140 * 1024;  // forces one CTA per SM (228 KB per SM)
static constexpr int UNROLL = 8;

__device__ __forceinline__ uint64_t smem_desc(const void* p, uint32_t lbo, uint32_t sbo) {
  uint32_t a = (uint32_t)__cvta_generic_to_shared(p);
  uint64_t d = 0;
  d |= (uint64_t)((a >> 4) & 0x3FFF);
  d |= (uint64_t)((lbo >> 4) & 0x3FFF) << 16;
  d |= (uint64_t)((sbo >> 4) & 0x3FFF) << 32;
  // base offset 0, swizzle mode 0 (no swizzle: 8 x 16 B core matrices)
  return d;
}

// Random operands in shared memory (bf16, or e4m3 when fp8, values in [-1, 1)) and the
// descriptors of A (64 x K tile at 0, 2 KB) and this warpgroup's own B (N x K at 8 KB + 8 KB x wg).
__device__ __forceinline__ void wgmma_operands(uint8_t* smem, bool fp8, uint64_t& da, uint64_t& db) {
  if (fp8) {
    for (int i = threadIdx.x; i < 32768; i += blockDim.x) {
      __nv_fp8_e4m3 v(urand(i, 99 + blockIdx.x));
      smem[i] = *reinterpret_cast<uint8_t*>(&v);
    }
  } else {
    __nv_bfloat16* s = reinterpret_cast<__nv_bfloat16*>(smem);
    for (int i = threadIdx.x; i < 16384; i += blockDim.x) s[i] = __float2bfloat16(urand(i, 99 + blockIdx.x));
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const int wg = threadIdx.x / 128;
  da = smem_desc(smem, 128, 256);
  db = smem_desc(smem + 8192 + wg * 8192, 128, 256);
}

template <int KIND>  // 0: bf16 n256, 1: bf16 n128, 2: fp8 n256
struct WgOp;
template <> struct WgOp<0> {
  static constexpr int NREG = 128; static constexpr double FLOP = 2.0 * 64 * 256 * 16;
  static __device__ __forceinline__ void issue(float (&d)[NREG], uint64_t a, uint64_t b) { wgmma_bf16_n256(d, a, b); }
};
template <> struct WgOp<1> {
  static constexpr int NREG = 64; static constexpr double FLOP = 2.0 * 64 * 128 * 16;
  static __device__ __forceinline__ void issue(float (&d)[NREG], uint64_t a, uint64_t b) { wgmma_bf16_n128(d, a, b); }
};
template <> struct WgOp<2> {
  static constexpr int NREG = 128; static constexpr double FLOP = 2.0 * 64 * 256 * 32;
  static __device__ __forceinline__ void issue(float (&d)[NREG], uint64_t a, uint64_t b) { wgmma_fp8_n256(d, a, b); }
};

template <int KIND, int NWG>
__global__ void __launch_bounds__(128 * NWG, 1) wgmma_kernel(int iters, long long* cycles, float* sink) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint64_t da, db;
  wgmma_operands(smem, KIND == 2, da, db);
  constexpr int NR = WgOp<KIND>::NREG;
  float d[NR];
#pragma unroll
  for (int i = 0; i < NR; ++i) d[i] = 0.f;
  __syncthreads();
  long long t0 = clock64();
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) WgOp<KIND>::issue(d, da, db);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < NR; ++i) s += d[i];
  if (s == 1234.5f) sink[threadIdx.x] = s;
}

template <int CHAINS>
__global__ void __launch_bounds__(512, 1) mma_sync_kernel(const uint32_t* in, int iters, long long* cycles, float* sink) {
  uint32_t a[4], b[2];
#pragma unroll
  for (int i = 0; i < 4; ++i) a[i] = in[(threadIdx.x * 8 + i) & 4095];
  b[0] = in[(threadIdx.x * 8 + 4) & 4095];
  b[1] = in[(threadIdx.x * 8 + 5) & 4095];
  float acc[CHAINS][4];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c)
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[c][j] = 0.f;
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int c = 0; c < CHAINS; ++c)
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
          "{%0,%1,%2,%3};"
          : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  float s = 0.f;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) s += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  if (s == 1234.5f) sink[threadIdx.x] = s;
}

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
  Result r = measure([&] { k<<<sms, 128 * NWG, SMEM_REQ>>>(iters, d_cyc, d_sink); }, sms, flop, d_cyc);
  char m[400];
  std::snprintf(m, sizeof m,
                "%s; %d consumer warpgroup(s) per SM; one CTA per SM on %d SMs; A+B from smem (no swizzle); "
                "8 wgmma per commit group; clock64 per CTA; median over CTAs of median of 3 launches; "
                "achieved %.1f TFLOP/s at implied %.0f MHz; spread %.2f%%",
                what, NWG, sms, r.tflops, r.implied_mhz, r.spread_pct);
  csv.row(q, r.flop_clk_sm, "FLOP/clk/SM", m, 1);
}

// The wait behind a wgmma group: each warpgroup issues G wgmma m64n128k16 bf16 (64 cycles of
// tensor-core work each at 4096 FLOP/clk/SM) as one commit group, waits for it (wait_group 0)
// and reads one accumulator, as an attention consumer does before its softmax, then repeats.
// cycles per iteration = G x 64 + the wait's latency (one warpgroup per SM); with two the other
// warpgroup's group can fill the gap.
template <int G, int NWG>
__global__ void __launch_bounds__(128 * NWG, 1) wgmma_wait_kernel(int iters, long long* cycles, float* sink) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint64_t da, db;
  wgmma_operands(smem, false, da, db);
  float d[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) d[i] = 0.f;
  float use = 0.f;
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int g = 0; g < G; ++g) wgmma_bf16_n128(d, da, db);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    use += d[0] + d[63];
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  if (use == 1234.5f) sink[threadIdx.x] = use;
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
