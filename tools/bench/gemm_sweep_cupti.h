// gemm_sweep_cupti.h (part of gemm_sweep, included by gemm_sweep.cu only): CUPTI activity
// records of five extra calls per plan, giving the kernels of one call in launch order with
// their grid / block / cluster shapes and the gaps between consecutive kernels. Built with
// TGSIM_NO_CUPTI, collect_kernel_names only reports that names are not recorded.
#pragma once

#include "common.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "cupti_kernels.h"
#include "gemm_sweep_plan.h"

struct KRec {
  uint64_t start, end;
  std::string name, grid, block, cluster;
};
static std::vector<KRec> g_krecs;
static std::mutex g_kmu;

#ifndef TGSIM_NO_CUPTI
static void keep_kernel_record(const bench::KernelActivity& k) {
  char g[64], b[64], c[64];
  std::snprintf(g, sizeof g, "%dx%dx%d", k.gridX, k.gridY, k.gridZ);
  std::snprintf(b, sizeof b, "%dx%dx%d", k.blockX, k.blockY, k.blockZ);
  std::snprintf(c, sizeof c, "%ux%ux%u", k.clusterX, k.clusterY, k.clusterZ);
  std::lock_guard<std::mutex> lk(g_kmu);
  g_krecs.push_back({k.start, k.end, bench::clean_kernel_name(k.name), g, b, c});
}
#define CKCUPTI(call)                                                                       \
  do {                                                                                      \
    CUptiResult r_ = (call);                                                                \
    if (r_ != CUPTI_SUCCESS) {                                                              \
      const char* m_ = nullptr;                                                             \
      cuptiGetResultString(r_, &m_);                                                        \
      std::fprintf(stderr, "CUPTI error %s at %s:%d\n", m_ ? m_ : "?", __FILE__, __LINE__); \
      return false;                                                                         \
    }                                                                                       \
  } while (0)

static bool collect_kernel_names(std::vector<Plan>& plans, void* A, void* B, void* C) {
  if (!bench::register_kernel_records(keep_kernel_record)) {
    std::fprintf(stderr, "CUPTI: activity callbacks not registered\n");
    return false;
  }
  for (auto& p : plans) {
    if (!p.ok) continue;
    {
      std::lock_guard<std::mutex> lk(g_kmu);
      g_krecs.clear();
    }
    CKCUPTI(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    constexpr int kCalls = 5;  // the GEMM's kernels per call, and their gaps, from 5 calls
    for (int c = 0; c < kCalls; ++c) {
      run_plan(p, A, B, C, 0);
      CK(cudaDeviceSynchronize());
    }
    CKCUPTI(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    CKCUPTI(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    std::lock_guard<std::mutex> lk(g_kmu);
    std::sort(g_krecs.begin(), g_krecs.end(), [](const KRec& a, const KRec& b) { return a.start < b.start; });
    p.kernels = p.grids = p.blocks = p.clusters = p.cupti_gap_us = "";
    const size_t per_call = g_krecs.size() % kCalls == 0 ? g_krecs.size() / kCalls : g_krecs.size();
    for (size_t i = 1; i < per_call && per_call < g_krecs.size(); ++i) {
      std::vector<double> gaps;
      for (size_t c = 0; c < kCalls; ++c)
        gaps.push_back((double(g_krecs[c * per_call + i].start) - double(g_krecs[c * per_call + i - 1].end)) * 1e-3);
      p.cupti_gap_us += (i > 1 ? ";" : "") + bench::fmt(bench::median(gaps), 3);
    }
    for (size_t i = 0; i < per_call; ++i) {
      const char* sep = i ? ";" : "";
      p.kernels += sep + g_krecs[i].name;
      p.grids += sep + g_krecs[i].grid;
      p.blocks += sep + g_krecs[i].block;
      p.clusters += sep + g_krecs[i].cluster;
    }
    if (g_krecs.empty()) std::printf("  CUPTI saw no kernel for %s %ld %ld %ld\n", DTS[p.dt].name, p.M, p.N, p.K);
  }
  return true;
}
#else
static bool collect_kernel_names(std::vector<Plan>&, void*, void*, void*) {
  std::printf("built without CUPTI: kernel names not recorded\n");
  return false;
}
#endif
