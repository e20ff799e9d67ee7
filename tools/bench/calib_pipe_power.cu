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
// Phases (per warp and iteration): mma (16 mma.sync), fma (22 FFMA), ex2 (4 MUFU.EX2),
// mma_fma, mma_ex2, ldsm_mma (5 ldmatrix.x4 + 16 mma.sync), fa2mix (5 ldmatrix, 16 mma.sync, 4 ex2,
// 22 FFMA: a FlashAttention-2 warp's mix per 16 MMAs); and two data-movement phases, one CTA of
// 1024 (l2_read) or 256 (smem_read) threads per SM: l2_read streams 64 KiB per CTA and iteration
// from a 16 MiB buffer that stays in L2 (ld.global.cg, no L1), smem_read 32 KiB of
// ld.shared.v4 per CTA and iteration; for them `bytes_per_clk_<phase>` (per SM) is written too.
//
// The third argument picks phases and their length: "fa2mix:20,mma:20" runs those two for 20 s
// each (default: every phase, 4 s). Rows also give the median GPU temperature of the window.
//
// Usage: calib_pipe_power [calibration.csv] [series.csv] [phase:seconds,...]
#include "mix_kernel.h"

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

using Launch = void (*)(int sms, int iters, long long* cycles, float* sink);

template <int L, int M, int E, int F>
void launch(int sms, int iters, long long* cycles, float* sink) {
  mix_kernel<L, M, E, F><<<sms, 32 * 8, MIX_SMEM>>>(iters, cycles, sink);
}

template <int L, int M, int E, int F>
Launch prepared() {
  CK(cudaFuncSetAttribute(mix_kernel<L, M, E, F>, cudaFuncAttributeMaxDynamicSharedMemorySize, MIX_SMEM));
  return &launch<L, M, E, F>;
}

struct Phase {
  const char* name;
  const char* what;
  Launch run;
  double bytes_per_iter = 0;  // per CTA (the data-movement phases)
};

constexpr size_t kL2Int4 = (16u << 20) / 16;  // 16 MiB of int4: stays in the 60 MiB L2

__global__ void l2_read_kernel(const int4* __restrict__ p, int iters, long long* cycles, float* sink) {
  int acc = 0;
  const size_t base = (size_t)blockIdx.x * 4096 + threadIdx.x;
  __syncthreads();
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
  if (acc == 0x1234567) sink[threadIdx.x] = (float)acc;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

__global__ void smem_read_kernel(int iters, long long* cycles, float* sink) {
  __shared__ int4 buf[2048];  // 32 KiB
  for (int i = threadIdx.x; i < 2048; i += blockDim.x) buf[i] = make_int4(i, i * 3, i * 7, i * 11);
  __syncthreads();
  int acc = 0;
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
  if (acc == 0x1234567) sink[threadIdx.x] = (float)acc;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

const int4* g_l2_buf = nullptr;

void launch_l2_read(int sms, int iters, long long* cycles, float* sink) {
  l2_read_kernel<<<sms, 1024>>>(g_l2_buf, iters, cycles, sink);
}

void launch_smem_read(int sms, int iters, long long* cycles, float* sink) {
  smem_read_kernel<<<sms, 256>>>(iters, cycles, sink);
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
  CK(cudaMalloc(&d_cyc, sms * sizeof(long long)));
  CK(cudaMalloc(&d_sink, 4096 * sizeof(float)));
  int4* l2_buf;
  CK(cudaMalloc(&l2_buf, kL2Int4 * sizeof(int4)));
  CK(cudaMemset(l2_buf, 1, kL2Int4 * sizeof(int4)));
  g_l2_buf = l2_buf;
  const Phase phases[] = {
      {"mma", "16 mma.sync m16n8k16 bf16", prepared<0, 16, 0, 0>()},
      {"fma", "22 fma.rn.f32", prepared<0, 0, 0, 22>()},
      {"ex2", "4 ex2.approx", prepared<0, 0, 4, 0>()},
      {"mma_fma", "16 mma.sync + 22 fma", prepared<0, 16, 0, 22>()},
      {"mma_ex2", "16 mma.sync + 4 ex2", prepared<0, 16, 4, 0>()},
      {"ldsm_mma", "5 ldmatrix.x4 + 16 mma.sync", prepared<5, 16, 0, 0>()},
      {"fa2mix", "5 ldmatrix.x4 + 16 mma.sync + 4 ex2 + 22 fma", prepared<5, 16, 4, 22>()},
      {"l2_read", "1024 threads/SM, 4 ld.global.cg int4 each from a 16 MiB (L2-resident) buffer", &launch_l2_read, 65536},
      {"smem_read", "256 threads/SM, 8 ld.shared.v4 each", &launch_smem_read, 32768},
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
    ph.run(sms, iters, d_cyc, d_sink);
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
    while (now_s() - t0 < secs) {
      ph.run(sms, iters, d_cyc, d_sink);
      if (++launches % 4 == 0) CK(cudaDeviceSynchronize());  // keep the queue short
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
    char m[400];
    std::snprintf(m, sizeof m,
                  "one CTA per SM on %d SMs (mix_kernel: 8 warps), per warp and iteration: %s; %d launches of %d "
                  "iterations back to back for %g s; clock64, median over the CTAs of the last launch",
                  sms, ph.what, launches, iters, secs);
    csv.row("cycles_per_iter_" + tag, cpi, "cycles/iter", m, 1);
    std::snprintf(m, sizeof m, "%s back to back for %g s (all SMs); NVML every 25 ms, median over the last %g s", ph.what,
                  secs, std::min(secs - 1.0, 3.0));
    csv.row("sm_clock_" + tag + "_steady", median(clk), "MHz", m, 0);
    csv.row("power_" + tag + "_steady", median(pw), "W", m, 1);
    csv.row("temp_" + tag + "_steady", median(temp), "C", m, 0);
    if (ph.bytes_per_iter > 0) {
      std::snprintf(m, sizeof m, "%s; bytes per SM cycle = %g B per CTA and iteration / cycles_per_iter_%s", ph.what,
                    ph.bytes_per_iter, ph.name);
      csv.row("bytes_per_clk_" + tag, ph.bytes_per_iter / cpi, "B/clk/SM", m, 1);
    }
    std::printf("%-9s %7.1f cycles/iter  %5.0f MHz  %5.0f W  %3.0f C  (%d launches, %g s)\n", ph.name, cpi, median(clk),
                median(pw), median(temp), launches, secs);
  }
  quit = true;
  sampler.join();
  if (fs) std::fclose(fs);
  std::printf("calib_pipe_power done\n");
  return 0;
}
