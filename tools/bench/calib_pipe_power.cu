// calib_pipe_power: the SM clock and power the card settles at when only one kind of pipe (or a
// known mix) is busy on every SM: how much each pipe's activity weighs in the power limit.
//
// What it measures: for each phase mix_kernel<L, M, E, F> (mix_kernel.h; 8 warps per SM, one
// CTA per SM on every SM) runs back to back for 4 s after >= 1.5 s idle, while a host thread
// samples NVML every 25 ms (SM clock, power, clock event reasons). Rows per phase:
//   cycles_per_iter_<phase>   SM cycles per loop iteration (clock64; median over the CTAs of the
//                             phase's last launch): with the per-iteration instruction counts this
//                             gives each pipe's duty (docs/model.md)
//   sm_clock_<phase>_steady   median NVML SM clock over 1 s .. end of the phase
//   power_<phase>_steady      median NVML power (1 s average field) over the same window
//   effective_sm_clock_<phase>_first_60ms, _steady
//                             the clock the SMs really ran at (clock64 / %globaltimer over each
//                             launch's loop, median over CTAs), over the launches that ended in the
//                             first 60 ms and over the steady window: under a power limit it falls
//                             below the NVML clock within milliseconds (docs/model.md)
// Phases (per warp and iteration): mma (16 mma.sync), fma (22 FFMA), ex2 (4 MUFU.EX2),
// mma_fma, mma_ex2, ldsm_mma (5 ldmatrix.x4 + 16 mma.sync), fa2mix (5 ldmatrix, 16 mma.sync, 4 ex2,
// 22 FFMA: a FlashAttention-2 warp's mix per 16 MMAs); the *_rnd phases (and their reference
// ldsm2_mma) feed both MMA operands from the fragments ldmatrix loaded in the iteration (random
// data) instead of fixed registers; and two data-movement phases, one CTA of
// 1024 (l2_read) or 256 (smem_read) threads per SM: l2_read streams 64 KiB per CTA and iteration
// from a 16 MiB buffer that stays in L2 (ld.global.cg, no L1), smem_read 32 KiB of
// ld.shared.v4 per CTA and iteration; for them `bytes_per_clk_<phase>` (per SM) is written too.
//
// The third argument picks phases and their length: "fa2mix:20,mma:20" runs those two for 20 s
// each (default: every phase, 4 s). Rows also give the median GPU temperature of the window.
//
// HBM phases (hbm_stream.h): hbm_read streams an 8 GiB buffer alone (1024 threads/SM, 10 ms per
// launch); fa2mix_hbm and mma_hbm run fa2mix_rnd / mma_rnd with a 256-thread HBM stream beside
// them on a second stream; rows hbm_gbps_<phase>_first_60ms / _steady give the stream's rate.
//
// Usage: calib_pipe_power [calibration.csv] [series.csv] [phase:seconds,...]
// (series.csv gets the NVML samples; series_eff.csv beside it each launch's effective clock)
#include "hbm_stream.h"
#include "mix_kernel.h"
#include "mma_kernels.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>

using namespace bench;

