// calib_nvlink_timing.h (part of calib_nvlink, included by calib_nvlink.cu only): the two
// GPUs' buffers and events (Ctx), one flushed and event-timed run and the median of reps
// (time_once, time_median), the both-directions-at-once wrapper (bidir), a test group run
// g_passes times over and written as calibration_nvlink.csv rows (run_group), and the
// poison / byte-compare correctness helpers. Kept in the unnamed namespace as when it was in
// calib_nvlink.cu.
#pragma once

#include "multigpu.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

namespace {

constexpr size_t kBuf = 1ull << 30;  // per buffer
int g_passes = 2;
bool g_quick = false;

// ---- timing ------------------------------------------------------------------------------
struct Ctx {
  bench::PeerPair pp;
  void* src[2] = {nullptr, nullptr};
  void* dst[2] = {nullptr, nullptr};
  cudaEvent_t e0 = nullptr, e1 = nullptr;   // timing events on GPU 0
  cudaEvent_t done1 = nullptr;              // GPU 1 -> GPU 0 dependency
};

// Runs enqueue() between events on GPU 0's stream after flushing both L2s. ms per run.
double time_once(Ctx& c, const std::function<void()>& enqueue) {
  c.pp.flush_both();
  CK(cudaEventRecord(c.e0, c.pp.s[0]));
  enqueue();
  CK(cudaEventRecord(c.e1, c.pp.s[0]));
  CK(cudaEventSynchronize(c.e1));
  CK(cudaStreamSynchronize(c.pp.s[1]));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, c.e0, c.e1));
  return ms;
}
// median of reps (ms) after one warm-up; reps from the warm-up time
double time_median(Ctx& c, const std::function<void()>& enqueue, int* reps_out) {
  double w = time_once(c, enqueue);
  int reps = (int)std::min(40.0, std::max(5.0, 30.0 / std::max(w, 1e-3)));
  if (g_quick) reps = 3;
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) t.push_back(time_once(c, enqueue));
  if (reps_out) *reps_out = reps;
  return bench::median(t);
}

// bidirectional: s1 starts when s0 reaches the start event, s0's stop waits for s1
std::function<void()> bidir(Ctx& c, std::function<void(cudaStream_t)> on0, std::function<void(cudaStream_t)> on1) {
  return [&c, on0, on1]() {
    CK(cudaSetDevice(1));
    CK(cudaStreamWaitEvent(c.pp.s[1], c.e0, 0));
    on1(c.pp.s[1]);
    CK(cudaEventRecord(c.done1, c.pp.s[1]));
    CK(cudaSetDevice(0));
    on0(c.pp.s[0]);
    CK(cudaStreamWaitEvent(c.pp.s[0], c.done1, 0));
  };
}

struct Cfg {
  bench::NvCsv::Row row;
  std::function<void()> enqueue;
  double payload_bytes = 0;  // bytes counted for gbps
  std::vector<double> pass_ms;
  int reps = 0;
};

// runs the group's configs g_passes times over, then writes the rows
void run_group(Ctx& c, bench::NvCsv& csv, std::vector<Cfg>& cfgs) {
  for (int p = 0; p < g_passes; ++p)
    for (auto& g : cfgs) g.pass_ms.push_back(time_median(c, g.enqueue, &g.reps));
  for (auto& g : cfgs) {
    double ms = 0;
    for (double v : g.pass_ms) ms += v;
    ms /= g.pass_ms.size();  // mean of pass medians (= their median for 2 passes)
    g.row.time_us = ms * 1e3;
    g.row.gbps = g.payload_bytes / (ms * 1e-3) / 1e9;
    g.row.spread_pct = bench::spread_pct(g.pass_ms);
    g.row.reps = g.reps;
    g.row.passes = (int)g.pass_ms.size();
    csv.row(g.row);
  }
}

bool check_bytes(const void* dst, int ddev, const void* src, int sdev, size_t bytes, const char* what) {
  const size_t w = 4096;
  size_t offs[3] = {0, (bytes / 2) & ~(size_t)15, bytes - w};
  std::vector<unsigned char> a(w), b(w);
  bool ok = true;
  for (size_t o : offs) {
    CK(cudaSetDevice(ddev));
    CK(cudaMemcpy(a.data(), (const char*)dst + o, w, cudaMemcpyDeviceToHost));
    CK(cudaSetDevice(sdev));
    CK(cudaMemcpy(b.data(), (const char*)src + o, w, cudaMemcpyDeviceToHost));
    if (std::memcmp(a.data(), b.data(), w) != 0) ok = false;
  }
  CK(cudaSetDevice(0));
  std::printf("CHECK %-28s %s\n", what, ok ? "PASS" : "FAIL");
  return ok;
}
void poison(Ctx& c, int d) {
  CK(cudaSetDevice(d));
  CK(cudaMemset(c.dst[d], 0xA5, kBuf));
  CK(cudaDeviceSynchronize());
  CK(cudaSetDevice(0));
}

}  // namespace
