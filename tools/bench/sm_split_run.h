// sm_split_run.h (part of sm_split, included by sm_split.cu only): the device buffers (Dev),
// one configuration and its per-pass results (Cfg), one timed launch (run_once), the checked
// warm-up launch (check_run), one pass of a configuration (run_cfg) and the sm_split.csv
// writer. Kept in the unnamed namespace as when it was in sm_split.cu.
#pragma once

#include "multigpu.h"
#include "sm_split_kernel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr size_t kMaxBytes = 256ull << 20;

struct Dev {
  bench::PeerPair pp;
  int nsm = 0;
  void* src = nullptr;  // GPU 0, kMaxBytes random
  void* dst = nullptr;  // GPU 1, kMaxBytes
  int* counters = nullptr;
  float* sink = nullptr;
  unsigned long long *t_start = nullptr, *t_copy = nullptr, *t_comp = nullptr;
  long long* cyc = nullptr;
  int *ntiles = nullptr, *sm = nullptr;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
};

struct Cfg {
  int c = 0, chains = 4, threads = 256, mpt = 1024, steal = 0, tiles = 0;
  long long bytes = 0, chunk = 1 << 20;
  double ratio = NAN, copy_ref_us = NAN, compute_ref_us = NAN;
  // results
  std::vector<double> pass_us, pass_copy_us, pass_comp_us;
  int reps = 0;
  std::string check;
  // per-CTA results of the last run
};

struct RunOut {
  double us, copy_us, comp_us;
  std::vector<long long> cyc;
  std::vector<int> ntiles, sm;
};

bool g_quick = false;

SplitParams params_for(Dev& d, const Cfg& g) {
  SplitParams p{};
  p.src = (const int4*)d.src;
  p.dst = (int4*)d.dst;
  p.bytes = g.bytes;
  p.chunk_bytes = g.chunk;
  p.nchunks = g.bytes > 0 ? (int)((g.bytes + g.chunk - 1) / g.chunk) : 0;
  p.comm_blocks = g.c;
  p.tiles = g.tiles;
  p.mpt = g.mpt;
  p.steal = g.steal;
  p.counters = d.counters;
  p.sink = d.sink;
  p.t_start = d.t_start;
  p.t_copy = d.t_copy;
  p.t_comp = d.t_comp;
  p.cyc = d.cyc;
  p.ntiles = d.ntiles;
  p.sm = d.sm;
  return p;
}

