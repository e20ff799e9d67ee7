// gemm_sweep: measured cuBLASLt GEMM times on the local GPU, for calibrating and
// validating tgsim's GEMM model (CSV schema: docs/measurements.md).
//
// What it measures: one C = A.B per row, in the row-major caller view of PyTorch's
// y = x @ W^T (x:[M,K], W:[N,K], y:[M,N]); cuBLASLt is called column-major with m=N, n=M,
// k=K, transa=T, transb=N ("TN", the layout FP8 requires), and the row records order=row,
// layout=TN and M,N,K of the row view. dtypes: bf16, fp16 (in/out, fp32 accumulate),
// fp8_e4m3 (e4m3 in, bf16 out, A/B scale pointers = 1, fp32 accumulate), tf32 (fp32
// in/out, CUBLAS_COMPUTE_32F_FAST_TF32).
//
// How: the default heuristic's first algorithm (what the library picks; 32 MiB workspace).
// Random inputs in [-1,1). Per shape: warm-up, then reps timed one by one with CUDA events
// recorded around the cublasLtMatmul call only, each rep preceded by a 256 MiB
// cudaMemsetAsync (> 2x L2) so it starts with a cold L2; reps = clamp(50 ms / t, 5, 50);
// median over reps. Three passes over the whole sweep; the row's time is the median of
// the three pass medians, spread_pct = (max - min) / median of the pass medians.
// sm_clock_mhz / power_w (NVML's 1 s average) / power_instant_w: NVML read right after each
// pass's timed reps of the row (median over passes); pass_us and pass_sm_clock_mhz list the
// per-pass values. Kernel names: after the timed passes, CUPTI activity
// (CONCURRENT_KERNEL) is enabled around five extra launches per shape and every kernel of
// one launch is recorded in launch order, ';'-separated (demangled, parameter list
// dropped), with their grid, block and cluster shapes; cupti_gap_us: for each consecutive
// pair of a launch's kernels (a split-K GEMM and its reduction), the next one's CUPTI start
// minus the previous one's end, median of the five (negative: they overlapped).
// Correctness: a few shapes per dtype are compared with a naive tiled GPU reference
// (fp32 accumulation, same inputs): relative Frobenius error, outputs poisoned first.
//
// Settled mode (--settle-ms N --shuffle SEED): before each row's timed reps the host waits N ms
// with the GPU idle, so every row starts from a card that is not carrying the power state of
// the rows before it (the plain sweep measures small rows right after large ones, at whatever
// clock the power controller was holding: gemm.csv's small rows were recorded at 1200-1980
// MHz); and each pass visits the rows of a dtype in its own random order (seeded), so what
// history remains differs between passes and the median over passes averages it. In every
// mode a one-thread clock probe (common.h: probe_sm_mhz, clock64 against %globaltimer over
// 50 us) runs right before and right after each row's timed reps: pass_probe_mhz lists
// "before/after" per pass, probe_sm_clock_mhz is the median over passes of their mean;
// settle_ms records N (0: the plain sweep), which tgsim validate reads.
//
// Usage: gemm_sweep [out.csv] [--passes N] [--quick | --probe | --misaligned | --odd-vocab] [--settle-ms N] [--shuffle SEED]
//
// Code: gemm_sweep_plan.h (dtypes, cuBLASLt plans), gemm_sweep_check.h (reference check),
// gemm_sweep_cupti.h (kernel names), gemm_sweep_csv.h (the CSV writer); main below: set-up,
// checks, the timed passes, kernel names, summary.
#include "common.h"

#include <cublasLt.h>

#include <map>
#include <random>
#include <thread>

#include "gemm_shapes.h"
#include "gemm_sweep_check.h"
#include "gemm_sweep_csv.h"
#include "gemm_sweep_cupti.h"
#include "gemm_sweep_plan.h"

using namespace bench;

