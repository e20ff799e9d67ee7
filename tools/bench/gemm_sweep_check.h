// gemm_sweep_check.h (part of gemm_sweep, included by gemm_sweep.cu only): random inputs per
// dtype (fill_inputs) and the correctness check of a plan against a naive tiled GPU GEMM with
// fp32 accumulation (relative Frobenius error, output poisoned first).
#pragma once

#include "common.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "gemm_shapes.h"
#include "gemm_sweep_plan.h"

template <typename T> __device__ inline float tof(T v) { return static_cast<float>(v); }
template <typename Tin>
__global__ void ref_gemm(const Tin* x, const Tin* W, float* y, int M, int N, int K) {
  __shared__ float xs[16][17], ws[16][17];
  int i = blockIdx.y * 16 + threadIdx.y, j = blockIdx.x * 16 + threadIdx.x;
  int jw = blockIdx.x * 16 + threadIdx.y;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    int k = k0 + threadIdx.x;
    xs[threadIdx.y][threadIdx.x] = (i < M && k < K) ? tof(x[(size_t)i * K + k]) : 0.f;
    ws[threadIdx.y][threadIdx.x] = (jw < N && k < K) ? tof(W[(size_t)jw * K + k]) : 0.f;
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < 16; ++kk) acc += xs[threadIdx.y][kk] * ws[threadIdx.x][kk];
    __syncthreads();
  }
  if (i < M && j < N) y[(size_t)i * N + j] = acc;
}
template <typename T>
__global__ void to_float_kernel(const T* a, float* b, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    b[i] = tof(a[i]);
}

static void fill_inputs(DT dt, void* A, size_t na, void* B, size_t nb, uint64_t seed) {
  switch (dt) {
    case BF16:
      bench::fill_random((__nv_bfloat16*)A, na, seed);
      bench::fill_random((__nv_bfloat16*)B, nb, seed + 1);
      break;
    case FP16:
      bench::fill_random((__half*)A, na, seed);
      bench::fill_random((__half*)B, nb, seed + 1);
      break;
    case FP8:
      bench::fill_random((__nv_fp8_e4m3*)A, na, seed);
      bench::fill_random((__nv_fp8_e4m3*)B, nb, seed + 1);
      break;
    case TF32:
      bench::fill_random((float*)A, na, seed);
      bench::fill_random((float*)B, nb, seed + 1);
      break;
  }
  CK(cudaDeviceSynchronize());
}

static bool check_plan(const Plan& p, void* A, void* B, void* C, float* ref, float* conv, uint64_t seed) {
  fill_inputs(p.dt, A, (size_t)p.N * p.K, B, (size_t)p.M * p.K, seed);
  size_t mn = (size_t)p.M * p.N;
  CK(cudaMemset(C, 0xff, mn * DTS[p.dt].out_bytes));  // poison: NaN in bf16/fp16/fp32
  run_plan(p, A, B, C, 0);
  CK(cudaGetLastError());
  dim3 blk(16, 16), grd((p.N + 15) / 16, (p.M + 15) / 16);
  switch (p.dt) {
    case BF16: ref_gemm<<<grd, blk>>>((const __nv_bfloat16*)B, (const __nv_bfloat16*)A, ref, p.M, p.N, p.K); break;
    case FP16: ref_gemm<<<grd, blk>>>((const __half*)B, (const __half*)A, ref, p.M, p.N, p.K); break;
    case FP8: ref_gemm<<<grd, blk>>>((const __nv_fp8_e4m3*)B, (const __nv_fp8_e4m3*)A, ref, p.M, p.N, p.K); break;
    case TF32: ref_gemm<<<grd, blk>>>((const float*)B, (const float*)A, ref, p.M, p.N, p.K); break;
  }
  CKLAUNCH();
  if (DTS[p.dt].cd == CUDA_R_16BF) to_float_kernel<<<1024, 256>>>((const __nv_bfloat16*)C, conv, mn);
  else if (DTS[p.dt].cd == CUDA_R_16F) to_float_kernel<<<1024, 256>>>((const __half*)C, conv, mn);
  else to_float_kernel<<<1024, 256>>>((const float*)C, conv, mn);
  CKLAUNCH();
  CK(cudaDeviceSynchronize());
  std::vector<float> h_ref(mn), h_out(mn);
  CK(cudaMemcpy(h_ref.data(), ref, mn * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(h_out.data(), conv, mn * 4, cudaMemcpyDeviceToHost));
  double num = 0, den = 0;
  size_t bad = 0;
  for (size_t i = 0; i < mn; ++i) {
    if (!std::isfinite(h_out[i])) { ++bad; continue; }
    double d = (double)h_out[i] - h_ref[i];
    num += d * d;
    den += (double)h_ref[i] * h_ref[i];
  }
  double rel = std::sqrt(num / std::max(den, 1e-30));
  bool pass = bad == 0 && rel < DTS[p.dt].tol;
  std::printf("CHECK %-8s M=%-6ld N=%-6ld K=%-7ld rel_err=%.3e non_finite=%zu tol=%.0e  %s\n", DTS[p.dt].name,
              p.M, p.N, p.K, rel, bad, DTS[p.dt].tol, pass ? "PASS" : "FAIL");
  return pass;
}
