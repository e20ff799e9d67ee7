// calib_clock: the SM clock and power the card sustains under load, and how fast the clock
// falls after the load starts.
//
// What it measures: for each phase a workload runs back to back for a few seconds while a
// host thread samples NVML every 25 ms (SM clock, memory clock, power as NVML's 1 s average
// and as the instantaneous field, temperature, clock event reasons). NVML refreshes the SM
// clock about every 100 ms, so the 0-50 ms window holds the clock from before the load. Phases, each after >= 1.5 s idle:
//   gemm_bf16        cuBLASLt 8192^3 bf16 TN (default heuristic, 32 MiB workspace), 5 s
//   gemm_fp8         cuBLASLt 8192^3 fp8 e4m3 TN, bf16 out, scale pointers = 1, 5 s
//   copy_kernel      int4 copy kernel over 2 GiB (memory-bound), 4 s
//   gemm_bf16_flush  the bf16 GEMM with a 256 MiB cudaMemsetAsync (L2 flush) before each
//                    GEMM, as in gemm_sweep, 5 s
//   gemm_tf32        cuBLASLt 8192^3 fp32 TN with TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32,
//                    fp32 out), 5 s
// Power phases, 3 s each (what HBM traffic costs in power, and the clock of gemm_sweep's
// flushed small GEMMs):
//   memset_only         256 MiB cudaMemsetAsync back to back (the L2 flush alone)
//   memset_gemm_skinny  memset + bf16 GEMM m=4096 n=16 k=4096 (cuBLAS view), as gemm_sweep runs it
//   memset_gemm_tiny    memset + bf16 256^3;  memset_gemm_2048 / _4096: memset + 2048^3 / 4096^3
//   read_kernel         int4 loads over 2 GiB, no stores (HBM reads only)
//   write_kernel        int4 stores over 2 GiB (HBM writes only)
//   copy_kernel_33sm    the copy kernel on 33 SMs (a quarter of the chip: less bandwidth)
// The work is enqueued in chunks of 5 items with a CUDA event after each chunk (at most 2
// chunks queued ahead), so the chunk events give the achieved throughput on the GPU's own
// time axis from the phase's start event.
// Output: the time series to clock.csv (source=nvml rows: clocks/power; source=events
// rows: throughput per chunk), and summary rows to the calibration CSV: median SM clock /
// power / throughput over 0-50 ms, 50-250 ms, 250-1000 ms and the steady part (1 s to end).
//
// Usage: calib_clock [calibration.csv] [clock.csv] [phase,phase,...]  (default: every phase)
#include "common.h"

#include <cublasLt.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

using namespace bench;

#define CKBLAS(call)                                                                   \
  do {                                                                                 \
    cublasStatus_t s_ = (call);                                                        \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                 \
      std::fprintf(stderr, "cuBLAS error %d at %s:%d\n", (int)s_, __FILE__, __LINE__); \
      std::exit(3);                                                                    \
    }                                                                                  \
  } while (0)

__global__ void copy_kernel(const int4* __restrict__ s, int4* __restrict__ d, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    int4 a = s[i], b = s[i + stride], c = s[i + 2 * stride], e = s[i + 3 * stride];
    d[i] = a; d[i + stride] = b; d[i + 2 * stride] = c; d[i + 3 * stride] = e;
  }
  for (; i < n; i += stride) d[i] = s[i];
}

// Reads n int4 and writes nothing (unless the xor of everything hits a magic value): HBM reads only.
__global__ void read_kernel(const int4* __restrict__ s, int* __restrict__ sink, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  int acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
    int4 a = s[i];
    acc ^= a.x ^ a.y ^ a.z ^ a.w;
  }
  if (acc == 0x5a5a1234) sink[0] = acc;
}

// Writes n int4: HBM writes only (as a memset, but from our own kernel).
__global__ void write_kernel(int4* __restrict__ d, size_t n, int v) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) d[i] = make_int4(v, v, v, v);
}

struct Gemm {
  cublasLtHandle_t lt;
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatmulAlgo_t algo;
  void *A, *B, *C, *ws;
  size_t wsb = 32ull << 20;
  void run(cudaStream_t s) {
    float alpha = 1.f, beta = 0.f;
    CKBLAS(cublasLtMatmul(lt, op, &alpha, A, la, B, lb, &beta, C, lc, C, lc, &algo, ws, wsb, s));
  }
};