int main(int argc, char** argv) {
  const char* out = "gemm.csv";
  int passes = 3, settle_ms = 0;
  long shuffle_seed = -1;
  bool quick = false, probe = false, misaligned = false, odd_vocab = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--passes" && i + 1 < argc) passes = std::atoi(argv[++i]);
    else if (a == "--quick") quick = true;
    else if (a == "--probe") probe = true;
    else if (a == "--misaligned") misaligned = true;
    else if (a == "--odd-vocab") odd_vocab = true;
    else if (a == "--settle-ms" && i + 1 < argc) settle_ms = std::atoi(argv[++i]);
    else if (a == "--shuffle" && i + 1 < argc) shuffle_seed = std::atol(argv[++i]);
    else out = argv[i];
  }
  CK(cudaSetDevice(0));
  print_device(0);
  {  // the gpu column names tgsim's preset for the device (an H100 when the lent machine is one)
    cudaDeviceProp prop{};
    CK(cudaGetDeviceProperties(&prop, 0));
    const std::string name = prop.name;
    g_gpu = name.find("H100") != std::string::npos ? "h100" : name.find("H200") != std::string::npos ? "h200" : "unknown";
    if (g_gpu == "unknown") std::printf("# warning: %s is no tgsim preset; the gpu column says unknown\n", prop.name);
  }
  Nvml nvml(0);
  CKBLAS(cublasLtCreate(&g_lt));
  size_t v = cublasLtGetVersion();
  char src[256];
  std::snprintf(src, sizeof src,
                "cuBLASLt %zu.%zu.%zu default heuristic (first algo; 32 MiB workspace); fp32 accumulate; CUDA events "
                "around the GEMM only; L2 flushed (256 MiB memset) before each rep; random inputs",
                v / 10000, (v / 100) % 100, v % 100);
  g_source_base = src;
  g_settle_ms = settle_ms;
  if (settle_ms > 0) g_source_base += "; GPU idle " + std::to_string(settle_ms) + " ms before each row's reps";
  if (shuffle_seed >= 0) g_source_base += "; row order shuffled per pass (seed " + std::to_string(shuffle_seed) + ")";
  std::printf("# %s\n", src);

  std::vector<Plan> plans;
  for (const GemmShape& g : build_shapes(quick, probe, misaligned, odd_vocab)) {
    Plan p;
    p.dt = g.dt; p.M = g.M; p.N = g.N; p.K = g.K; p.set = g.set; p.check = g.check;
    plans.push_back(std::move(p));
  }
  CK(cudaMalloc(&g_one, sizeof(float)));
  float one = 1.f;
  CK(cudaMemcpy(g_one, &one, sizeof one, cudaMemcpyHostToDevice));
  CK(cudaMalloc(&g_ws, WS_BYTES));

  size_t maxA = 0, maxB = 0, maxC = 0, maxCheck = 0;
  size_t nA[4] = {0}, nB[4] = {0};
  for (auto& p : plans) {
    maxA = std::max(maxA, (size_t)p.N * p.K * DTS[p.dt].in_bytes);
    maxB = std::max(maxB, (size_t)p.M * p.K * DTS[p.dt].in_bytes);
    maxC = std::max(maxC, (size_t)p.M * p.N * DTS[p.dt].out_bytes);
    nA[p.dt] = std::max(nA[p.dt], (size_t)p.N * p.K);
    nB[p.dt] = std::max(nB[p.dt], (size_t)p.M * p.K);
    if (p.check) maxCheck = std::max(maxCheck, (size_t)p.M * p.N);
  }
  void *A, *B, *C;
  float *ref = nullptr, *conv = nullptr;
  CK(cudaMalloc(&A, maxA));
  CK(cudaMalloc(&B, maxB));
  CK(cudaMalloc(&C, maxC));
  CK(cudaMalloc(&ref, std::max<size_t>(maxCheck, 1) * 4));
  CK(cudaMalloc(&conv, std::max<size_t>(maxCheck, 1) * 4));
  const size_t FLUSH = 256ull << 20;
  void* flush;
  CK(cudaMalloc(&flush, FLUSH));
  std::printf("# %zu shapes; buffers A %.2f GB, B %.2f GB, C %.2f GB\n", plans.size(), maxA / 1e9, maxB / 1e9,
              maxC / 1e9);

  double t0 = now_s();
  for (auto& p : plans) make_plan(p);
  std::printf("# heuristics done in %.1f s\n", now_s() - t0);

  // correctness checks
  int nfail = 0, nchk = 0;
  for (auto& p : plans)
    if (p.check && p.ok) { ++nchk; nfail += !check_plan(p, A, B, C, ref, conv, 1234 + nchk); }
  std::printf("# checks: %d run, %d failed\n", nchk, nfail);
  std::fflush(stdout);

  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const int MAXR = 50;
  std::vector<cudaEvent_t> ev0(MAXR), ev1(MAXR);
  for (int i = 0; i < MAXR; ++i) { CK(cudaEventCreate(&ev0[i])); CK(cudaEventCreate(&ev1[i])); }

  auto timed = [&](Plan& p, int reps) {
    for (int r = 0; r < reps; ++r) {
      CK(cudaMemsetAsync(flush, r & 0xff, FLUSH, s));
      CK(cudaEventRecord(ev0[r], s));
      run_plan(p, A, B, C, s);
      CK(cudaEventRecord(ev1[r], s));
    }
    CK(cudaEventSynchronize(ev1[reps - 1]));
    CK(cudaGetLastError());
    std::vector<double> t(reps);
    for (int r = 0; r < reps; ++r) {
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, ev0[r], ev1[r]));
      t[r] = ms * 1000.0;
    }
    return median(t);
  };

  for (int pass = 0; pass < passes; ++pass) {
    double tp = now_s();
    for (int dt = 0; dt < 4; ++dt) {
      bool any = false;
      for (auto& p : plans) any |= (p.dt == dt && p.ok);
      if (!any) continue;
      fill_inputs((DT)dt, A, nA[dt], B, nB[dt], 42 + dt);
      std::vector<Plan*> order;
      for (auto& p : plans)
        if (p.dt == dt && p.ok) order.push_back(&p);
      if (shuffle_seed >= 0) {
        std::mt19937_64 rng((uint64_t)shuffle_seed * 1000003ull + (uint64_t)pass * 131ull + (uint64_t)dt);
        std::shuffle(order.begin(), order.end(), rng);
      }
      for (Plan* pp : order) {
        Plan& p = *pp;
        run_plan(p, A, B, C, s);  // warm-up
        run_plan(p, A, B, C, s);
        if (p.reps == 0) {
          double est = timed(p, 3);
          p.reps = (int)std::min<double>(MAXR, std::max<double>(5, std::ceil(50000.0 / std::max(est, 1.0))));
        }
        if (settle_ms > 0) {
          CK(cudaStreamSynchronize(s));
          std::this_thread::sleep_for(std::chrono::milliseconds(settle_ms));
        }
        p.pass_probe_before.push_back(probe_sm_mhz(s));
        double t = timed(p, p.reps);
        p.pass_probe_after.push_back(probe_sm_mhz(s));
        p.pass_clk.push_back(nvml.sm_mhz());
        p.pass_pow.push_back(nvml.power_w());
        p.pass_pow_inst.push_back(nvml.power_instant_w());
        p.pass_us.push_back(t);
        if (pass == 0)
          std::printf("  %-8s M=%-6ld N=%-6ld K=%-7ld %10.2f us %8.1f TFLOP/s  reps %2d  clk %4.0f MHz  probe %4.0f/%4.0f"
                      "  %5.0f W\n",
                      DTS[dt].name, p.M, p.N, p.K, t, 2.0 * p.M * p.N * p.K / t / 1e6, p.reps, p.pass_clk.back(),
                      p.pass_probe_before.back(), p.pass_probe_after.back(), p.pass_pow.back());
      }
    }
    write_csv(out, plans);  // partial results after every pass
    std::printf("# pass %d done in %.1f s\n", pass, now_s() - tp);
    std::fflush(stdout);
  }

  t0 = now_s();
  if (collect_kernel_names(plans, A, B, C)) write_csv(out, plans);
  std::printf("# kernel names collected in %.1f s\n", now_s() - t0);

  std::map<std::string, int> kc;
  int rows = 0;
  std::map<std::string, int> per_dt;
  for (auto& p : plans) {
    if (!p.ok || p.pass_us.empty()) continue;
    ++rows;
    per_dt[DTS[p.dt].name]++;
    kc[p.kernels]++;
  }
  std::printf("# rows written: %d (", rows);
  for (auto& [k, n] : per_dt) std::printf(" %s=%d", k.c_str(), n);
  std::printf(" ) to %s\n# distinct kernel sequences: %zu\n", out, kc.size());
  for (auto& [k, n] : kc) std::printf("  %4d  %s\n", n, k.c_str());
  std::printf("# checks failed: %d\n", nfail);
  return nfail ? 1 : 0;
}
