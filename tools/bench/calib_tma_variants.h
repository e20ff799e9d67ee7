// calib_tma_variants.h (part of calib_tma): the configurations calib_tma checks and times,
// in the order of its CSV rows (calib_tma.cu's header comment says what each variant measures).
// Config fields in order: variant, tiled, ctas, stages (all rings together), box_rows, pitch,
// promo, per_cta_bytes, min_smem, expect_per_sm, then the optional ones (see calib_tma_run.h).
#pragma once

#include "calib_tma_run.h"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

namespace bench::calib_tma {

constexpr int P16 = 16384, P8 = 8192;  // row pitches: 8192 x 131072 or 4096 x 262144 bf16
constexpr long long MiB = 1ll << 20;
constexpr int ONE = 120 << 10;  // > half the SM's smem: one CTA per SM
constexpr int TWO = 80 << 10;   // > a third: at most two per SM
constexpr int kBoxRows[3] = {64, 128, 256};  // the GEMM A-tile boxes: 8, 16, 32 KiB

// Stage counts 1 ... 16 that fit in shared memory with boxes of box_rows x 128 B, and the most that fit.
inline std::vector<int> stage_list(const Ctx& c, int box_rows) {
  std::vector<int> v;
  const int smax = max_stages(c, box_rows * 128);
  for (int s : {1, 2, 3, 4, 6, 8, 12, 16})
    if (s <= smax) v.push_back(s);
  if (v.back() != smax) v.push_back(smax);
  return v;
}

// The stage counts ss, each capped at the most that fit, without repeats.
inline std::vector<int> capped(const Ctx& c, int box_rows, std::initializer_list<int> ss) {
  std::vector<int> v;
  const int smax = max_stages(c, box_rows * 128);
  for (int s : ss) {
    int t = std::min(s, smax);
    if (std::find(v.begin(), v.end(), t) == v.end()) v.push_back(t);
  }
  return v;
}

// CTA counts of the main sweep: those of 1 ... 132 the GPU has SMs for, and its SM count.
inline std::vector<int> main_cta_counts(int nsm) {
  std::vector<int> main_ctas;
  for (int n : {1, 8, 16, 33, 48, 66, 96, 112, 132})
    if (n <= nsm) main_ctas.push_back(n);
  if (main_ctas.back() != nsm) main_ctas.push_back(nsm);
  return main_ctas;
}

// Correctness, once per kind of request: the summed mismatches of `check` (0: all passed).
inline long long run_checks(Ctx& c) {
  const int nsm = c.nsm;
  long long bad = 0;
  bad += check(c, {"tiled", true, nsm, 4, 64, P16, true, 1 * MiB, ONE, 1});
  bad += check(c, {"tiled", true, nsm, 4, 256, P8, true, 2 * MiB, ONE, 1});
  bad += check(c, {"tiled", true, 2 * nsm, 8, 64, P16, true, 1 * MiB, TWO, 2});
  bad += check(c, {"contig", false, nsm, 4, 128, P16, true, 1 * MiB, ONE, 1});
  bad += check(c, {"tiled_p2", true, nsm, 8, 64, P16, true, 1 * MiB, ONE, 1, 0, 2});
  bad += check(c, {"contig_p4", false, nsm, 16, 64, P16, true, 1 * MiB, ONE, 1, 0, 4});
  bad += check(c, {"tiled_divloop", true, nsm, 4, 64, P16, true, 1 * MiB, ONE, 1, 0, 1, true});
  bad += check(c, {"contig_l2", false, nsm, 8, 64, P16, true, 1 * MiB, ONE, 1, 0, 1, false, 0, 128 * 1024});
  bad += check(c, {"pitch_hbm_8016", true, nsm, 4, 64, 8016, true, 1 * MiB, ONE, 1});
  {
    Config l2{"pitch_l2_8080", true, nsm, 4, 128, 8080, true, 1 * MiB, ONE, 1};
    l2.row_groups = 4;
    bad += check(c, l2);
  }
  return bad;
}

// (a) tiled over the CTA counts and stage counts, (b) contiguous, the 8 KiB pitch, no L2
// promotion, and two CTAs per SM.
inline void add_gemm_box_sweeps(const Ctx& c, std::vector<Config>& cfgs) {
  const int nsm = c.nsm;
  const std::vector<int> main_ctas = main_cta_counts(nsm);
  // (a) tiled, the full sweep
  for (int R : kBoxRows)
    for (int n : main_ctas)
      for (int s : stage_list(c, R)) cfgs.push_back({"tiled", true, n, s, R, P16, true, 8 * MiB, ONE, 1});
  // (b) contiguous, same bytes per request
  for (int R : kBoxRows)
    for (int n : {1, 33, 66, 96, nsm})
      for (int s : stage_list(c, R)) cfgs.push_back({"contig", false, n, s, R, P16, true, 8 * MiB, ONE, 1});
  // pitch 8 KiB and no L2 promotion, a subset
  for (int R : kBoxRows)
    for (int n : {1, 66, 96, nsm})
      for (int s : capped(c, R, {4, 8, 16, 64})) cfgs.push_back({"tiled_pitch8k", true, n, s, R, P8, true, 8 * MiB, ONE, 1});
  for (int R : kBoxRows)
    for (int n : {1, 66, nsm})
      for (int s : capped(c, R, {4, 16, 64})) cfgs.push_back({"tiled_nopromo", true, n, s, R, P16, false, 8 * MiB, ONE, 1});
  // two CTAs per SM, 8 KiB boxes
  for (int s : {4, 8, 12}) {
    cfgs.push_back({"tiled_2cta", true, 2 * nsm, s, 64, P16, true, 4 * MiB, TWO, 2});
    cfgs.push_back({"contig_2cta", false, 2 * nsm, s, 64, P16, true, 4 * MiB, TWO, 2});
  }
}

// Short kernels, and the L2 flush that leaves clean lines.
inline void add_short_kernels(const Ctx& c, std::vector<Config>& cfgs) {
  const int nsm = c.nsm;
  // short kernels (bytes per CTA of real skinny GEMMs), 8 KiB pitch and boxes; also with
  // an L2 left clean by the flush (a dirty L2 is written back while the kernel reads)
  for (int fl : {0, 1})
    for (long long kb : {128, 256, 512, 1024, 2048, 4096, 8192})
      for (int n : {96, nsm})
        for (int s : {8, 16}) {
          cfgs.push_back({fl ? "tiled_len_rdflush" : "tiled_len", true, n, s, 64, P8, true, kb * 1024, ONE, 1, fl});
          cfgs.push_back({fl ? "contig_len_rdflush" : "contig_len", false, n, s, 64, P8, true, kb * 1024, ONE, 1, fl});
        }
  for (int s : {4, 16}) {
    cfgs.push_back({"tiled_rdflush", true, nsm, s, 64, P16, true, 8 * MiB, ONE, 1, 1});
    cfgs.push_back({"contig_rdflush", false, nsm, s, 64, P16, true, 8 * MiB, ONE, 1, 1});
  }
}

// Request sizes other than the GEMM boxes.
inline void add_request_sizes(const Ctx& c, std::vector<Config>& cfgs) {
  const int nsm = c.nsm;
  // request size beyond the three GEMM boxes: 2 and 4 KiB (16/32 rows), and 64/128 KiB 1D
  for (int R : {16, 32})
    for (int n : {1, 66, nsm})
      for (int st : capped(c, R, {1, 2, 4, 8, 16, 32, 64})) {
        cfgs.push_back({"tiled", true, n, st, R, P16, true, 8 * MiB, ONE, 1});
        cfgs.push_back({"contig", false, n, st, R, P16, true, 8 * MiB, ONE, 1});
      }
  for (int R : {512, 1024})
    for (int n : {1, 66, nsm})
      for (int st : capped(c, R, {1, 2, 3})) cfgs.push_back({"contig", false, n, st, R, P16, true, 8 * MiB, ONE, 1});
}

// The issuing thread's own cost (div/mod producer loop) and several rings per CTA.
inline void add_producer_variants(const Ctx& c, std::vector<Config>& cfgs) {
  const int nsm = c.nsm;
  // the first revision's producer loop (division and modulo by run-time values for stage,
  // phase and coordinates on every request): what the issuing thread's own cost does
  for (int R : kBoxRows)
    for (int n : {1, 66, 96, nsm})
      for (int st : capped(c, R, {4, 8, 16, 64})) {
        cfgs.push_back({"tiled_divloop", true, n, st, R, P16, true, 8 * MiB, ONE, 1, 0, 1, true});
        cfgs.push_back({"contig_divloop", false, n, st, R, P16, true, 8 * MiB, ONE, 1, 0, 1, true});
      }
  // several independent rings (producer thread + consumer warp each) in one CTA: is the
  // per-SM limit the copy engine's or the single producer/consumer ring's?
  for (int P : {2, 4})
    for (int n : {1, 66, 96, nsm}) {
      for (int st : {4, 8, 16, 28}) {
        if (st % P || st / P < 1) continue;
        cfgs.push_back({P == 2 ? "tiled_p2" : "tiled_p4", true, n, st, 64, P16, true, 8 * MiB, ONE, 1, 0, P});
        cfgs.push_back({P == 2 ? "contig_p2" : "contig_p4", false, n, st, 64, P16, true, 8 * MiB, ONE, 1, 0, P});
      }
      for (int st : {8, 12}) {
        cfgs.push_back({P == 2 ? "tiled_p2" : "tiled_p4", true, n, st, 128, P16, true, 8 * MiB, ONE, 1, 0, P});
        cfgs.push_back({P == 2 ? "tiled_p2" : "tiled_p4", true, n, st / 2, 256, P16, true, 8 * MiB, ONE, 1, 0, P});
      }
    }
}

// Reads that hit L2: each CTA its own region, or regions shared by several SMs.
inline void add_l2_resident(const Ctx& c, std::vector<Config>& cfgs) {
  const int nsm = c.nsm;
  // L2-resident bulk copies: per-CTA regions of 64-256 KiB re-read up to 8 MiB per CTA
  for (long long wrap : {64, 128, 256})
    for (int n : {66, nsm})
      for (int R : {64, 128, 256})
        for (int P : {1, 2})
          for (int st : {4, 8})
            cfgs.push_back({P == 1 ? "contig_l2" : "contig_l2_p2", false, n, st * P, R, P16, true, 8 * MiB, ONE, 1, 0, P,
                            false, 0, wrap * 1024});
  // L2-resident reads shared by several SMs, as a GEMM's CTAs share A and B tiles: G regions of
  // 128 KiB, CTA c re-reads region c % G (G = 132: every CTA its own, as contig_l2)
  for (int g : {1, 2, 4, 8, 16, 33, 66, nsm})
    for (int R : {64, 128})
      cfgs.push_back({"contig_l2_share" + std::to_string(g), false, nsm, 8, R, P16, true, 8 * MiB, ONE, 1, 0, 1, false, 0, 128 * 1024, 0, g});
  // smaller regions (16/32 KiB): separates the number of SMs sharing a region from the footprint
  for (long long kib : {16, 32})
    for (int g : {8, 16, 33, nsm})
      cfgs.push_back({"contig_l2_share" + std::to_string(g) + "_r" + std::to_string(kib), false, nsm, 8, 128, P16, true,
                      8 * MiB, ONE, 1, 0, 1, false, 0, kib * 1024, 0, g});
}

// Tiny kernels, and boxes wholly outside the tensor (zero-filled) alone and beside in-range ones.
inline void add_tiny_and_oob(const Ctx& c, std::vector<Config>& cfgs) {
  const int nsm = c.nsm;
  // tiny kernels: one to a few requests per CTA, to expose a TMA kernel's fixed costs (tensor-map
  // fetch, barrier set-up, the first load's latency) after an L2 flush
  for (long long kb : {8, 16, 32, 64, 128})
    for (int n : {1, nsm}) {
      cfgs.push_back({"tiled_tiny", true, n, 4, 64, P8, true, kb * 1024, ONE, 1});
      cfgs.push_back({"contig_tiny", false, n, 4, 64, P8, true, kb * 1024, ONE, 1});
    }
  // wholly out-of-range boxes (zero fill) against the same in-range stream, 66 and 132 CTAs
  for (int n : {66, nsm})
    for (int R : {64, 128})
      for (int st : {4, 8}) {
        cfgs.push_back({"tiled_oob", true, n, st, R, P16, true, 8 * MiB, ONE, 1, 0, 1, false, 0, 0, 64});
        cfgs.push_back({"tiled_oobref", true, n, st, R, P16, true, 8 * MiB, ONE, 1});
      }
  // k CTAs streaming from HBM beside 132 - k loading zero-filled boxes, and the k CTAs alone
  for (int k : {33, 66, 99})
    for (int st : {4, 8}) {
      cfgs.push_back({"tiled_oobmix_" + std::to_string(k), true, nsm, st, 128, P16, true, 8 * MiB, ONE, 1, 0, 1, false, 0,
                      0, 0, 0, k});
      cfgs.push_back({"tiled_oobmixref_" + std::to_string(k), true, k, st, 128, P16, true, 8 * MiB, ONE, 1});
    }
}

// Row pitches that are not a multiple of 128 bytes, from HBM and L2.
inline void add_pitches(const Ctx& c, std::vector<Config>& cfgs) {
  const int nsm = c.nsm;
  // row pitches that are not a multiple of 128 bytes (GEMM operands with K = 1000, 3000, 5000),
  // from HBM (each CTA its own panels) and L2-resident (4 groups of CTAs sharing 8 MiB each)
  for (int P : {8192, 8000, 8064, 8032, 8096, 8016, 8048, 8080, 8176})
    for (int R : {64, 128})
      for (int st : {4, 8}) {
        cfgs.push_back({"pitch_hbm_" + std::to_string(P), true, nsm, st, R, P, true, 8 * MiB, ONE, 1});
        Config l2{"pitch_l2_" + std::to_string(P), true, nsm, st, R, P, true, 8 * MiB, ONE, 1};
        l2.row_groups = 4;
        cfgs.push_back(l2);
      }
  // fewer SMs reading: is the misaligned ceiling the SM's or the L2's?
  for (int P : {8192, 8096, 8016})
    for (int n : {16, 33, 66}) {
      Config l2{"pitch_l2_" + std::to_string(P), true, n, 8, 128, P, true, 8 * MiB, ONE, 1};
      l2.row_groups = 4;
      cfgs.push_back(l2);
    }
  // bytes in flight at 16 SMs: a latency (throughput grows with the stages) or a ceiling (flat)?
  for (int P : {8192, 8096, 8016})
    for (int st : {2, 4, 12}) {
      Config l2{"pitch_l2_" + std::to_string(P), true, 16, st, 128, P, true, 8 * MiB, ONE, 1};
      l2.row_groups = 4;
      cfgs.push_back(l2);
    }
}

// Every timed configuration, in CSV row order.
inline std::vector<Config> sweep_configs(const Ctx& c) {
  std::vector<Config> cfgs;
  add_gemm_box_sweeps(c, cfgs);
  add_short_kernels(c, cfgs);
  add_request_sizes(c, cfgs);
  add_producer_variants(c, cfgs);
  add_l2_resident(c, cfgs);
  add_tiny_and_oob(c, cfgs);
  add_pitches(c, cfgs);
  return cfgs;
}

// Keeps only the configurations whose variant name starts with `only`.
inline void keep_prefix(std::vector<Config>& cfgs, const std::string& only) {
  std::vector<Config> keep;
  for (const auto& cf : cfgs)
    if (cf.variant.rfind(only, 0) == 0) keep.push_back(cf);
  cfgs.swap(keep);
}

}  // namespace bench::calib_tma
