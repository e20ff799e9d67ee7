// gemm_sweep_csv.h (part of gemm_sweep, included by gemm_sweep.cu only): the gemm.csv writer
// (measurement schema plus gemm_sweep's extra columns), rewritten after every pass.
#pragma once

#include "common.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gemm_sweep_plan.h"

static std::string g_source_base;
static int g_settle_ms = 0;  // --settle-ms, written to every row (tgsim validate reads settle_ms)
static std::string g_gpu = "h200";  // the gpu column: the preset of the device measured (gemm_sweep.cu)

static void write_csv(const char* path, const std::vector<Plan>& plans) {
  FILE* f = std::fopen(path, "w");
  if (!f) { std::perror(path); return; }
  std::fprintf(f, "op,gpu,dtype,M,N,K,order,layout,kernel,time_us,source,sm_clock_mhz,power_w,spread_pct,"
                  "tflops,reps,passes,shape_set,grid,block,cluster,pass_us,pass_sm_clock_mhz,power_instant_w,"
                  "probe_sm_clock_mhz,pass_probe_mhz,settle_ms,cupti_gap_us\n");
  for (const auto& p : plans) {
    if (!p.ok || p.pass_us.empty()) continue;
    double t = bench::median(p.pass_us);
    double spread = p.pass_us.size() > 1 ? 100.0 * (bench::vmax(p.pass_us) - bench::vmin(p.pass_us)) / t : NAN;
    double tflops = 2.0 * p.M * p.N * p.K / (t * 1e-6) / 1e12;
    char src[512];
    std::snprintf(src, sizeof src, "%s; median of %d reps x %zu passes%s", g_source_base.c_str(), p.reps,
                  p.pass_us.size(), p.dt == FP8 ? "; fp8_e4m3 in / bf16 out; scale pointers = 1" : "");
    std::string pus, pclk, pprobe;
    std::vector<double> probe_mid;
    for (size_t i = 0; i < p.pass_us.size(); ++i) {
      pus += (i ? ";" : "") + bench::fmt(p.pass_us[i], 3);
      pclk += (i ? ";" : "") + bench::fmt(p.pass_clk[i], 0);
      pprobe += (i ? ";" : "") + bench::fmt(p.pass_probe_before[i], 0) + "/" + bench::fmt(p.pass_probe_after[i], 0);
      probe_mid.push_back(0.5 * (p.pass_probe_before[i] + p.pass_probe_after[i]));
    }
    std::fprintf(f, "gemm,%s,%s,%ld,%ld,%ld,row,TN,%s,%s,%s,%s,%s,%s,%s,%d,%zu,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d,%s\n",
                 g_gpu.c_str(), DTS[p.dt].name, p.M, p.N, p.K, bench::csv_field(p.kernels).c_str(), bench::fmt(t, 3).c_str(),
                 bench::csv_field(src).c_str(), bench::fmt(bench::median(p.pass_clk), 0).c_str(),
                 bench::fmt(bench::median(p.pass_pow), 1).c_str(), bench::fmt(spread, 2).c_str(),
                 bench::fmt(tflops, 2).c_str(), p.reps, p.pass_us.size(), bench::csv_field(p.set).c_str(),
                 bench::csv_field(p.grids).c_str(), bench::csv_field(p.blocks).c_str(),
                 bench::csv_field(p.clusters).c_str(), pus.c_str(), pclk.c_str(),
                 bench::fmt(bench::median(p.pass_pow_inst), 1).c_str(), bench::fmt(bench::median(probe_mid), 0).c_str(),
                 pprobe.c_str(), g_settle_ms, bench::csv_field(p.cupti_gap_us).c_str());
  }
  std::fclose(f);
}
