// calib_tma: what one SM's bulk tensor copy engine (TMA) can pull from HBM, and how much
// the shape of each request costs, for calibrating tgsim's model of memory-bound skinny
// GEMMs (cuBLAS nvjet kernels: one CTA per SM, a producer thread issuing TMA loads of
// 64-row x 64-element bf16 A tiles into a ring of 10-16 shared-memory stages).
//
// Kernel: one CTA = 2 warps. Lane 0 of warp 0 is the producer: for each tile it waits
// until the ring stage is free (empty mbarrier), arms the stage's full mbarrier with
// expect_tx(box bytes) and issues one copy into it. Warp 1 is the consumer: it waits on
// the full mbarrier and releases the stage at once (no compute). Ring of S stages in
// dynamic shared memory, 1024-byte aligned. Variants:
//   tiled   cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes,
//           a CUtensorMap (cuTensorMapEncodeTiled through cudaGetDriverEntryPointByVersion,
//           passed as const __grid_constant__) over a bf16 matrix of 8192 cols (row pitch
//           16 KiB) x 131072 rows = 2 GiB (34x the 60 MiB L2); box = 64 cols (128 B) x R
//           rows, R = 64/128/256 (8/16/32 KiB); 128-byte swizzle and L2 promotion 256 B as
//           CUTLASS/cuBLAS use; each CTA walks its own disjoint panel(s) of R rows along K
//           (cols 0, 64, 128, ...), panel after panel, like a GEMM's A operand.
//   contig  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes (1D) of the
//           same bytes per request, walking the same per-CTA memory region sequentially
//           (a panel of R rows x full pitch is itself contiguous, so tiled and contig read
//           exactly the same bytes; only the order and shape of the requests differ).
//   tiled_pitch8k   tiled over a 4096-col view (row pitch 8 KiB) of the same buffer.
//   tiled_nopromo   tiled with CU_TENSOR_MAP_L2_PROMOTION_NONE.
//   *_2cta  264 CTAs, 2 per SM (smem per CTA held between 1/3 and 1/2 of the SM's).
//   *_len   short kernels: bytes per CTA 128 KiB .. 8 MiB (8 KiB pitch, 8 KiB boxes), to
//           see start-up and tail cost at the sizes of a real skinny GEMM.
//   *_rdflush  the flush memset is followed by a 256 MiB read, so L2 holds clean lines and
//           the kernel pays no write-back of the flush's dirty lines.
//   *_p2, *_p4  2 or 4 independent rings per CTA (each its own producer thread and
//           consumer warp; `stages` counts all rings together): tells whether the one-CTA
//           ceiling belongs to the SM's copy engine or to one producer/consumer ring.
//   *_divloop  the first revision's producer loop, which recomputed stage, phase and tile
//           coordinates by division and modulo by run-time values on every request; that
//           per-request cost of the one issuing thread (~145 ns) capped one CTA at ~57 GB/s
//           with 8 KiB requests. All other variants advance them incrementally.
//   contig_l2  L2-resident reads: each CTA re-reads its own small region (64-256 KiB; all
//           CTAs together 8-34 MiB, well inside the 60 MiB L2) until it has loaded 8 MiB, so
//           after the first pass every request hits L2: the SM's bulk-copy bandwidth from L2.
//   contig_l2_shareG  the same with the 132 CTAs reading only G distinct 128 KiB regions (CTA c
//           region c mod G, G = 1 ... 132), as a GEMM's CTAs read the same A and B tiles at about
//           the same time: whether the L2 serves shared reads faster than disjoint ones;
//           contig_l2_shareG_rK with K = 16/32 KiB regions (footprint apart from sharing).
//   *_tiny   8-128 KiB per CTA (1-16 requests of 8 KiB), 1 or 132 CTAs: a TMA kernel's fixed
//           costs after a flush (descriptor fetch, barrier set-up, first-load latency).
//   tiled_oob  the tiled stream with a tensor map of only 64 rows: all boxes but CTA 0's first
//           panel lie wholly outside the tensor and are zero-filled (no memory read): what such
//           a box costs, as the out-of-range CTA of a 2x1 cluster over a grouped GEMM's edge pays.
//   tiled_oobmix_k  132 CTAs whose tensor map holds only the first k CTAs' panels: k CTAs stream
//           from HBM while the others load zero-filled boxes beside them, as in such a grouped
//           GEMM; the in-range CTAs' end (median) against tiled_oobmixref_k (the k CTAs alone)
//           tells whether zero-filled boxes take a share of the HBM bandwidth.
//   pitch_hbm_P / pitch_l2_P  the tiled stream over a matrix of row pitch P bytes (P = 8192, and
//           8000 / 8064 (64 bytes past a 128-byte line), 8032 / 8096 (96, 32), 8016 / 8048 / 8080 /
//           8176 (16, 48, 80, 112), as the operands of a GEMM whose K is 1000, 3000 or 5000
//           elements): most box rows straddle two 128-byte lines. hbm: each CTA its own panels, 8 MiB per CTA;
//           l2: CTA c reads the panels of group c % 4 (4 x 8 MiB in all, inside the 60 MiB L2, shared
//           as a GEMM's CTAs share operand tiles), so all but the first reads hit L2.
//   Request sizes beyond the GEMM boxes: 2 and 4 KiB (16/32-row boxes, and 1D), 64 and
//   128 KiB (1D only; box_rows column = bytes/128).
// All other variants move 8 MiB per CTA (4 MiB with 2 CTAs/SM). One CTA per SM is forced
// by asking for >= 120 KiB of dynamic shared memory; the SM of every CTA is read (%smid)
// and the distinct-SM count is what per-SM figures divide by.
// Timing: 256 MiB cudaMemsetAsync (L2 flush) before every rep, CUDA events around the
// kernel only, 2 warm-ups, median of 15 reps; the in-kernel span (globaltimer, first CTA
// start to last CTA end) and when the first and the median CTA finished are reported in
// `method` too.
// Correctness: once per variant kind, shared memory is poisoned (0xA5) before the
// barriers are set up, the consumer copies three tiles (first, first of the second ring
// round, last) of the first and the last CTA to global memory, and the host compares them
// byte for byte with the source (un-swizzling the 128-byte swizzle).
//
// Output: CSV variant,ctas,stages,box_rows,box_bytes,bytes_in_flight_per_sm,gbps_total,
// gbps_per_sm,time_us,method (GB = 1e9 bytes; bytes = bytes loaded by TMA), and a short
// table on stdout.
//
// Usage: calib_tma [calibration_tma.csv] [variant-prefix]  (prefix: run only those variants)
//
// Code: calib_tma_kernel.h (the ring kernel), calib_tma_run.h (one configuration: set-up,
// timed runs, the checked launch), calib_tma_variants.h (the checks and the sweep, in CSV row
// order), calib_tma_report.h (CSV and stdout rows, condensed tables).
#include "common.h"
#include "calib_tma_report.h"
#include "calib_tma_run.h"
#include "calib_tma_variants.h"

