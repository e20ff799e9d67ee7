// sm_split: the SM-split kernel family (communication workers and compute workers in one
// persistent kernel), timed versus the number of communication CTAs on two H200s, for
// validating tgsim's model of SMs shared between NVLink copies and tensor-core work.
//
// Kernel (sm_split_kernel<CHAINS>): one CTA per SM, grid = SM count (132). One CTA per SM
// is forced by 120 KiB of (unused) dynamic shared memory per CTA and __launch_bounds__(512,
// 1); the occupancy API must report 1 CTA/SM for every launched configuration, and the SM
// of every CTA (%smid) is checked to be distinct.
//  * CTAs [0, c) are communication workers: thread 0 takes a chunk index from an atomic
//    counter (atomicAdd), the CTA copies that chunk (chunk_bytes, the last one may be
//    shorter) from GPU 0's memory to the peer buffer on GPU 1 with 16-byte loads and
//    16-byte remote stores by all threads (4 loads in flight per thread before the
//    stores), until the counter passes the last chunk; then __threadfence_system().
//  * CTAs [c, grid) are compute workers: thread 0 takes a tile index from a second counter;
//    for each tile every warp runs mma_per_warp_per_tile mma.sync.m16n8k16 bf16 (f32
//    accumulate) instructions spread round-robin over mma_chains independent accumulator
//    chains, operands in registers (random bf16 values); the accumulators' sum is written
//    to a global sink at the end, so nothing can be eliminated.
//  * steal = 1: communication workers take compute tiles too once the copy counter is
//    exhausted (same tile loop).
//  * c = 0 means no communication workers (then bytes = 0: pure compute rows); tiles = 0
//    rows are pure copy.
// Direction: ONLY GPU 0 runs the kernel and pushes X bytes into GPU 1's memory; GPU 1 is a
// passive receiver (one direction of the link loaded). Fixed for every row.
// Timing: before each rep a 256 MiB memset on GPU 1 (host waits) and on GPU 0 (L2 flush of
// both), counters zeroed, then CUDA events on GPU 0's stream around the launch. One warm-up
// (which is also the correctness run), reps = clamp(30 ms / warm-up time, 5, 20), median
// of reps; the whole sweep runs in 2 passes, time_us = mean of the 2 pass medians,
// spread_pct = their difference over it. In-kernel %globaltimer per CTA: copy_done_us =
// last communication CTA's end (after its fence) minus the first CTA's start,
// compute_done_us = last tile's end minus the first CTA's start (medians of reps).
// Correctness, once per configuration (warm-up): the destination is poisoned (0xA5) first,
// then 4 KiB at the start and end of the first, middle and last chunk are compared with
// the source; the tiles done over all CTAs must equal `tiles`; the sink must be finite.
// Tile counts: before the sweep, pure-copy time at full width (c = 132, tiles = 0) for each
// X and the time of one wave of tiles (c = 0, tiles = 4 x 132) for each compute shape are
// measured; tiles = ratio x copy time / wave time x 132 (2 significant digits) for ratio
// 0.3, 1, 3 (column ratio_target).
// mma_loop calibration: c = 0, tiles = 8 x 132, 1024 mma per warp per tile, threads 128 /
// 256 / 512, chains 1 / 2 / 4 / 8: clock64 cycles of each CTA's tile loop over (tiles done x
// 1024) = cycles per mma per warp (median over CTAs), FLOP/clk/SM = warps x 4096 (2*16*8*16
// FLOP per m16n8k16) over that; rows test=mma_loop appended to calibration_nvlink.csv.
//
// Output: sm_split.csv in the measurement schema (op=sm_split ...; rewritten after each
// pass) and rows in calibration_nvlink.csv.
// Usage: sm_split [sm_split.csv] [calibration_nvlink.csv] [--quick] [--passes N]
//
// Code: sm_split_kernel.h (the kernel), sm_split_run.h (buffers, timed and checked launches,
// the CSV writer); main below: set-up, mma_loop calibration, reference times, the sweep.
#include "multigpu.h"