namespace {

struct Sample {
  double t_ms, sm, pw, temp;
  unsigned long long reasons;
};

using Launch = void (*)(int sms, int iters, long long* cycles, float* sink, unsigned long long* ns);

template <int L, int M, int E, int F, bool R>
void launch(int sms, int iters, long long* cycles, float* sink, unsigned long long* ns) {
  mix_kernel<L, M, E, F, R><<<sms, 32 * 8, MIX_SMEM>>>(iters, cycles, sink, ns);
}

template <int L, int M, int E, int F, bool R = false>
Launch prepared() {
  CK(cudaFuncSetAttribute(mix_kernel<L, M, E, F, R>, cudaFuncAttributeMaxDynamicSharedMemorySize, MIX_SMEM));
  return &launch<L, M, E, F, R>;
}

struct Phase {
  const char* name;
  const char* what;
  Launch run;
  double bytes_per_iter = 0;  // per CTA (the data-movement phases)
  int hbm = 0;                // 1: the HBM stream alone (time-based), 2: beside an MMA mix
};

HbmStream g_hbm;  // hbm_read and the *_hbm phases (hbm_stream.h)
constexpr unsigned long long kHbmLaunchNs = 10'000'000;  // each HBM-stream launch: 10 ms

void launch_hbm_read(int sms, int, long long* cycles, float* sink, unsigned long long* ns) {
  g_hbm.launch(g_hbm.mix, sms, 1024, kHbmLaunchNs, cycles, sink, ns);
}

// An MMA mix (one CTA of 8 warps per SM) and, beside it on the other stream, the HBM stream
// (one CTA of 256 threads per SM: 32 KiB of loads in flight per SM).
template <int L, int M, int E, int F, bool R>
void launch_mix_hbm(int sms, int iters, long long* cycles, float* sink, unsigned long long* ns) {
  mix_kernel<L, M, E, F, R><<<sms, 32 * 8, MIX_SMEM, g_hbm.mix>>>(iters, cycles, sink, ns);
  g_hbm.launch(g_hbm.hbm, sms, 256, kHbmLaunchNs, nullptr, sink, nullptr);
}

template <int L, int M, int E, int F, bool R>
Launch prepared_hbm() {
  CK(cudaFuncSetAttribute(mix_kernel<L, M, E, F, R>, cudaFuncAttributeMaxDynamicSharedMemorySize, MIX_SMEM));
  return &launch_mix_hbm<L, M, E, F, R>;
}

constexpr size_t kL2Int4 = (16u << 20) / 16;  // 16 MiB of int4: stays in the 60 MiB L2

__device__ inline unsigned long long gtimer() {
  unsigned long long g;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
  return g;
}

__global__ void l2_read_kernel(const int4* __restrict__ p, int iters, long long* cycles, float* sink,
                               unsigned long long* ns) {
  int acc = 0;
  const size_t base = (size_t)blockIdx.x * 4096 + threadIdx.x;
  __syncthreads();
  const unsigned long long g0 = gtimer();
  const long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
    const size_t off = base + (size_t)it * gridDim.x * 4096;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const int4 v = __ldcg(p + (off + k * 1024) % kL2Int4);
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  }
  __syncthreads();
  const long long t1 = clock64();
  const unsigned long long g1 = gtimer();
  if (acc == 0x1234567) sink[threadIdx.x] = (float)acc;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  if (threadIdx.x == 0) ns[blockIdx.x] = g1 - g0;
}

__global__ void smem_read_kernel(int iters, long long* cycles, float* sink, unsigned long long* ns) {
  __shared__ int4 buf[2048];  // 32 KiB
  for (int i = threadIdx.x; i < 2048; i += blockDim.x) buf[i] = make_int4(i, i * 3, i * 7, i * 11);
  __syncthreads();
  int acc = 0;
  const unsigned long long g0 = gtimer();
  const long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int4 v = buf[(threadIdx.x + k * 256 + it) & 2047];
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  }
  __syncthreads();
  const long long t1 = clock64();
  const unsigned long long g1 = gtimer();
  if (acc == 0x1234567) sink[threadIdx.x] = (float)acc;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  if (threadIdx.x == 0) ns[blockIdx.x] = g1 - g0;
}

// Low-duty wgmma: per iteration each of 2 warpgroups issues one m64n256k16 bf16 wgmma (256
// tensor cycles per SM for both), commits it, runs F FFMA per thread (8 chains; 8 warps take 2F
// cycles on the FP32 pipe) while it runs, and waits for the previous one.
template <int F>
__global__ void __launch_bounds__(256, 1) wgmma_fill_kernel(int iters, long long* cycles, float* sink,
                                                            unsigned long long* ns) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint64_t da, db;
  wgmma_operands(smem, false, da, db);
  float d[128];
  zero_accumulators(d);
  float fm[8];
  for (int i = 0; i < 8; ++i) fm[i] = urand(threadIdx.x * 8 + i, 22);
  __syncthreads();
  const unsigned long long g0 = gtimer();
  const long long t0 = clock64();
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  for (int it = 0; it < iters; ++it) {
    WgOp<0>::issue(d, da, db);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#pragma unroll 8
    for (int f = 0; f < F; ++f) {
      float& y = fm[f & 7];
      asm volatile("fma.rn.f32 %0, %0, %1, %2;\n" : "+f"(y) : "f"(0.999f), "f"(0.001f));
    }
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  __syncthreads();
  const long long t1 = clock64();
  const unsigned long long g1 = gtimer();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  if (threadIdx.x == 0) ns[blockIdx.x] = g1 - g0;
  float extra = 0.f;
  for (int i = 0; i < 8; ++i) extra += fm[i];
  keep_accumulators(d, sink, extra);
}

