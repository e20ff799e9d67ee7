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
#include "common.h"

using namespace bench;

static constexpr int SMEM_REQ = 140 * 1024;

template <int L, int M, int E, int F>
__global__ void mix_kernel(int iters, long long* cycles, float* sink) {
  extern __shared__ __align__(1024) uint8_t smem[];
  for (int i = threadIdx.x; i < 16384; i += blockDim.x) reinterpret_cast<float*>(smem)[i] = urand(i, 7 + blockIdx.x);
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  // each warp reads its own 8 KiB window, 16 B rows, conflict-free
  const uint32_t base = (uint32_t)__cvta_generic_to_shared(smem) + (uint32_t)((warp & 7) * 8192 + lane * 16);
  float acc[4][4];
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) acc[c][r] = 0.f;
  uint32_t frag[L > 0 ? L : 1][4];
  for (int l = 0; l < (L > 0 ? L : 1); ++l)
    for (int r = 0; r < 4; ++r) frag[l][r] = __float_as_uint(urand(threadIdx.x * 16 + l * 4 + r, 3));
  const uint32_t b0 = __float_as_uint(urand(threadIdx.x, 11)), b1 = __float_as_uint(urand(threadIdx.x, 12));
  float ex[8], fm[8];
  for (int i = 0; i < 8; ++i) {
    ex[i] = urand(threadIdx.x * 8 + i, 21) * 0.5f;
    fm[i] = urand(threadIdx.x * 8 + i, 22);
  }
  __syncthreads();
  const long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int l = 0; l < L; ++l) {
      const uint32_t addr = base + (uint32_t)(((it * L + l) & 15) * 512) % 8192u;
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                   : "=r"(frag[l][0]), "=r"(frag[l][1]), "=r"(frag[l][2]), "=r"(frag[l][3])
                   : "r"(addr));
    }
#pragma unroll
    for (int m = 0; m < M; ++m) {
      float* d = acc[m & 3];
      const uint32_t* a = frag[L > 0 ? m % (L > 0 ? L : 1) : 0];
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
          "{%0,%1,%2,%3};\n"
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
#pragma unroll
    for (int e = 0; e < E; ++e) {
      float& x = ex[e & 7];
      asm volatile("ex2.approx.ftz.f32 %0, %0;\n" : "+f"(x));
    }
#pragma unroll
    for (int f = 0; f < F; ++f) {
      float& y = fm[f & 7];
      asm volatile("fma.rn.f32 %0, %0, %1, %2;\n" : "+f"(y) : "f"(0.999f), "f"(0.001f));
    }
  }
  __syncthreads();
  const long long t1 = clock64();
  float s = 0;
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) s += acc[c][r];
  for (int i = 0; i < 8; ++i) s += ex[i] + fm[i];
  for (int l = 0; l < (L > 0 ? L : 1); ++l) s += __uint_as_float(frag[l][0]);
  if (s == 12345.f) sink[threadIdx.x] = s;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

template <int L, int M, int E, int F>
static void run(CalibCsv& csv, int sms, int warps, long long* d_cyc, float* d_sink) {
  auto k = mix_kernel<L, M, E, F>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_REQ));
  const int iters = 4000;
  std::vector<double> per_launch;
  std::vector<long long> cyc(sms);
  for (int rep = 0; rep < 4; ++rep) {
    k<<<sms, 32 * warps, SMEM_REQ>>>(iters, d_cyc, d_sink);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    if (rep == 0) continue;  // warm-up
    CK(cudaMemcpy(cyc.data(), d_cyc, sms * sizeof(long long), cudaMemcpyDeviceToHost));
    std::vector<double> c(sms);
    for (int i = 0; i < sms; ++i) c[i] = (double)cyc[i] / iters;
    per_launch.push_back(median(c));
  }
  char q[96], m[400];
  std::snprintf(q, sizeof q, "mix_w%d_ldsm%d_mma%d_ex2_%d_fma%d", warps, L, M, E, F);
  std::snprintf(m, sizeof m,
                "SM cycles per iteration; %d warps per SM, each per iteration: %d ldmatrix.x4, %d mma.sync m16n8k16 "
                "bf16, %d ex2.approx, %d fma.f32; one CTA per SM on %d SMs; clock64; median over CTAs of median of "
                "3 launches",
                warps, L, M, E, F, sms);
  csv.row(q, median(per_launch), "cycles/iter", m, 1);
}

template <int L, int M, int E, int F>
static void run_all_warps(CalibCsv& csv, int sms, long long* d_cyc, float* d_sink) {
  for (int w : {4, 8, 16}) run<L, M, E, F>(csv, sms, w, d_cyc, d_sink);
}

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "calibration.csv";
  CK(cudaSetDevice(0));
  print_device(0);
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
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