#include <cmath>
#include <cstdio>
#include <vector>

using namespace bench;
using namespace bench::calib_tma;

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "calibration_tma.csv";
  CK(cudaSetDevice(0));
  print_device(0);
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  Nvml nvml(0);
  Ctx c;
  c.nsm = prop.multiProcessorCount;
  c.optin = (int)prop.sharedMemPerBlockOptin;
  std::printf("# smem per block opt-in %d B, per SM %zu B; SM clock %.0f MHz (max %.0f), memory clock %.0f MHz\n",
              c.optin, prop.sharedMemPerMultiprocessor, nvml.sm_mhz(), nvml.max_sm_mhz(), nvml.mem_mhz());
  prepare(c);

  const long long bad = run_checks(c);
  std::printf("correctness: %s\n", bad == 0 ? "all checks PASS" : "SOME CHECKS FAILED");

  std::vector<Config> cfgs = sweep_configs(c);
  if (argc > 2) keep_prefix(cfgs, argv[2]);

  FILE* f = std::fopen(out, "w");
  if (!f) { std::perror(out); return 2; }
  print_headers(f);
  const int REPS = 15;
  const double t_start = now_s();
  SweepTables tables;
  for (const auto& cf : cfgs) {
    Result r = run(c, cf, REPS);
    if (!std::isfinite(r.ms)) {
      std::printf("%-14s %5d %3d %4d: skipped (does not fit)\n", cf.variant.c_str(), cf.ctas, cf.stages, cf.box_rows);
      continue;
    }
    report_row(f, cf, r, REPS, nvml, tables);
  }
  std::fclose(f);
  std::printf("# sweep took %.1f s; SM clock now %.0f MHz\n", now_s() - t_start, nvml.sm_mhz());

  print_sweep_tables(c, tables);
  print_ring_tables(c, tables);
  std::printf("\ncalib_tma done (%s)\n", bad == 0 ? "checks passed" : "CHECKS FAILED");
  return bad == 0 ? 0 : 1;
}