RunOut run_once(Dev& d, const Cfg& g, bool want_cta = false) {
  const int n = d.nsm;
  d.pp.flush_both();
  cudaStream_t s0 = d.pp.s[0];
  CK(cudaMemsetAsync(d.counters, 0, 2 * sizeof(int), s0));
  SplitParams p = params_for(d, g);
  CK(cudaEventRecord(d.e0, s0));
  kernel_for(g.chains)<<<n, g.threads, kSmem, s0>>>(p);
  CKLAUNCH();
  CK(cudaEventRecord(d.e1, s0));
  CK(cudaEventSynchronize(d.e1));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, d.e0, d.e1));
  std::vector<unsigned long long> ts(n), tc(n), tp(n);
  CK(cudaMemcpy(ts.data(), d.t_start, n * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(tc.data(), d.t_copy, n * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(tp.data(), d.t_comp, n * 8, cudaMemcpyDeviceToHost));
  unsigned long long t0 = ~0ull, tcm = 0, tpm = 0;
  for (int i = 0; i < n; ++i) {
    t0 = std::min(t0, ts[i]);
    tcm = std::max(tcm, tc[i]);
    tpm = std::max(tpm, tp[i]);
  }
  RunOut o;
  o.us = ms * 1e3;
  o.copy_us = tcm ? (tcm - t0) / 1e3 : NAN;
  o.comp_us = tpm ? (tpm - t0) / 1e3 : NAN;
  if (want_cta) {
    o.cyc.resize(n);
    o.ntiles.resize(n);
    o.sm.resize(n);
    CK(cudaMemcpy(o.cyc.data(), d.cyc, n * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o.ntiles.data(), d.ntiles, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o.sm.data(), d.sm, n * 4, cudaMemcpyDeviceToHost));
  }
  return o;
}

// correctness run: poisons the destination, runs once, checks data / tiles / sink / SMs
std::string check_run(Dev& d, const Cfg& g, double* warm_us) {
  if (g.bytes > 0) {
    CK(cudaSetDevice(1));
    CK(cudaMemset(d.dst, 0xA5, g.bytes));
    CK(cudaDeviceSynchronize());
    CK(cudaSetDevice(0));
  }
  RunOut o = run_once(d, g, true);
  *warm_us = o.us;
  std::string bad;
  if (g.bytes > 0) {
    const long long nch = (g.bytes + g.chunk - 1) / g.chunk;
    const long long chs[3] = {0, nch / 2, nch - 1};
    std::vector<unsigned char> x(4096), y(4096);
    for (long long ch : chs) {
      long long beg = ch * g.chunk, end = std::min(g.bytes, beg + g.chunk);
      for (long long off : {beg, end - 4096}) {
        CK(cudaSetDevice(1));
        CK(cudaMemcpy(x.data(), (char*)d.dst + off, 4096, cudaMemcpyDeviceToHost));
        CK(cudaSetDevice(0));
        CK(cudaMemcpy(y.data(), (char*)d.src + off, 4096, cudaMemcpyDeviceToHost));
        if (std::memcmp(x.data(), y.data(), 4096) != 0) bad = "data";
      }
    }
  }
  long long tiles = 0;
  for (int v : o.ntiles) tiles += v;
  if (tiles != g.tiles) bad += (bad.empty() ? "" : "+") + std::string("tiles");
  std::vector<float> sink((size_t)d.nsm * g.threads);
  CK(cudaMemcpy(sink.data(), d.sink, sink.size() * 4, cudaMemcpyDeviceToHost));
  for (float v : sink)
    if (!std::isfinite(v)) { bad += "+sink"; break; }
  std::vector<int> sms = o.sm;
  std::sort(sms.begin(), sms.end());
  if (std::unique(sms.begin(), sms.end()) != sms.end()) bad += "+shared_sm";
  return bad.empty() ? "pass" : "FAIL:" + bad;
}

void run_cfg(Dev& d, Cfg& g) {
  double warm = 0;
  if (g.check.empty()) g.check = check_run(d, g, &warm);
  else warm = run_once(d, g).us;
  int reps = (int)std::min(20.0, std::max(5.0, 30000.0 / std::max(warm, 1.0)));
  if (g_quick) reps = 3;
  std::vector<double> t, tc, tp;
  for (int r = 0; r < reps; ++r) {
    RunOut o = run_once(d, g);
    t.push_back(o.us);
    tc.push_back(o.copy_us);
    tp.push_back(o.comp_us);
  }
  g.reps = reps;
  g.pass_us.push_back(bench::median(t));
  g.pass_copy_us.push_back(bench::median(tc));
  g.pass_comp_us.push_back(bench::median(tp));
}

double mean(const std::vector<double>& v) {
  double s = 0;
  int n = 0;
  for (double x : v)
    if (std::isfinite(x)) { s += x; ++n; }
  return n ? s / n : NAN;
}

const char* kSource =
    "tools/bench/sm_split.cu: persistent kernel, 1 CTA per SM on 132 SMs; CTAs [0,c) push `bytes` from GPU 0 to "
    "GPU 1 over NVLink (16 B remote stores, chunks from an atomic counter), the rest run mma.sync tiles from a second "
    "counter; only GPU 0 runs the kernel (one direction); L2 of both GPUs flushed (256 MiB memset) before each rep; "
    "CUDA events on GPU 0; median of reps; mean of 2 pass medians";

void write_csv(const char* path, const std::vector<Cfg>& cfgs) {
  FILE* f = std::fopen(path, "w");
  if (!f) { std::perror(path); return; }
  std::fprintf(f, "op,gpu,gpus,dtype,comm_blocks,bytes,chunk_bytes,tiles,mma_per_warp_per_tile,mma_chains,mma_shape,"
                  "threads,steal,kernel,time_us,source,spread_pct,reps,passes,copy_done_us,compute_done_us,copy_gbps,"
                  "ratio_target,copy_ref_us,compute_ref_us,pass_us,check\n");
  for (const Cfg& g : cfgs) {
    if (g.pass_us.empty()) continue;
    double t = mean(g.pass_us), tc = mean(g.pass_copy_us), tp = mean(g.pass_comp_us);
    std::string pus;
    for (size_t i = 0; i < g.pass_us.size(); ++i) pus += (i ? ";" : "") + bench::fmt(g.pass_us[i], 2);
    char kname[64];
    std::snprintf(kname, sizeof kname, "sm_split_kernel<%d>", g.chains);
    std::fprintf(f, "sm_split,h200,2,bf16,%d,%lld,%lld,%d,%d,%d,m16n8k16,%d,%d,%s,%s,%s,%s,%d,%zu,%s,%s,%s,%s,%s,%s,%s,%s\n",
                 g.c, g.bytes, g.chunk, g.tiles, g.mpt, g.chains, g.threads, g.steal, bench::csv_field(kname).c_str(),
                 bench::fmt(t, 3).c_str(), bench::csv_field(kSource).c_str(),
                 bench::fmt(bench::spread_pct(g.pass_us), 2).c_str(), g.reps, g.pass_us.size(),
                 bench::fmt(tc, 2).c_str(), bench::fmt(tp, 2).c_str(),
                 g.bytes > 0 ? bench::fmt(g.bytes / (tc * 1e-6) / 1e9, 1).c_str() : "",
                 bench::fmt(g.ratio, 2).c_str(), bench::fmt(g.copy_ref_us, 2).c_str(),
                 bench::fmt(g.compute_ref_us, 2).c_str(), bench::csv_field(pus).c_str(), g.check.c_str());
  }
  std::fclose(f);
}

int round_sig2(double v) {
  if (v < 1) return 1;
  double p = std::pow(10.0, std::floor(std::log10(v)) - 1);
  return (int)std::max(1.0, std::round(v / p) * p);
}

}  // namespace