enum class GemmType { bf16, fp8, tf32 };

// C[m, n] = A^T B (cuBLAS column-major view, TN), A k x m, B k x n.
static Gemm make_gemm(cublasLtHandle_t lt, GemmType type, long m, long n, long k, float* one, void* ws) {
  Gemm g{};
  g.lt = lt;
  g.ws = ws;
  const bool fp8 = type == GemmType::fp8, tf32 = type == GemmType::tf32;
  cudaDataType_t ab = fp8 ? CUDA_R_8F_E4M3 : tf32 ? CUDA_R_32F : CUDA_R_16BF;
  cudaDataType_t cd = tf32 ? CUDA_R_32F : CUDA_R_16BF;
  CKBLAS(cublasLtMatmulDescCreate(&g.op, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  CKBLAS(cublasLtMatmulDescSetAttribute(g.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  CKBLAS(cublasLtMatmulDescSetAttribute(g.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  if (fp8) {
    CKBLAS(cublasLtMatmulDescSetAttribute(g.op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &one, sizeof one));
    CKBLAS(cublasLtMatmulDescSetAttribute(g.op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &one, sizeof one));
  }
  CKBLAS(cublasLtMatrixLayoutCreate(&g.la, ab, k, m, k));
  CKBLAS(cublasLtMatrixLayoutCreate(&g.lb, ab, k, n, k));
  CKBLAS(cublasLtMatrixLayoutCreate(&g.lc, cd, m, n, m));
  size_t eb = fp8 ? 1 : tf32 ? 4 : 2;
  CK(cudaMalloc(&g.A, k * m * eb));
  CK(cudaMalloc(&g.B, k * n * eb));
  CK(cudaMalloc(&g.C, m * n * (tf32 ? 4 : 2)));
  if (tf32) {
    fill_random((float*)g.A, k * m, 11);
    fill_random((float*)g.B, k * n, 12);
  } else if (fp8) {
    fill_random((__nv_fp8_e4m3*)g.A, k * m, 11);
    fill_random((__nv_fp8_e4m3*)g.B, k * n, 12);
  } else {
    fill_random((__nv_bfloat16*)g.A, k * m, 11);
    fill_random((__nv_bfloat16*)g.B, k * n, 12);
  }
  cublasLtMatmulPreference_t pref;
  CKBLAS(cublasLtMatmulPreferenceCreate(&pref));
  CKBLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &g.wsb, sizeof g.wsb));
  cublasLtMatmulHeuristicResult_t h{};
  int cnt = 0;
  CKBLAS(cublasLtMatmulAlgoGetHeuristic(lt, g.op, g.la, g.lb, g.lc, g.lc, pref, 1, &h, &cnt));
  if (cnt == 0) { std::fprintf(stderr, "no cuBLASLt algorithm\n"); std::exit(3); }
  g.algo = h.algo;
  cublasLtMatmulPreferenceDestroy(pref);
  CK(cudaDeviceSynchronize());
  return g;
}

struct Sample { double t_ms, sm, mem, pw, pwi, temp; unsigned long long reasons; };

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "calibration.csv";
  const char* series = argc > 2 ? argv[2] : "clock.csv";
  CK(cudaSetDevice(0));
  print_device(0);
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  Nvml nvml(0);
  if (!nvml.ok) std::printf("NVML unavailable: clock rows will be empty\n");
  CalibCsv csv(out);
  FILE* fs = std::fopen(series, "w");
  if (fs) std::fprintf(fs, "phase,source,t_ms,sm_clock_mhz,mem_clock_mhz,power_w,power_instant_w,temp_c,clock_event_reasons,throughput,throughput_unit\n");
  std::printf("max SM clock %.0f MHz, enforced power limit %.0f W\n", nvml.max_sm_mhz(), nvml.power_limit_w());
  csv.row("sm_clock_max_reported", nvml.max_sm_mhz(), "MHz", "NVML nvmlDeviceGetMaxClockInfo(SM)", 0);
  csv.row("power_limit_enforced", nvml.power_limit_w(), "W", "NVML nvmlDeviceGetEnforcedPowerLimit", 0);

  cublasLtHandle_t lt;
  CKBLAS(cublasLtCreate(&lt));
  float* one;
  CK(cudaMalloc(&one, 4));
  float h1 = 1.f;
  CK(cudaMemcpy(one, &h1, 4, cudaMemcpyHostToDevice));
  void* ws;
  CK(cudaMalloc(&ws, 32ull << 20));
  const long n = 8192;
  Gemm gb = make_gemm(lt, GemmType::bf16, n, n, n, one, ws);
  Gemm g8 = make_gemm(lt, GemmType::fp8, n, n, n, one, ws);
  Gemm gt = make_gemm(lt, GemmType::tf32, n, n, n, one, ws);
  // the flushed small GEMMs of the power phases (cuBLAS m = weight rows, n = tokens)
  Gemm g_skinny = make_gemm(lt, GemmType::bf16, 4096, 16, 4096, one, ws);
  Gemm g_tiny = make_gemm(lt, GemmType::bf16, 256, 256, 256, one, ws);
  Gemm g_2048 = make_gemm(lt, GemmType::bf16, 2048, 2048, 2048, one, ws);
  Gemm g_4096 = make_gemm(lt, GemmType::bf16, 4096, 4096, 4096, one, ws);
  const std::string only = argc > 3 ? argv[3] : "";
  auto wanted = [&](const char* name) {
    if (only.empty()) return true;
    const std::string list = "," + only + ",";
    return list.find("," + std::string(name) + ",") != std::string::npos;
  };
  const size_t FLUSH = 256ull << 20, CB = 2ull << 30;
  void* flush;
  int4 *cs, *cd;
  CK(cudaMalloc(&flush, FLUSH));
  CK(cudaMalloc(&cs, CB));
  CK(cudaMalloc(&cd, CB));
  fill_random((float*)cs, CB / 4, 3);
  CK(cudaDeviceSynchronize());
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  // short warm-up of every workload (module load, heuristics) before the first idle gap
  gb.run(s); g8.run(s); gt.run(s); g_skinny.run(s); g_tiny.run(s); g_2048.run(s); g_4096.run(s);
  copy_kernel<<<prop.multiProcessorCount * 8, 256, 0, s>>>(cs, cd, CB / 16);
  CK(cudaStreamSynchronize(s));
  CKLAUNCH();

  std::vector<Sample> samples;
  std::mutex mu;
  std::atomic<bool> run_sampler{false}, quit{false};
  std::atomic<double> phase_t0{0};
  std::thread sampler([&] {
    while (!quit) {
      if (run_sampler) {
        Sample x{(now_s() - phase_t0) * 1e3, nvml.sm_mhz(), nvml.mem_mhz(), nvml.power_w(), nvml.power_instant_w(), nvml.temp_c(), nvml.reason_bits()};
        std::lock_guard<std::mutex> g(mu);
        samples.push_back(x);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
  });

  const int MAXEV = 8192;
  std::vector<cudaEvent_t> ev(MAXEV);
  for (auto& e : ev) CK(cudaEventCreate(&e));
  cudaEvent_t ev_start;
  CK(cudaEventCreate(&ev_start));

  struct Phase { const char* name; int kind; double secs; double work; const char* unit; const char* what; double scale = 1e12; };
  const double gflop = 2.0 * n * n * n;
  int* sink;
  CK(cudaMalloc(&sink, 4));
  const Phase phases[] = {
      {"gemm_bf16", 0, 5.0, gflop, "TFLOP/s", "cuBLASLt 8192^3 bf16 TN back to back"},
      {"gemm_fp8", 1, 5.0, gflop, "TFLOP/s", "cuBLASLt 8192^3 fp8_e4m3 TN (bf16 out) back to back"},
      {"copy_kernel", 2, 4.0, 2.0 * CB, "GB/s", "int4 copy kernel over 2 GiB back to back (bytes read+written)"},
      {"gemm_bf16_flush", 3, 5.0, gflop, "TFLOP/s", "cuBLASLt 8192^3 bf16 TN with a 256 MiB memset (L2 flush) before each GEMM"},
      {"gemm_tf32", 4, 5.0, gflop, "TFLOP/s", "cuBLASLt 8192^3 fp32 TN with TF32 tensor cores (fp32 out) back to back"},
      // power phases: what HBM traffic and an L2 flush cost in power, and the clock the flushed
      // small GEMMs of gemm_sweep run at
      {"memset_only", 5, 3.0, (double)FLUSH, "GB/s", "256 MiB cudaMemsetAsync back to back", 1e9},
      {"memset_gemm_skinny", 6, 3.0, 1.0, "reps/ms", "256 MiB memset + cuBLASLt bf16 GEMM m=4096 n=16 k=4096 TN, back to back", 1e3},
      {"memset_gemm_tiny", 7, 3.0, 1.0, "reps/ms", "256 MiB memset + cuBLASLt bf16 GEMM 256^3 TN, back to back", 1e3},
      {"memset_gemm_2048", 8, 3.0, 1.0, "reps/ms", "256 MiB memset + cuBLASLt bf16 GEMM 2048^3 TN, back to back", 1e3},
      {"memset_gemm_4096", 9, 3.0, 1.0, "reps/ms", "256 MiB memset + cuBLASLt bf16 GEMM 4096^3 TN, back to back", 1e3},
      {"read_kernel", 10, 3.0, (double)CB, "GB/s", "int4 read-only kernel over 2 GiB back to back (bytes read)", 1e9},
      {"write_kernel", 11, 3.0, (double)CB, "GB/s", "int4 store-only kernel over 2 GiB back to back (bytes written)", 1e9},
      {"copy_kernel_33sm", 12, 3.0, 2.0 * CB, "GB/s", "int4 copy kernel over 2 GiB on 33 SMs (8 CTAs each) back to back (bytes read+written)", 1e9},
  };

  // idle baseline
  {
    phase_t0 = now_s();
    run_sampler = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    run_sampler = false;
    std::vector<double> c, p;
    std::lock_guard<std::mutex> g(mu);
    for (auto& x : samples) {
      c.push_back(x.sm); p.push_back(x.pw);
      if (fs) std::fprintf(fs, "idle,nvml,%.1f,%.0f,%.0f,%.1f,%.1f,%.0f,0x%llx,,\n", x.t_ms, x.sm, x.mem, x.pw, x.pwi, x.temp, x.reasons);
    }
    csv.row("sm_clock_idle", median(c), "MHz", "NVML every 25 ms over 1.5 s idle; median", 0);
    csv.row("power_idle", median(p), "W", "NVML every 25 ms over 1.5 s idle; median", 1);
    samples.clear();
  }

  for (const auto& ph : phases) {
    if (!wanted(ph.name)) continue;
    std::printf("phase %s (%.0f s)\n", ph.name, ph.secs);
    const int CHUNK = 5;
    {
      std::lock_guard<std::mutex> g(mu);
      samples.clear();
    }
    phase_t0 = now_s();
    run_sampler = true;
    CK(cudaEventRecord(ev_start, s));
    int nchunks = 0;
    while (now_s() - phase_t0 < ph.secs && nchunks < MAXEV) {
      if (nchunks >= 2) CK(cudaEventSynchronize(ev[nchunks - 2]));
      for (int i = 0; i < CHUNK; ++i) {
        switch (ph.kind) {
          case 0: gb.run(s); break;
          case 1: g8.run(s); break;
          case 2: copy_kernel<<<prop.multiProcessorCount * 8, 256, 0, s>>>(cs, cd, CB / 16); break;
          case 3: CK(cudaMemsetAsync(flush, i, FLUSH, s)); gb.run(s); break;
          case 4: gt.run(s); break;
          case 5: CK(cudaMemsetAsync(flush, i, FLUSH, s)); break;
          case 6: CK(cudaMemsetAsync(flush, i, FLUSH, s)); g_skinny.run(s); break;
          case 7: CK(cudaMemsetAsync(flush, i, FLUSH, s)); g_tiny.run(s); break;
          case 8: CK(cudaMemsetAsync(flush, i, FLUSH, s)); g_2048.run(s); break;
          case 9: CK(cudaMemsetAsync(flush, i, FLUSH, s)); g_4096.run(s); break;
          case 10: read_kernel<<<prop.multiProcessorCount * 8, 256, 0, s>>>(cs, sink, CB / 16); break;
          case 11: write_kernel<<<prop.multiProcessorCount * 8, 256, 0, s>>>(cd, CB / 16, i); break;
          case 12: copy_kernel<<<33 * 8, 256, 0, s>>>(cs, cd, CB / 16); break;
        }
      }
      CK(cudaEventRecord(ev[nchunks++], s));
    }
    CK(cudaStreamSynchronize(s));
    CKLAUNCH();
    run_sampler = false;
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    std::vector<Sample> smp;
    {
      std::lock_guard<std::mutex> g(mu);
      smp = samples;
    }
    // chunk throughput on the GPU's time axis
    std::vector<std::pair<double, double>> thr;  // (t_ms at chunk end, throughput)
    float prev = 0.f;
    for (int i = 0; i < nchunks; ++i) {
      float t;
      CK(cudaEventElapsedTime(&t, ev_start, ev[i]));
      double v = CHUNK * ph.work / ((t - prev) * 1e-3) / (ph.kind == 2 ? 1e9 : ph.scale);
      thr.push_back({t, v});
      prev = t;
    }
    if (fs) {
      for (auto& x : smp)
        std::fprintf(fs, "%s,nvml,%.1f,%.0f,%.0f,%.1f,%.1f,%.0f,0x%llx,,\n", ph.name, x.t_ms, x.sm, x.mem, x.pw, x.pwi, x.temp, x.reasons);
      for (auto& [t, v] : thr) std::fprintf(fs, "%s,events,%.2f,,,,,,,%.2f,%s\n", ph.name, t, v, ph.unit);
      std::fflush(fs);
    }
    auto window = [&](double a, double b, int what) {
      std::vector<double> v;
      for (auto& x : smp)
        if (x.t_ms >= a && x.t_ms < b) v.push_back(what == 0 ? x.sm : what == 1 ? x.pw : x.pwi);
      return median(v);
    };
    auto twindow = [&](double a, double b) {
      std::vector<double> v;
      for (auto& [t, x] : thr)
        if (t >= a && t < b) v.push_back(x);
      return median(v);
    };
    // most common clock-event-reason bits in the steady part
    std::map<unsigned long long, int> rc;
    for (auto& x : smp)
      if (x.t_ms >= 1000) rc[x.reasons]++;
    unsigned long long mode = 0;
    int best = -1;
    for (auto& [k, c] : rc)
      if (c > best) { best = c; mode = k; }
    char m[400];
    const double END = 1e9;
    struct W { const char* tag; double a, b; };
    const W wins[] = {{"0_50ms", 0, 50}, {"50_250ms", 50, 250}, {"250_1000ms", 250, 1000}, {"steady", 1000, END}};
    for (const auto& w : wins) {
      char q[96];
      std::snprintf(q, sizeof q, "sm_clock_%s_%s", ph.name, w.tag);
      std::snprintf(m, sizeof m, "%s; NVML SM clock every 25 ms; median over t in [%g, %g) ms of the phase%s", ph.what,
                    w.a, w.b >= END ? ph.secs * 1e3 : w.b,
                    w.b >= END ? "" : "");
      csv.row(q, window(w.a, w.b, 0), "MHz", m, 0);
    }
    std::snprintf(m, sizeof m, "%s; NVML power every 25 ms; median over t >= 1 s; clock event reasons (mode) 0x%llx",
                  ph.what, mode);
    csv.row(std::string("power_") + ph.name + "_steady", window(1000, END, 1), "W", m, 1);
    std::snprintf(m, sizeof m, "%s; NVML field NVML_FI_DEV_POWER_INSTANT every 25 ms; median over t >= 1 s", ph.what);
    csv.row(std::string("power_instant_") + ph.name + "_steady", window(1000, END, 2), "W", m, 1);
    for (const auto& w : wins) {
      char q[96];
      std::snprintf(q, sizeof q, "throughput_%s_%s", ph.name, w.tag);
      std::snprintf(m, sizeof m, "%s; chunks of 5 timed with CUDA events from the phase start; median over chunks ending in the window",
                    ph.what);
      csv.row(q, twindow(w.a, w.b), ph.unit, m, 1);
    }
    // when the GPU-side throughput first falls below 95% of the first chunk's
    if (!thr.empty()) {
      double first = thr[0].second, drop = NAN;
      for (auto& [t, v] : thr)
        if (v < 0.95 * first) { drop = t; break; }
      std::snprintf(m, sizeof m,
                    "%s; end time of the first 5-item chunk (CUDA events from the phase start) whose throughput is "
                    "below 95%% of the first chunk's (%.1f %s); empty if none",
                    ph.what, first, ph.unit);
      csv.row(std::string("throughput_drop_ms_") + ph.name, drop, "ms", m, 1);
    }
    std::printf("  idle 1.5 s\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  }
  quit = true;
  sampler.join();
  if (fs) std::fclose(fs);
  std::printf("calib_clock done\n");
  return 0;
}
