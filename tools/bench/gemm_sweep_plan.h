// gemm_sweep_plan.h (part of gemm_sweep, included by gemm_sweep.cu only): the dtype table
// (cuBLASLt types, element sizes, check tolerances), one row's cuBLASLt plan (Plan: layouts, the
// default heuristic's first algorithm, and the row's per-pass results), the shared handle and
// workspace, and make_plan / run_plan; see gemm_sweep.cu for the method.
#pragma once

#include "common.h"

#include <cublasLt.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gemm_shapes.h"

#define CKBLAS(call)                                                                       \
  do {                                                                                     \
    cublasStatus_t s_ = (call);                                                            \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                     \
      std::fprintf(stderr, "cuBLAS error %d at %s:%d\n", (int)s_, __FILE__, __LINE__);    \
      std::exit(3);                                                                        \
    }                                                                                      \
  } while (0)

struct DtInfo {
  const char* name;
  cudaDataType_t ab, cd;
  cublasComputeType_t comp;
  int in_bytes, out_bytes;
  double tol;
};
static const DtInfo DTS[4] = {
    {"bf16", CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2, 2, 1e-2},
    {"fp16", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 2, 2, 5e-3},
    {"fp8_e4m3", CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 1, 2, 1e-2},
    {"tf32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, 4, 5e-3},
};

struct Plan {
  DT dt;
  long M, N, K;
  std::string set;
  bool check = false;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulHeuristicResult_t heur{};
  bool ok = false;
  int reps = 0;
  std::vector<double> pass_us, pass_clk, pass_pow, pass_pow_inst, pass_probe_before, pass_probe_after;
  std::string kernels, grids, blocks, clusters;
  std::string cupti_gap_us;  // per consecutive kernel pair: next start - previous end (CUPTI), median of 5 calls
};

static cublasLtHandle_t g_lt;
static void* g_ws = nullptr;
static const size_t WS_BYTES = 32ull << 20;
static float* g_one = nullptr;  // device scalar 1.0f for the FP8 scale pointers

static void make_plan(Plan& p) {
  const DtInfo& d = DTS[p.dt];
  CKBLAS(cublasLtMatmulDescCreate(&p.op, d.comp, CUDA_R_32F));
  cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  CKBLAS(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  CKBLAS(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  if (p.dt == FP8) {
    CKBLAS(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &g_one, sizeof g_one));
    CKBLAS(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &g_one, sizeof g_one));
  }
  // column-major view: A = W stored K x N (ld K), op(A) = A^T is N x K; B = x stored K x M
  // (ld K); C = y stored N x M (ld N).
  CKBLAS(cublasLtMatrixLayoutCreate(&p.la, d.ab, p.K, p.N, p.K));
  CKBLAS(cublasLtMatrixLayoutCreate(&p.lb, d.ab, p.K, p.M, p.K));
  CKBLAS(cublasLtMatrixLayoutCreate(&p.lc, d.cd, p.N, p.M, p.N));
  cublasLtMatmulPreference_t pref;
  CKBLAS(cublasLtMatmulPreferenceCreate(&pref));
  size_t ws = WS_BYTES;
  CKBLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
  int n = 0;
  cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(g_lt, p.op, p.la, p.lb, p.lc, p.lc, pref, 1, &p.heur, &n);
  cublasLtMatmulPreferenceDestroy(pref);
  p.ok = (st == CUBLAS_STATUS_SUCCESS && n > 0 && p.heur.state == CUBLAS_STATUS_SUCCESS);
  if (!p.ok)
    std::printf("  no algorithm: %s M=%ld N=%ld K=%ld (status %d, n=%d) -> row skipped\n", DTS[p.dt].name,
                p.M, p.N, p.K, (int)st, n);
}

static void run_plan(const Plan& p, const void* W, const void* x, void* y, cudaStream_t s) {
  float alpha = 1.f, beta = 0.f;
  CKBLAS(cublasLtMatmul(g_lt, p.op, &alpha, W, p.la, x, p.lb, &beta, y, p.lc, y, p.lc, &p.heur.algo, g_ws,
                        WS_BYTES, s));
}