#include <map>
#include <set>
#include <tuple>

#include "sm_split_kernel.h"
#include "sm_split_run.h"

using namespace bench;

int main(int argc, char** argv) {
  const char* out = "sm_split.csv";
  const char* cal = nullptr;
  int passes = 2;
  int npos = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) g_quick = true;
    else if (!std::strcmp(argv[i], "--passes") && i + 1 < argc) passes = std::atoi(argv[++i]);
    else if (npos++ == 0) out = argv[i];
    else cal = argv[i];
  }
  if (g_quick) passes = 1;
  Dev d;
  if (!d.pp.init()) return 3;
  d.nsm = d.pp.nsm;
  const int n = d.nsm;
  CK(cudaSetDevice(1));
  CK(cudaMalloc(&d.dst, kMaxBytes));
  CK(cudaSetDevice(0));
  CK(cudaMalloc(&d.src, kMaxBytes));
  fill_random((__nv_bfloat16*)d.src, kMaxBytes / 2, 4242);
  CK(cudaMalloc(&d.counters, 64));
  CK(cudaMalloc(&d.sink, (size_t)n * kMaxThreads * 4));
  CK(cudaMalloc(&d.t_start, n * 8));
  CK(cudaMalloc(&d.t_copy, n * 8));
  CK(cudaMalloc(&d.t_comp, n * 8));
  CK(cudaMalloc(&d.cyc, n * 8));
  CK(cudaMalloc(&d.ntiles, n * 4));
  CK(cudaMalloc(&d.sm, n * 4));
  CK(cudaEventCreate(&d.e0));
  CK(cudaEventCreate(&d.e1));
  CK(cudaDeviceSynchronize());
  std::set<std::pair<int, int>> bad_shape;  // (chains, threads) that do not run 1 CTA/SM
  for (int ch : {1, 2, 4, 8}) {
    CK(cudaFuncSetAttribute(kernel_for(ch), cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
    for (int thr : {128, 256, 512}) {
      int nb = 0;
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, kernel_for(ch), thr, kSmem));
      cudaFuncAttributes fa{};
      CK(cudaFuncGetAttributes(&fa, kernel_for(ch)));
      if (thr == 256) std::printf("# sm_split_kernel<%d>: %d regs, %zu B local; ", ch, fa.numRegs, fa.localSizeBytes);
      std::printf("%d threads -> %d CTA/SM%s", thr, nb, thr == 512 ? "\n" : "; ");
      if (nb != 1) {
        std::printf("WARNING: chains %d threads %d: occupancy %d CTAs/SM, not 1: skipped\n", ch, thr, nb);
        bad_shape.insert({ch, thr});
      }
    }
  }
  const double t_start = now_s();

  // ---- mma_loop calibration ----
  if (cal) {
    NvCsv csv(cal);
    std::vector<int> thr_l = {128, 256, 512}, ch_l = {1, 2, 4, 8};
    if (g_quick) { thr_l = {256}; ch_l = {1, 4}; }
    for (int thr : thr_l)
      for (int ch : ch_l) {
        if (bad_shape.count({ch, thr})) continue;
        Cfg g;
        g.c = 0; g.chains = ch; g.threads = thr; g.mpt = 1024; g.tiles = 8 * n;
        std::vector<double> cpm, us, mhz;
        for (int p = 0; p < passes; ++p) {
          RunOut o = run_once(d, g);  // warm-up
          std::vector<double> c_rep, u_rep, f_rep;
          for (int r = 0; r < (g_quick ? 2 : 3); ++r) {
            o = run_once(d, g, true);
            std::vector<double> per;
            double cyc_max = 0;
            for (int i = 0; i < n; ++i)
              if (o.ntiles[i] > 0) {
                per.push_back((double)o.cyc[i] / ((double)o.ntiles[i] * g.mpt));
                cyc_max = std::max(cyc_max, (double)o.cyc[i]);
              }
            c_rep.push_back(median(per));
            u_rep.push_back(o.us);
            f_rep.push_back(cyc_max / o.us);  // MHz implied by the slowest CTA's cycles
          }
          cpm.push_back(median(c_rep));
          us.push_back(median(u_rep));
          mhz.push_back(median(f_rep));
        }
        const double c = mean(cpm), warps = thr / 32;
        NvCsv::Row r;
        r.test = "mma_loop";
        r.method = "mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32";
        r.ctas = n; r.threads = thr; r.chains = ch;
        r.time_us = mean(us);
        r.spread_pct = spread_pct(cpm);
        r.reps = g_quick ? 2 : 3;
        r.passes = passes;
        char note[256];
        std::snprintf(note, sizeof note,
                      "sm_split_kernel<%d> with c=0, %d tiles of 1024 mma per warp, %d warps per SM; clock64 over each "
                      "CTA's tile loop / (tiles x 1024), median over CTAs; implied SM clock %.0f MHz",
                      ch, g.tiles, (int)warps, mean(mhz));
        r.note = note;
        r.value = c; r.unit = "cycles_per_mma_per_warp";
        csv.row(r);
        r.value = warps * (2.0 * 16 * 8 * 16) / c; r.unit = "flop_per_clk_per_sm";  // 4096 FLOP per mma
        csv.row(r);
      }
    std::printf("# mma_loop done t=%.1fs\n", now_s() - t_start);
  }

  // ---- reference times for the tile counts ----
  std::vector<long long> xs = {16ll << 20, 64ll << 20, 256ll << 20};
  std::vector<double> ratios = {0.3, 1.0, 3.0};
  std::vector<int> cs = {1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96};
  if (g_quick) { xs = {16ll << 20}; ratios = {1.0}; cs = {4, 32}; }
  struct Shape { int mpt, chains, threads; };
  const Shape primary{1024, 4, 256};
  std::vector<Shape> secondary = {{1024, 1, 256}, {256, 4, 256}, {1024, 4, 512}};
  if (g_quick) secondary = {{1024, 1, 256}};
  std::map<long long, double> copy_ref;
  for (long long x : xs) {
    Cfg g;
    g.c = n; g.bytes = x; g.tiles = 0;
    std::vector<double> t;
    run_once(d, g);
    for (int r = 0; r < 5; ++r) t.push_back(run_once(d, g).us);
    copy_ref[x] = median(t);
    std::printf("# copy ref %lld MiB at c=%d: %.1f us (%.1f GB/s)\n", x >> 20, n, copy_ref[x],
                x / (copy_ref[x] * 1e-6) / 1e9);
  }
  std::map<std::tuple<int, int, int>, double> wave_ref;
  if (bad_shape.count({primary.chains, primary.threads})) { std::fprintf(stderr, "primary shape cannot run\n"); return 4; }
  secondary.erase(std::remove_if(secondary.begin(), secondary.end(),
                                 [&](const Shape& s) { return bad_shape.count({s.chains, s.threads}) > 0; }),
                  secondary.end());
  std::vector<Shape> shapes = {primary};
  shapes.insert(shapes.end(), secondary.begin(), secondary.end());
  for (const Shape& s : shapes) {
    Cfg g;
    g.c = 0; g.mpt = s.mpt; g.chains = s.chains; g.threads = s.threads; g.tiles = 4 * n;
    std::vector<double> t;
    run_once(d, g);
    for (int r = 0; r < 5; ++r) t.push_back(run_once(d, g).us);
    wave_ref[{s.mpt, s.chains, s.threads}] = median(t) / 4;
    std::printf("# wave ref mpt=%d chains=%d threads=%d: %.2f us per wave of %d tiles\n", s.mpt, s.chains, s.threads,
                median(t) / 4, n);
  }

  // ---- the sweep ----
  std::vector<Cfg> cfgs;
  auto add_split = [&](const Shape& s, long long x, double ratio, long long chunk, bool with_c0) {
    const double wave = wave_ref[{s.mpt, s.chains, s.threads}];
    const int tiles = round_sig2(ratio * copy_ref[x] / wave * n);
    Cfg base;
    base.mpt = s.mpt; base.chains = s.chains; base.threads = s.threads; base.tiles = tiles;
    base.ratio = ratio; base.copy_ref_us = copy_ref[x]; base.compute_ref_us = wave;
    base.chunk = chunk;
    if (with_c0) {
      Cfg g = base;
      g.c = 0; g.bytes = 0; g.steal = 0;
      cfgs.push_back(g);
    }
    for (int steal = 0; steal < 2; ++steal) {
      for (int c : cs) {
        Cfg g = base;
        g.c = c; g.bytes = x; g.steal = steal;
        cfgs.push_back(g);
      }
      if (steal) {
        Cfg g = base;
        g.c = n; g.bytes = x; g.steal = 1;
        cfgs.push_back(g);
      }
    }
  };
  // pure copy rows (tiles = 0)
  for (long long chunk : {1ll << 20, 256ll << 10})
    for (long long x : xs) {
      std::vector<int> cc = cs;
      cc.push_back(n);
      for (int c : cc) {
        Cfg g;
        g.c = c; g.bytes = x; g.chunk = chunk; g.tiles = 0;
        g.mpt = primary.mpt; g.chains = primary.chains; g.threads = primary.threads;
        g.copy_ref_us = copy_ref[x];
        cfgs.push_back(g);
      }
    }
  for (long long x : xs)
    for (double r : ratios) add_split(primary, x, r, 1 << 20, true);
  const long long xmid = xs.size() > 1 ? xs[1] : xs[0];
  for (const Shape& s : secondary)
    for (double r : ratios) add_split(s, xmid, r, 1 << 20, true);
  for (double r : ratios) add_split(primary, xmid, r, 256 << 10, false);
  std::printf("# %zu configurations, %d passes\n", cfgs.size(), passes);

  for (int p = 0; p < passes; ++p) {
    const double tp0 = now_s();
    for (size_t i = 0; i < cfgs.size(); ++i) {
      Cfg& g = cfgs[i];
      run_cfg(d, g);
      if (p == 0)
        std::printf("pass0 %4zu c=%-3d X=%-4lldMiB chunk=%-4lldKiB tiles=%-6d mpt=%-4d ch=%d thr=%d steal=%d  "
                    "%9.1f us  copy %9.1f  comp %9.1f  %s\n",
                    i, g.c, g.bytes >> 20, g.chunk >> 10, g.tiles, g.mpt, g.chains, g.threads, g.steal,
                    g.pass_us.back(), g.pass_copy_us.back(), g.pass_comp_us.back(), g.check.c_str());
    }
    write_csv(out, cfgs);
    std::printf("# pass %d done in %.1fs (t=%.1fs)\n", p, now_s() - tp0, now_s() - t_start);
  }

  // summary: best c per (bytes, tiles, shape, chunk, steal)
  std::printf("# best comm_blocks per group (time_us):\n");
  std::map<std::string, std::pair<int, double>> best;
  std::map<std::string, double> c0time;
  for (const Cfg& g : cfgs) {
    char key[160];
    std::snprintf(key, sizeof key, "X=%4lldMiB chunk=%4lldKiB tiles=%6d mpt=%4d ch=%d thr=%d steal=%d", g.bytes >> 20,
                  g.chunk >> 10, g.tiles, g.mpt, g.chains, g.threads, g.steal);
    if (g.c == 0 || g.bytes == 0) continue;
    const double t = mean(g.pass_us);
    auto it = best.find(key);
    if (it == best.end() || t < it->second.second) best[key] = {g.c, t};
  }
  for (auto& kv : best) std::printf("  %s  best c=%-3d %10.1f us\n", kv.first.c_str(), kv.second.first, kv.second.second);
  int fails = 0;
  for (const Cfg& g : cfgs)
    if (g.check != "pass") ++fails;
  std::printf("# sm_split done in %.1fs, %d configs failed checks\n", now_s() - t_start, fails);
  return fails ? 1 : 0;
}
