// calib_tma_report.h (part of calib_tma): what calib_tma prints and writes for each timed
// configuration (a CSV row with its method string, a stdout row) and the condensed tables after
// the sweep.
#pragma once

#include "common.h"
#include "calib_tma_run.h"
#include "calib_tma_variants.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

namespace bench::calib_tma {

// Each row's figures for the condensed tables, keyed variant/ctas/stages/box_rows/KiB per CTA.
struct SweepTables {
  std::map<std::string, double> per_sm, total;        // GB/s per SM and in all
  std::map<std::string, std::array<double, 3>> ends;  // us: first CTA end, median CTA end, span
};

// The CSV header and the header of the stdout table.
inline void print_headers(FILE* f) {
  std::fprintf(f, "variant,ctas,stages,box_rows,box_bytes,bytes_in_flight_per_sm,gbps_total,gbps_per_sm,time_us,method\n");
  std::fflush(f);
  std::printf("%-14s %5s %3s %4s %6s %9s %9s %8s %9s %9s %8s %8s %6s %5s\n", "variant", "ctas", "S", "R", "box",
              "inflight/SM", "GB/s", "GB/s/SM", "time_us", "span_us", "end1st", "endmed", "spr%", "SMs");
}

// The `method` column: what was read and how, how it was timed, and the in-kernel times.
inline std::string method_text(const Config& cf, const Result& r, long long box_bytes, int reps, double sm_mhz) {
  const std::string share = cf.region_groups > 0
                                ? "CTA c reading region c mod " + std::to_string(cf.region_groups) +
                                      " (CTAs of one region share it)"
                            : cf.row_groups > 0
                                ? "CTA c reading the panels of CTA c mod " + std::to_string(cf.row_groups) +
                                      " (L2-resident after their first read)"
                                : std::string("each CTA its own disjoint region");
  const std::string view = cf.pitch == P16  ? std::string("8192 x 131072 bf16; row pitch 16384 B; walking K panel by panel")
                           : cf.pitch == P8 ? std::string("4096 x 262144 bf16; row pitch 8192 B; walking K panel by panel")
                                            : "row pitch " + std::to_string(cf.pitch) + " B (" +
                                                  std::to_string(cf.pitch % 128) + " B past a 128-byte line per row), " +
                                                  std::to_string(cf.pitch / 128 * 64) +
                                                  " columns read per row; walking K panel by panel";
  char mix[200] = "";
  if (std::isfinite(r.end_in_us))
    std::snprintf(mix, sizeof mix,
                  "; CTAs 0..%d read in range (HBM): median end %.2f us (%.1f GB/s for their bytes); the other %d "
                  "load zero-filled boxes only: median end %.2f us",
                  cf.in_range_ctas - 1, r.end_in_us, (double)r.bytes / cf.ctas * cf.in_range_ctas / (r.end_in_us * 1e3),
                  cf.ctas - cf.in_range_ctas, r.end_out_us);
  char m[1400];
  std::snprintf(m, sizeof m,
                "%s of %lld B per request (%s); %lld B per CTA, %s of a 2 GiB random bf16 "
                "buffer (%s); %d ring(s) per CTA of 1 producer thread issuing + 1 consumer warp releasing each stage "
                "(no compute); producer loop %s; %d stages per CTA in all; dyn smem %d B; %d CTAs on %d distinct SMs (max %d per SM); L2 flushed by a 256 MiB memset%s "
                "before each rep; CUDA events around the kernel; median of %d reps after 2 warm-ups (spread %.1f%%); "
                "in-kernel span first CTA start to last CTA end (globaltimer) %.2f us; first CTA done at %.2f us; median CTA "
                "done at %.2f us; SM clock after %.0f MHz%s",
                cf.tiled ? "2D TMA cp.async.bulk.tensor.2d box 64 cols x R rows" : "1D cp.async.bulk", box_bytes,
                cf.tiled ? (cf.promo ? "128B swizzle; L2 promotion 256B" : "128B swizzle; L2 promotion none")
                         : "contiguous",
                r.bytes / cf.ctas, share.c_str(),
                cf.tiled ? view.c_str()
                         : (cf.wrap_bytes ? "a region re-read (L2-resident after the first pass); see variant notes"
                                          : "read sequentially"),
                cf.producers,
                cf.divloop ? "recomputing stage/phase/coordinates by div and mod per request"
                           : "advancing stage/phase/coordinates incrementally (CUTLASS-style)",
                cf.stages, r.smem, cf.ctas, r.sms, r.max_per_sm,
                cf.flush ? " then a 256 MiB read (L2 left holding clean lines)" : " (L2 left holding dirty lines)", reps, r.spread, r.span_us, r.end_first_us, r.end_med_us, sm_mhz, mix);
  return m;
}

// One timed configuration: its CSV row, its stdout row and its figures for the tables.
inline void report_row(FILE* f, const Config& cf, const Result& r, int reps, const Nvml& nvml, SweepTables& t) {
  const long long box_bytes = cf.box_bytes_1d ? cf.box_bytes_1d : cf.box_rows * 128ll;
  const double gbps = r.bytes / (r.ms * 1e-3) / 1e9;
  const double gbps_sm = gbps / r.sms;
  const int per = (cf.ctas + r.sms - 1) / r.sms;
  const long long inflight = (long long)cf.stages * box_bytes * per;
  char kd[128];
  std::snprintf(kd, sizeof kd, "%s/%d/%d/%d/%lld", cf.variant.c_str(), cf.ctas, cf.stages, cf.box_rows,
                cf.per_cta_bytes >> 10);
  t.ends[kd] = {r.end_first_us, r.end_med_us, r.span_us};
  const std::string m = method_text(cf, r, box_bytes, reps, nvml.sm_mhz());
  std::fprintf(f, "%s,%d,%d,%d,%lld,%lld,%s,%s,%s,%s\n", cf.variant.c_str(), cf.ctas, cf.stages, cf.box_rows, box_bytes,
               inflight, fmt(gbps, 1).c_str(), fmt(gbps_sm, 2).c_str(), fmt(r.ms * 1e3, 2).c_str(),
               csv_field(m).c_str());
  std::fflush(f);
  std::printf("%-14s %5d %3d %4d %6lld %9lld %9.1f %8.2f %9.2f %9.2f %8.2f %8.2f %6.1f %5d%s\n", cf.variant.c_str(),
              cf.ctas, cf.stages, cf.box_rows, box_bytes, inflight, gbps, gbps_sm, r.ms * 1e3, r.span_us,
              r.end_first_us, r.end_med_us, r.spread, r.sms,
              r.max_per_sm != per ? "  (uneven CTAs per SM!)" : "");
  char k[96];
  std::snprintf(k, sizeof k, "%s/%d/%d/%d/%lld", cf.variant.c_str(), cf.ctas, cf.stages, cf.box_rows,
                cf.per_cta_bytes >> 10);
  t.per_sm[k] = gbps_sm;
  t.total[k] = gbps;
}

// A table cell: the figure of one row ("-" if it did not run), 1 decimal.
inline std::string cell(const std::map<std::string, double>& mp, const std::string& v, int n, int s, int R,
                        long long kib = 8192) {
  char k[96];
  std::snprintf(k, sizeof k, "%s/%d/%d/%d/%lld", v.c_str(), n, s, R, kib);
  auto it = mp.find(k);
  return it == mp.end() ? std::string("-") : fmt(it->second, 1);
}

// Bandwidth by CTAs and stages, by request size, 2 CTAs per SM, clean L2, and short kernels.
inline void print_sweep_tables(const Ctx& c, const SweepTables& t) {
  const auto& per_sm = t.per_sm;
  const auto& total = t.total;
  const int nsm = c.nsm;
  const std::vector<int> main_ctas = main_cta_counts(nsm);
  for (const char* v : {"tiled", "contig"}) {
    std::printf("\n%s, 8 KiB requests: GB/s per SM (rows: CTAs, cols: stages)\n%6s", v, "ctas");
    auto sl = stage_list(c, 64);
    for (int s : sl) std::printf(" %7d", s);
    std::printf("\n");
    for (int n : main_ctas) {
      if (std::string(v) == "contig" && n != 1 && n != 33 && n != 66 && n != 96 && n != nsm) continue;
      std::printf("%6d", n);
      for (int s : sl) std::printf(" %7s", cell(per_sm, v, n, s, 64).c_str());
      std::printf("\n");
    }
  }
  std::printf("\nTotal GB/s at %d CTAs (1 per SM), by request size and stages\n", nsm);
  std::printf("%-14s %6s", "variant", "box");
  for (int s : {1, 2, 4, 8, 16}) std::printf(" %7d", s);
  std::printf(" %7s\n", "Smax");
  for (const char* v : {"tiled", "contig", "tiled_pitch8k", "tiled_nopromo"})
    for (int R : kBoxRows) {
      std::printf("%-14s %5dK", v, R / 8);
      for (int s : {1, 2, 4, 8, 16}) std::printf(" %7s", cell(total, v, nsm, s, R).c_str());
      std::printf(" %7s\n", cell(total, v, nsm, max_stages(c, R * 128), R).c_str());
    }
  std::printf("\n2 CTAs/SM (%d CTAs, 8 KiB): ", 2 * nsm);
  for (int s : {4, 8, 12})
    std::printf("S=%d tiled %s contig %s GB/s; ", s, cell(total, "tiled_2cta", 2 * nsm, s, 64, 4096).c_str(),
                cell(total, "contig_2cta", 2 * nsm, s, 64, 4096).c_str());
  std::printf("\n%d CTAs, 8 KiB, L2 flush by memset then read (clean L2): ", nsm);
  for (int s : {4, 16})
    std::printf("S=%d tiled %s contig %s GB/s; ", s, cell(total, "tiled_rdflush", nsm, s, 64).c_str(),
                cell(total, "contig_rdflush", nsm, s, 64).c_str());
  std::printf("\n\nShort kernels (8 KiB pitch and boxes): total GB/s (events) by KiB per CTA\n%-19s %4s %3s", "variant",
              "ctas", "S");
  const long long kibs[7] = {128, 256, 512, 1024, 2048, 4096, 8192};
  for (long long kb : kibs) std::printf(" %7lld", kb);
  std::printf("\n");
  for (const char* v : {"tiled_len", "contig_len", "tiled_len_rdflush", "contig_len_rdflush"})
    for (int n : {96, nsm})
      for (int s : {8, 16}) {
        std::printf("%-19s %4d %3d", v, n, s);
        for (long long kb : kibs) std::printf(" %7s", cell(total, v, n, s, 64, kb).c_str());
        std::printf("\n");
      }
}

// One CTA by request size, the producer loop and rings per CTA, and CTA end times.
inline void print_ring_tables(const Ctx& c, const SweepTables& t) {
  const auto& per_sm = t.per_sm;
  const auto& total = t.total;
  const auto& ends = t.ends;
  const int nsm = c.nsm;
  std::printf("\n\nOne CTA: GB/s by request size (rows: bytes per request; cols: stages) and ns per request at the best\n");
  std::printf("%-8s %7s", "variant", "bytes");
  const int sts[10] = {1, 2, 3, 4, 8, 16, 28, 32, 64, 0};
  for (int st : sts) if (st) std::printf(" %7d", st);
  std::printf(" %9s\n", "ns/req");
  for (const char* v : {"tiled", "contig"})
    for (int R : {16, 32, 64, 128, 256, 512, 1024}) {
      if (std::string(v) == "tiled" && R > 256) continue;
      std::printf("%-8s %7d", v, R * 128);
      double best = 0;
      for (int st : sts) {
        if (!st) continue;
        std::string g = cell(total, v, 1, st, R);
        std::printf(" %7s", g.c_str());
        if (g != "-") best = std::max(best, std::atof(g.c_str()));
      }
      for (int st : {6, 7, 12, 14})  // Smax of the big boxes
        { std::string g = cell(total, v, 1, st, R); if (g != "-") best = std::max(best, std::atof(g.c_str())); }
      std::printf(" %9s\n", best > 0 ? fmt(R * 128.0 / best, 1).c_str() : "-");
    }
  std::printf("\nProducer loop and rings per CTA, 8 KiB requests: GB/s per SM (stages = all rings together)\n%-14s %5s", "variant", "ctas");
  for (int st : {4, 8, 16, 28}) std::printf(" %7d", st);
  std::printf("\n");
  for (const char* v : {"tiled", "tiled_divloop", "tiled_p2", "tiled_p4", "contig", "contig_divloop", "contig_p2", "contig_p4"})
    for (int n : {1, 66, 96, nsm}) {
      std::printf("%-14s %5d", v, n);
      for (int st : {4, 8, 16, 28}) std::printf(" %7s", cell(per_sm, v, n, st, 64).c_str());
      std::printf("\n");
    }
  std::printf("\nSeveral rings, 1 CTA, 16/32 KiB: ");
  for (const char* v : {"tiled", "tiled_p2", "tiled_p4"})
    std::printf("%s 16K S8 %s S12 %s, 32K S4 %s S6 %s; ", v, cell(total, v, 1, 8, 128).c_str(),
                cell(total, v, 1, 12, 128).c_str(), cell(total, v, 1, 4, 256).c_str(), cell(total, v, 1, 6, 256).c_str());
  std::printf("\n\nCTA end times (us after the first CTA start: first / median / last), 8 KiB, 8 MiB per CTA\n");
  for (const char* v : {"tiled", "contig"})
    for (int n : {66, 96, nsm})
      for (int st : {4, 8, 16, 28}) {
        char k[128];
        std::snprintf(k, sizeof k, "%s/%d/%d/%d/%d", v, n, st, 64, 8192);
        auto it = ends.find(k);
        if (it == ends.end()) continue;
        std::printf("%-7s ctas %3d S %2d: %7.1f %7.1f %7.1f  (last/first %.2f)\n", v, n, st, it->second[0],
                    it->second[1], it->second[2], it->second[2] / it->second[0]);
      }
}

}  // namespace bench::calib_tma