template <int F>
void launch_wgmma_fill(int sms, int iters, long long* cycles, float* sink, unsigned long long* ns) {
  wgmma_fill_kernel<F><<<sms, 256, SMEM_REQ>>>(iters, cycles, sink, ns);
}

template <int F>
Launch prepared_wgmma_fill() {
  CK(cudaFuncSetAttribute(wgmma_fill_kernel<F>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_REQ));
  return &launch_wgmma_fill<F>;
}

template <int KIND>
void launch_wgmma(int sms, int iters, long long* cycles, float* sink, unsigned long long* ns) {
  wgmma_kernel<KIND, 2><<<sms, 256, SMEM_REQ>>>(iters, cycles, sink, ns);
}

template <int KIND>
Launch prepared_wgmma() {
  CK(cudaFuncSetAttribute(wgmma_kernel<KIND, 2>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_REQ));
  return &launch_wgmma<KIND>;
}

const int4* g_l2_buf = nullptr;

void launch_l2_read(int sms, int iters, long long* cycles, float* sink, unsigned long long* ns) {
  l2_read_kernel<<<sms, 1024>>>(g_l2_buf, iters, cycles, sink, ns);
}

void launch_smem_read(int sms, int iters, long long* cycles, float* sink, unsigned long long* ns) {
  smem_read_kernel<<<sms, 256>>>(iters, cycles, sink, ns);
}

}  // namespace

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "calibration.csv";
  const char* series = argc > 2 ? argv[2] : "pipe_power_series.csv";
  const int sms = open_device0();
  Nvml nvml(0);
  CalibCsv csv(out);
  FILE* fs = std::fopen(series, "w");
  if (fs) std::fprintf(fs, "phase,t_ms,sm_clock_mhz,power_w,temp_c,clock_event_reasons\n");
  // phase -> seconds, from "name:secs,name:secs" (empty: every phase for 4 s)
  std::map<std::string, double> only;
  if (argc > 3) {
    std::string list = argv[3];
    size_t at = 0;
    while (at < list.size()) {
      size_t end = list.find(',', at);
      if (end == std::string::npos) end = list.size();
      const std::string item = list.substr(at, end - at);
      const size_t colon = item.find(':');
      only[item.substr(0, colon)] = colon == std::string::npos ? 4.0 : std::atof(item.c_str() + colon + 1);
      at = end + 1;
    }
  }
  long long* d_cyc;
  float* d_sink;
  unsigned long long* d_ns;
  CK(cudaMalloc(&d_cyc, sms * sizeof(long long)));
  CK(cudaMalloc(&d_ns, sms * sizeof(unsigned long long)));
  CK(cudaMalloc(&d_sink, 4096 * sizeof(float)));
  // Each launch's effective clock (median over CTAs of cycles / globaltimer ns of its loop).
  std::string eff_path = series;
  if (eff_path.size() > 4 && eff_path.substr(eff_path.size() - 4) == ".csv") eff_path.resize(eff_path.size() - 4);
  eff_path += "_eff.csv";
  FILE* fe = std::strcmp(series, "/dev/null") == 0 ? nullptr : std::fopen(eff_path.c_str(), "w");
  if (fe) std::fprintf(fe, "phase,t_ms,effective_sm_clock_mhz\n");
  int4* l2_buf;
  CK(cudaMalloc(&l2_buf, kL2Int4 * sizeof(int4)));
  CK(cudaMemset(l2_buf, 1, kL2Int4 * sizeof(int4)));
  g_l2_buf = l2_buf;
  bool want_hbm = only.empty();
  for (const auto& [name, secs] : only) want_hbm = want_hbm || name.find("hbm") != std::string::npos;
  if (want_hbm) g_hbm.init(sms);
  const Phase phases[] = {
      {"mma", "16 mma.sync m16n8k16 bf16", prepared<0, 16, 0, 0>()},
      {"fma", "22 fma.rn.f32", prepared<0, 0, 0, 22>()},
      {"ex2", "4 ex2.approx", prepared<0, 0, 4, 0>()},
      {"mma_fma", "16 mma.sync + 22 fma", prepared<0, 16, 0, 22>()},
      {"mma_ex2", "16 mma.sync + 4 ex2", prepared<0, 16, 4, 0>()},
      {"ldsm_mma", "5 ldmatrix.x4 + 16 mma.sync", prepared<5, 16, 0, 0>()},
      {"fa2mix", "5 ldmatrix.x4 + 16 mma.sync + 4 ex2 + 22 fma", prepared<5, 16, 4, 22>()},
      // The same with both MMA operands from this iteration's ldmatrix loads (mix_kernel's R).
      {"ldsm2_mma", "2 ldmatrix.x4 + 16 mma.sync (fixed B operand)", prepared<2, 16, 0, 0>()},
      {"mma_rnd", "2 ldmatrix.x4 + 16 mma.sync, random A and B", prepared<2, 16, 0, 0, true>()},
      {"mma_fma_rnd", "2 ldmatrix.x4 + 16 mma.sync + 22 fma, random A and B", prepared<2, 16, 0, 22, true>()},
      {"mma_ex2_rnd", "2 ldmatrix.x4 + 16 mma.sync + 4 ex2, random A and B", prepared<2, 16, 4, 0, true>()},
      {"ldsm_mma_rnd", "5 ldmatrix.x4 + 16 mma.sync, random A and B", prepared<5, 16, 0, 0, true>()},
      {"fa2mix_rnd", "5 ldmatrix.x4 + 16 mma.sync + 4 ex2 + 22 fma, random A and B", prepared<5, 16, 4, 22, true>()},
      // Lower tensor duty: fewer MMAs per FFMA (8 warps; the FP32 pipe takes 4 warp instructions
      // per cycle, mma.sync 1.5 cycles each), and wgmma at full rate (calib_mma's kernel).
      {"mma_d50", "4 mma.sync + 44 fma", prepared<0, 4, 0, 44>()},
      {"mma_d25", "2 mma.sync + 44 fma", prepared<0, 2, 0, 44>()},
      {"mma_d12", "2 mma.sync + 88 fma", prepared<0, 2, 0, 88>()},
      {"mma_d03", "1 mma.sync + 176 fma", prepared<0, 1, 0, 176>()},
      {"fma88", "88 fma", prepared<0, 0, 0, 88>()},
      {"wgmma_bf16", "2 warpgroups x 8 wgmma m64n256k16 bf16 per commit group (calib_mma's wgmma_kernel)",
       prepared_wgmma<0>()},
      {"wgmma_fp8", "2 warpgroups x 8 wgmma m64n256k32 e4m3 per commit group (calib_mma's wgmma_kernel)",
       prepared_wgmma<2>()},
      {"wgmma_d25", "2 warpgroups x 1 wgmma m64n256k16 bf16 + 384 fma per thread", prepared_wgmma_fill<384>()},
      {"wgmma_d10", "2 warpgroups x 1 wgmma m64n256k16 bf16 + 1152 fma per thread", prepared_wgmma_fill<1152>()},
      {"wgmma_f192", "2 warpgroups x 1 wgmma m64n256k16 bf16 + 192 fma per thread", prepared_wgmma_fill<192>()},
      {"wgmma_f768", "2 warpgroups x 1 wgmma m64n256k16 bf16 + 768 fma per thread", prepared_wgmma_fill<768>()},
      {"wgmma_f2304", "2 warpgroups x 1 wgmma m64n256k16 bf16 + 2304 fma per thread", prepared_wgmma_fill<2304>()},
      {"l2_read", "1024 threads/SM, 4 ld.global.cg int4 each from a 16 MiB (L2-resident) buffer", &launch_l2_read, 65536},
      {"smem_read", "256 threads/SM, 8 ld.shared.v4 each", &launch_smem_read, 32768},
      // HBM streaming alone and beside MMA mixes (2026-12-01, tenth session: what HBM traffic
      // adds to an MMA load's power; FlashAttention-2 decode streams 2.4-2.7 TB/s beside mma.sync).
      {"hbm_read", "1024 threads/SM, 8 ld.global.cs int4 each per iteration from an 8 GiB buffer, 10 ms per launch",
       &launch_hbm_read, 0, 1},
      {"fa2mix_hbm", "5 ldmatrix.x4 + 16 mma.sync + 4 ex2 + 22 fma, random A and B; beside it 256 threads/SM streaming HBM",
       prepared_hbm<5, 16, 4, 22, true>(), 0, 2},
      {"mma_hbm", "2 ldmatrix.x4 + 16 mma.sync, random A and B; beside it 256 threads/SM streaming HBM",
       prepared_hbm<2, 16, 0, 0, true>(), 0, 2},
  };

  std::vector<Sample> samples;
  std::mutex mu;
  std::atomic<bool> sampling{false}, quit{false};
  std::atomic<double> t0{0};
  std::thread sampler([&] {
    while (!quit) {
      if (sampling) {
        Sample x{(now_s() - t0) * 1e3, nvml.sm_mhz(), nvml.power_w(), nvml.temp_c(), nvml.reason_bits()};
        std::lock_guard<std::mutex> g(mu);
        samples.push_back(x);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
  });

  std::vector<long long> cyc(sms);
  for (const auto& ph : phases) {
    if (!only.empty() && !only.count(ph.name)) continue;
    const double secs = only.empty() ? 4.0 : only[ph.name];
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    // size a launch to ~10 ms at the boost clock from a short probe
    int iters = 2000;
    ph.run(sms, iters, d_cyc, d_sink, d_ns);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(cyc.data(), d_cyc, sms * sizeof(long long), cudaMemcpyDeviceToHost));
    std::vector<double> c(cyc.begin(), cyc.end());
    const double per_iter = median(c) / iters;
    iters = std::max(1000, (int)(10e-3 * 1.98e9 / std::max(per_iter, 1.0)));
    {
      std::lock_guard<std::mutex> g(mu);
      samples.clear();
    }
    t0 = now_s();
    sampling = true;
    int launches = 0;
    // (t_ms at the launch's end, effective MHz); reading each launch's counters leaves the card
    // idle ~30 us per ~10 ms launch.
    std::vector<std::pair<double, double>> eff, hbm_gbps;  // (t_ms, value) per launch
    std::vector<double> wall_ms;
    std::vector<long long> ce(sms);
    std::vector<unsigned long long> ne(sms);
    while (now_s() - t0 < secs) {
      const double l0 = now_s();
      ph.run(sms, iters, d_cyc, d_sink, d_ns);
      ++launches;
      CK(cudaDeviceSynchronize());
      wall_ms.push_back((now_s() - l0) * 1e3);
      if (ph.hbm) hbm_gbps.push_back({(now_s() - t0) * 1e3, g_hbm.gbps(sms)});
      CK(cudaMemcpy(ce.data(), d_cyc, sms * sizeof(long long), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(ne.data(), d_ns, sms * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      std::vector<double> mhz(sms);
      for (int i = 0; i < sms; ++i) mhz[i] = ne[i] > 0 ? 1e3 * (double)ce[i] / (double)ne[i] : 0.0;
      eff.push_back({(now_s() - t0) * 1e3, median(mhz)});
    }
    CK(cudaDeviceSynchronize());
    CK(cudaGetLastError());
    sampling = false;
    CK(cudaMemcpy(cyc.data(), d_cyc, sms * sizeof(long long), cudaMemcpyDeviceToHost));
    std::vector<double> last(cyc.begin(), cyc.end());
    const double cpi = median(last) / iters;
    std::vector<double> clk, pw, temp;
    {
      std::lock_guard<std::mutex> g(mu);
      for (const auto& x : samples) {
        if (fs) std::fprintf(fs, "%s,%.1f,%.0f,%.1f,%.0f,0x%llx\n", ph.name, x.t_ms, x.sm, x.pw, x.temp, x.reasons);
        if (x.t_ms >= 1000 * std::max(1.0, secs - 3.0)) {  // the last 3 s (1 s .. 4 s by default)
          clk.push_back(x.sm);
          pw.push_back(x.pw);
          temp.push_back(x.temp);
        }
      }
    }
    const std::string tag = ph.name + std::string(secs > 4.0 ? "_long" : "");
    std::vector<double> eff_first, eff_steady;
    for (const auto& [t, mhz] : eff) {
      if (fe) std::fprintf(fe, "%s,%.1f,%.1f\n", ph.name, t, mhz);
      if (t <= 60.0) eff_first.push_back(mhz);
      if (t >= 1000 * std::max(1.0, secs - 3.0)) eff_steady.push_back(mhz);
    }
    char m[400];
    std::snprintf(m, sizeof m,
                  "one CTA per SM on %d SMs (mix_kernel: 8 warps), per warp and iteration: %s; %d launches of %d "
                  "iterations back to back for %g s; clock64, median over the CTAs of the last launch",
                  sms, ph.what, launches, iters, secs);
    if (ph.hbm != 1) csv.row("cycles_per_iter_" + tag, cpi, "cycles/iter", m, 1);  // hbm_read runs by time
    std::snprintf(m, sizeof m, "%s back to back for %g s (all SMs); NVML every 25 ms, median over the last %g s", ph.what,
                  secs, std::min(secs - 1.0, 3.0));
    csv.row("sm_clock_" + tag + "_steady", median(clk), "MHz", m, 0);
    csv.row("power_" + tag + "_steady", median(pw), "W", m, 1);
    csv.row("temp_" + tag + "_steady", median(temp), "C", m, 0);
    std::snprintf(m, sizeof m,
                  "%s; the clock the SMs ran at: clock64 cycles / %%globaltimer ns of each launch's loop (~10 ms), "
                  "median over CTAs; median over the launches that ended %s",
                  ph.what, "in the first 60 ms (from >= 1.5 s idle)");
    csv.row("effective_sm_clock_" + tag + "_first_60ms", eff_first.empty() ? 0.0 : median(eff_first), "MHz", m, 0);
    std::snprintf(m, sizeof m,
                  "%s; the clock the SMs ran at: clock64 cycles / %%globaltimer ns of each launch's loop (~10 ms), "
                  "median over CTAs; median over the launches of the last %g s",
                  ph.what, std::min(secs - 1.0, 3.0));
    csv.row("effective_sm_clock_" + tag + "_steady", eff_steady.empty() ? 0.0 : median(eff_steady), "MHz", m, 0);
    if (ph.hbm) {
      std::vector<double> first, steady;
      for (const auto& [t, v] : hbm_gbps) {
        if (t <= 60.0) first.push_back(v);
        if (t >= 1000 * std::max(1.0, secs - 3.0)) steady.push_back(v);
      }
      std::snprintf(m, sizeof m,
                    "%s; HBM stream's bytes over its CTAs' time per launch, median over the launches that ended in the "
                    "first 60 ms / of the last %g s; median launch wall time %.2f ms (10 ms when the two kernels overlap)",
                    ph.what, std::min(secs - 1.0, 3.0), median(wall_ms));
      csv.row("hbm_gbps_" + tag + "_first_60ms", first.empty() ? 0.0 : median(first), "GB/s", m, 0);
      csv.row("hbm_gbps_" + tag + "_steady", steady.empty() ? 0.0 : median(steady), "GB/s", m, 0);
    }
    if (ph.bytes_per_iter > 0) {
      std::snprintf(m, sizeof m, "%s; bytes per SM cycle = %g B per CTA and iteration / cycles_per_iter_%s", ph.what,
                    ph.bytes_per_iter, ph.name);
      csv.row("bytes_per_clk_" + tag, ph.bytes_per_iter / cpi, "B/clk/SM", m, 1);
    }
    std::printf("%-9s %7.1f cycles/iter  %5.0f MHz  %5.0f W  %3.0f C  effective %5.0f MHz first 60 ms, %5.0f steady  (%d launches, %g s)\n",
                ph.name, cpi, median(clk), median(pw), median(temp), eff_first.empty() ? 0.0 : median(eff_first),
                eff_steady.empty() ? 0.0 : median(eff_steady), launches, secs);
  }
  quit = true;
  sampler.join();
  if (fs) std::fclose(fs);
  if (fe) std::fclose(fe);
  std::printf("calib_pipe_power done\n");
  return 0;
}
