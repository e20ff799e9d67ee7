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
#include "common.h"
#include "tma_ops.h"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <array>
#include <map>
#include <set>

using namespace bench;

namespace {

constexpr int kMaxProducers = 4;    // rings per CTA (producer warp + consumer warp each)
constexpr int kMaxThreads = 64 * kMaxProducers;
constexpr int kPoison = 0xA5;
constexpr int kDumpSlots = 3;

struct Params {
  const unsigned char* src;   // contiguous variant: buffer base
  long long region_bytes;     // per-CTA region (both variants: CTA c owns [c*region, ...))
  int region_groups;          // contig: > 0: CTA c reads region c % region_groups (CTAs share it)
  int n_tiles;                // tiles (requests) per CTA
  int stages;                 // stages per ring
  int producers;              // independent rings per CTA (1 = GEMM-like)
  int box_rows;
  int box_bytes;
  int tiles_per_panel;        // K tiles along one panel (tiled)
  int row_groups;             // tiled: > 0: CTA c reads the panels of CTA c % row_groups (shared)
  int panels_per_cta;
  int smem_bytes;             // dynamic smem size (for the poison fill)
  int wrap_tiles;             // contiguous variant: > 0 re-reads the region every wrap_tiles requests
  int check;
  unsigned char* dbg;         // [2 CTAs][kDumpSlots][box_bytes]
  int* smid;                  // [ctas]
  unsigned long long* t0;     // [ctas] globaltimer at entry
  unsigned long long* t1;     // [ctas] globaltimer after the last tile
};


template <bool TILED, bool DIVLOOP>
__global__ void __launch_bounds__(kMaxThreads, 1) tma_stream_kernel(const __grid_constant__ CUtensorMap tm, Params p) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int cta = blockIdx.x;
  const int P = p.producers;
  if (tid == 0) {
    p.t0[cta] = globaltimer();
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    p.smid[cta] = (int)s;
  }
  const uint32_t raw = smem_u32(smem_raw);
  const uint32_t aligned = (raw + 1023u) & ~1023u;
  const uint32_t bars = aligned;           // full[P*S], empty[P*S]: 16*P*S bytes (P*S <= 64)
  const uint32_t tiles = aligned + 1024u;  // P*S stages of box_bytes, 1024-aligned
  unsigned char* tiles_g = smem_raw + (tiles - raw);
  const int S = p.stages;                  // stages per ring
  const int NS = P * S;

  if (p.check) {  // poison the whole dynamic allocation (generic proxy)
    uint4 v;
    v.x = v.y = v.z = v.w = 0x01010101u * kPoison;
    for (int i = tid * 16; i + 16 <= p.smem_bytes; i += blockDim.x * 16)
      *reinterpret_cast<uint4*>(smem_raw + i) = v;
  }
  __syncthreads();
  if (tid == 0) {
    for (int s = 0; s < NS; ++s) {
      mbar_init(bars + 8u * s, 1);         // full: the producer's arrive.expect_tx + tx bytes
      mbar_init(bars + 8u * (NS + s), 1);  // empty: one arrive from the consumer warp
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    if (TILED) asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(&tm)) : "memory");
  }
  // order the poison stores (generic proxy) before the copy engine's writes (async proxy)
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();

  // ring w (0 <= w < P): producer = lane 0 of warp w, consumer = warp P + w; it carries
  // tiles it = w, w + P, w + 2P, ... (P = 1: one producer thread, as in a GEMM)
  const long long box = p.box_bytes;
  if (warp < P) {
    if (lane == 0) {
      const int w = warp;
      const uint32_t full0 = bars + 8u * (w * S), empty0 = bars + 8u * (NS + w * S);
      const uint32_t tile0 = tiles + (uint32_t)(w * S) * (uint32_t)p.box_bytes;
      if (DIVLOOP) {
        // the first revision's producer loop (P = 1 only): stage, phase and coordinates
        // recomputed from the tile index by division every iteration
        const unsigned char* region = p.src + (long long)cta * p.region_bytes;
        for (int it = 0; it < p.n_tiles; ++it) {
          const int s = it % S;
          const int round = it / S;
          if (round > 0) mbar_wait(empty0 + 8u * s, (round - 1) & 1);
          const uint32_t full = full0 + 8u * s;
          mbar_arrive_expect_tx(full, (uint32_t)p.box_bytes);
          const uint32_t dst = tile0 + (uint32_t)s * (uint32_t)p.box_bytes;
          if (TILED) {
            const int panel = cta * p.panels_per_cta + it / p.tiles_per_panel;
            const int k = it % p.tiles_per_panel;
            tma_load_2d(dst, &tm, k * 64, panel * p.box_rows, full);
          } else {
            bulk_load_1d(dst, region + (long long)it * box, (uint32_t)p.box_bytes, full);
          }
        }
      } else {
        // CUTLASS-style: stage index and phase advance incrementally, coordinates too. The
        // empty-wait parity starts at 1: a fresh mbarrier counts the phase before its first
        // as completed, so the first round does not wait.
        int s = 0;
        uint32_t ph = 1;
        const int cols = p.tiles_per_panel * 64, kstep = 64 * P;
        int k = 64 * w, row = (p.row_groups > 0 ? cta % p.row_groups : cta) * p.panels_per_cta * p.box_rows;
        const long long base = (long long)(p.region_groups > 0 ? cta % p.region_groups : cta) * p.region_bytes;
        const unsigned char* src = p.src + base + w * box;
        const long long src_step = P * box;
        int wi = w;  // request index within the region (contig_l2 wraps it)
        for (int it = w; it < p.n_tiles; it += P) {
          mbar_wait(empty0 + 8u * s, ph);
          const uint32_t full = full0 + 8u * s;
          mbar_arrive_expect_tx(full, (uint32_t)p.box_bytes);
          const uint32_t dst = tile0 + (uint32_t)s * (uint32_t)p.box_bytes;
          if (TILED) {
            tma_load_2d(dst, &tm, k, row, full);
            k += kstep;
            if (k >= cols) { k -= cols; row += p.box_rows; }
          } else {
            bulk_load_1d(dst, src, (uint32_t)p.box_bytes, full);
            src += src_step;
            wi += P;
            if (p.wrap_tiles > 0 && wi >= p.wrap_tiles) {
              wi -= p.wrap_tiles;
              src = p.src + base + (long long)wi * box;
            }
          }
          if (++s == S) { s = 0; ph ^= 1; }
        }
      }
    }
  } else if (warp < 2 * P) {
    const int w = warp - P;
    const uint32_t full0 = bars + 8u * (w * S), empty0 = bars + 8u * (NS + w * S);
    const unsigned char* tile0 = tiles_g + (size_t)(w * S) * p.box_bytes;
    const bool dump = p.check && (cta == 0 || cta == (int)gridDim.x - 1);
    int s = 0;
    uint32_t ph = 0;
    for (int it = w; it < p.n_tiles; it += P) {
      mbar_wait(full0 + 8u * s, ph);
      if (dump) {
        int slot = it == 0 ? 0 : (it == S ? 1 : (it == p.n_tiles - 1 ? 2 : -1));
        if (slot >= 0) {
          const uint4* from = reinterpret_cast<const uint4*>(tile0 + (size_t)s * p.box_bytes);
          uint4* to = reinterpret_cast<uint4*>(p.dbg + ((size_t)(cta == 0 ? 0 : 1) * kDumpSlots + slot) * p.box_bytes);
          for (int i = lane; i < p.box_bytes / 16; i += 32) to[i] = from[i];
        }
      }
      __syncwarp();
      if (lane == 0) mbar_arrive(empty0 + 8u * s);
      if (++s == S) { s = 0; ph ^= 1; }
    }
    if (lane == 0) atomicMax(p.t1 + cta, globaltimer());  // time only grows: stale values are smaller
  }
}

struct Config {
  std::string variant;
  bool tiled;
  int ctas, stages, box_rows;
  int pitch;                 // bytes per matrix row (tiled); sets the panel = region size
  bool promo;                // L2 promotion 256 B (tiled)
  long long per_cta_bytes;
  int min_smem;              // dynamic smem floor: forces the CTAs-per-SM count
  int expect_per_sm;
  int flush = 0;             // 0: 256 MiB memset; 1: memset, then a 256 MiB read (L2 left clean)
  int producers = 1;         // rings per CTA; `stages` counts the stages of all rings together
  bool divloop = false;      // the first revision's div/mod producer loop (producers = 1)
  long long box_bytes_1d = 0;  // contig only: request size other than box_rows*128 (0: box_rows*128)
  long long wrap_bytes = 0;    // contig only: > 0 re-reads a region of this size (L2-resident)
  int map_rows = 0;            // tiled: > 0 encodes the tensor map with only this many rows, so every
                               // box beyond them lies wholly outside the tensor (TMA zero-fills it)
  int region_groups = 0;       // contig with wrap_bytes: > 0 CTAs c and c + G read the same region
  int in_range_ctas = 0;       // tiled: > 0: the tensor map holds only CTAs 0 .. this - 1's panels
  int row_groups = 0;          // tiled: > 0: CTA c reads CTA (c % row_groups)'s panels (L2-resident reuse)
};

struct Result {
  double ms = NAN, spread = NAN, span_us = NAN;
  double end_first_us = NAN, end_med_us = NAN;  // CTA end times after the first CTA start
  double end_in_us = NAN, end_out_us = NAN;      // in_range_ctas > 0: median end of the in-range / other CTAs
  int sms = 0, max_per_sm = 0;
  long long bytes = 0;
  int smem = 0;
};

struct Ctx {
  int nsm = 0, optin = 0;
  unsigned char* mat = nullptr;
  size_t mat_bytes = 0;
  void* flush = nullptr;
  void* flush2 = nullptr;   // read after the memset by flush mode 1
  size_t flush_bytes = 0;
  unsigned char* dbg = nullptr;
  int* smid = nullptr;
  unsigned long long *t0 = nullptr, *t1 = nullptr;
  cudaEvent_t e0{}, e1{};
  std::map<std::string, CUtensorMap> maps;
  const CUtensorMap& map_for(int pitch, int box_rows, bool promo, int map_rows = 0) {
    char k[64];
    std::snprintf(k, sizeof k, "%d/%d/%d/%d", pitch, box_rows, (int)promo, map_rows);
    auto it = maps.find(k);
    if (it != maps.end()) return it->second;
    uint64_t cols = (uint64_t)pitch / 2, rows = map_rows > 0 ? (uint64_t)map_rows : mat_bytes / (uint64_t)pitch;
    return maps[k] = make_map(mat, cols, rows, (uint32_t)box_rows,
                              promo ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B : CU_TENSOR_MAP_L2_PROMOTION_NONE);
  }
};

int max_stages(const Ctx& c, long long box_bytes) { return (int)std::min<long long>(64, (c.optin - 2048) / box_bytes); }

// Sets up Params for one config; returns false if it cannot run (smem, size).
bool setup(Ctx& c, const Config& cf, Params& p, int& smem, const CUtensorMap*& tm, int check) {
  const long long box_bytes = cf.box_bytes_1d ? cf.box_bytes_1d : cf.box_rows * 128ll;
  if (cf.stages > max_stages(c, box_bytes) || cf.stages % cf.producers || (cf.divloop && cf.producers != 1)) return false;
  p = Params{};
  p.src = c.mat;
  p.stages = cf.stages / cf.producers;
  p.producers = cf.producers;
  p.box_rows = cf.box_rows;
  p.box_bytes = (int)box_bytes;
  p.n_tiles = (int)(cf.per_cta_bytes / box_bytes);
  p.tiles_per_panel = cf.pitch / 128;
  p.row_groups = cf.row_groups;
  p.panels_per_cta = (p.n_tiles + p.tiles_per_panel - 1) / p.tiles_per_panel;
  p.region_bytes = (long long)p.panels_per_cta * cf.box_rows * cf.pitch;  // whole panels: contiguous
  if (!cf.tiled) p.region_bytes = (long long)p.n_tiles * box_bytes;       // (the same for 8 MiB per CTA)
  p.wrap_tiles = 0;
  if (!cf.tiled && cf.wrap_bytes > 0) {
    p.wrap_tiles = (int)(cf.wrap_bytes / box_bytes);
    p.region_bytes = cf.wrap_bytes;
    p.region_groups = cf.region_groups;
  }
  const int owners = cf.row_groups > 0 ? std::min(cf.ctas, cf.row_groups) : cf.ctas;
  if ((long long)owners * p.region_bytes > (long long)c.mat_bytes) {
    std::fprintf(stderr, "config %s ctas %d: %lld B per CTA region exceeds the matrix\n", cf.variant.c_str(), cf.ctas,
                 p.region_bytes);
    return false;
  }
  smem = (int)std::max<long long>(cf.stages * box_bytes + 2048, cf.min_smem);
  if (smem > c.optin) return false;
  p.smem_bytes = smem;
  p.check = check;
  p.dbg = c.dbg;
  p.smid = c.smid;
  p.t0 = c.t0;
  p.t1 = c.t1;
  static const CUtensorMap unused{};  // the 1D kernel never reads its map (and boxes > 256 rows can't be encoded)
  const int map_rows = cf.in_range_ctas > 0 ? cf.in_range_ctas * p.panels_per_cta * cf.box_rows : cf.map_rows;
  tm = cf.tiled ? &c.map_for(cf.pitch, cf.box_rows, cf.promo, map_rows) : &unused;
  return true;
}

typedef void (*KernelFn)(const CUtensorMap, Params);
KernelFn kernel_for(const Config& cf) {
  if (cf.tiled) return cf.divloop ? tma_stream_kernel<true, true> : tma_stream_kernel<true, false>;
  return cf.divloop ? tma_stream_kernel<false, true> : tma_stream_kernel<false, false>;
}

void launch(const Config& cf, const CUtensorMap& tm, const Params& p, int smem) {
  const int threads = 64 * cf.producers;
  kernel_for(cf)<<<cf.ctas, threads, smem>>>(tm, p);
  CKLAUNCH();
}

Result run(Ctx& c, const Config& cf, int reps) {
  Result r;
  Params p;
  int smem;
  const CUtensorMap* tm;
  if (!setup(c, cf, p, smem, tm, 0)) return r;
  r.smem = smem;
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel_for(cf), 64 * cf.producers, smem));
  if (occ != cf.expect_per_sm)
    std::fprintf(stderr, "warning: %s S=%d R=%d: occupancy %d CTAs/SM, expected %d\n", cf.variant.c_str(), cf.stages,
                 cf.box_rows, occ, cf.expect_per_sm);
  r.bytes = (long long)cf.ctas * p.n_tiles * p.box_bytes;
  std::vector<double> t, span, efirst, emed, ein, eout;
  std::vector<int> smid(cf.ctas);
  std::vector<unsigned long long> a(cf.ctas), b(cf.ctas);
  for (int i = -2; i < reps; ++i) {
    CK(cudaMemsetAsync(c.flush, (i + 3) & 0xff, c.flush_bytes));
    if (cf.flush == 1) {
      read_flush_kernel<<<c.nsm * 8, 256>>>(reinterpret_cast<const int4*>(c.flush2), c.flush_bytes / 16,
                                            reinterpret_cast<int4*>(c.dbg));
      CKLAUNCH();
    }
    CK(cudaEventRecord(c.e0));
    launch(cf, *tm, p, smem);
    CK(cudaEventRecord(c.e1));
    CK(cudaEventSynchronize(c.e1));
    CK(cudaGetLastError());
    if (i < 0) continue;
    float ms;
    CK(cudaEventElapsedTime(&ms, c.e0, c.e1));
    t.push_back(ms);
    CK(cudaMemcpy(a.data(), c.t0, cf.ctas * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), c.t1, cf.ctas * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    const unsigned long long t0min = *std::min_element(a.begin(), a.end());
    span.push_back((*std::max_element(b.begin(), b.end()) - t0min) * 1e-3);
    std::vector<double> ends;
    for (auto e : b) ends.push_back((e - t0min) * 1e-3);
    efirst.push_back(vmin(ends));
    emed.push_back(median(ends));
    if (cf.in_range_ctas > 0 && cf.in_range_ctas < cf.ctas) {
      ein.push_back(median(std::vector<double>(ends.begin(), ends.begin() + cf.in_range_ctas)));
      eout.push_back(median(std::vector<double>(ends.begin() + cf.in_range_ctas, ends.end())));
    }
  }
  if (!ein.empty()) {
    r.end_in_us = median(ein);
    r.end_out_us = median(eout);
  }
  CK(cudaMemcpy(smid.data(), c.smid, cf.ctas * sizeof(int), cudaMemcpyDeviceToHost));
  std::map<int, int> per;
  for (int s : smid) per[s]++;
  r.sms = (int)per.size();
  for (auto& kv : per) r.max_per_sm = std::max(r.max_per_sm, kv.second);
  r.ms = median(t);
  r.spread = (vmax(t) - vmin(t)) / r.ms * 100.0;
  r.span_us = median(span);
  r.end_first_us = median(efirst);
  r.end_med_us = median(emed);
  return r;
}

// One checked launch: poisoned smem, dumps of 3 tiles of the first and last CTA compared
// with the source. Returns the number of mismatching bytes.
long long check(Ctx& c, const Config& cf) {
  Params p;
  int smem;
  const CUtensorMap* tm;
  if (!setup(c, cf, p, smem, tm, 1)) {
    std::printf("check %s: config not runnable\n", cf.variant.c_str());
    return -1;
  }
  const size_t dbg_bytes = 2ull * kDumpSlots * p.box_bytes;
  CK(cudaMemset(c.dbg, 0x5A, dbg_bytes));
  launch(cf, *tm, p, smem);
  CK(cudaDeviceSynchronize());
  std::vector<unsigned char> dump(dbg_bytes), ref(p.box_bytes);
  CK(cudaMemcpy(dump.data(), c.dbg, dbg_bytes, cudaMemcpyDeviceToHost));
  const int its[kDumpSlots] = {0, p.stages, p.n_tiles - 1};
  long long bad = 0, bad_plain = 0, poison_chunks = 0, compared = 0;
  for (int w = 0; w < 2; ++w) {
    const int cta = w == 0 ? 0 : cf.ctas - 1;
    for (int slot = 0; slot < kDumpSlots; ++slot) {
      const int it = its[slot];
      // the device dumps tile `it` into the first slot whose condition it meets
      if (it >= p.n_tiles || (slot == 1 && it == 0) || (slot == 2 && (it == 0 || it == p.stages))) continue;
      const unsigned char* d = dump.data() + ((size_t)w * kDumpSlots + slot) * p.box_bytes;
      if (cf.tiled) {
        const int panel = (p.row_groups > 0 ? cta % p.row_groups : cta) * p.panels_per_cta + it / p.tiles_per_panel;
        const int k = it % p.tiles_per_panel;
        const unsigned char* src = c.mat + (size_t)panel * cf.box_rows * cf.pitch + (size_t)k * 128;
        CK(cudaMemcpy2D(ref.data(), 128, src, cf.pitch, 128, cf.box_rows, cudaMemcpyDeviceToHost));
        for (int row = 0; row < cf.box_rows; ++row)
          for (int byte = 0; byte < 128; ++byte) {
            const int sw = row * 128 + ((((byte >> 4) ^ (row & 7)) << 4) | (byte & 15));  // 128B swizzle
            bad += d[sw] != ref[row * 128 + byte];
            bad_plain += d[row * 128 + byte] != ref[row * 128 + byte];
          }
      } else {
        const int wit = p.wrap_tiles > 0 ? it % p.wrap_tiles : it;
        const int region = p.region_groups > 0 ? cta % p.region_groups : cta;
        const unsigned char* src = c.mat + (size_t)region * p.region_bytes + (size_t)wit * p.box_bytes;
        CK(cudaMemcpy(ref.data(), src, p.box_bytes, cudaMemcpyDeviceToHost));
        for (int i = 0; i < p.box_bytes; ++i) bad += d[i] != ref[i];
        bad_plain = bad;
      }
      for (int i = 0; i < p.box_bytes; i += 16) {
        bool all = true;
        for (int j = 0; j < 16; ++j) all &= d[i + j] == kPoison;
        poison_chunks += all;
      }
      compared += p.box_bytes;
    }
  }
  std::printf("check %-14s ctas %3d S %2d R %3d pitch %5d: %lld bytes of %s tiles compared, %lld mismatches "
              "(%lld if read unswizzled), %lld 16-B chunks still poison -> %s\n",
              cf.variant.c_str(), cf.ctas, cf.stages, cf.box_rows, cf.pitch, compared,
              cf.tiled ? "2D (128B-swizzled)" : "1D", bad, bad_plain, poison_chunks,
              bad == 0 && poison_chunks == 0 && compared > 0 ? "PASS" : "FAIL");
  return bad + poison_chunks + (compared == 0);
}

}  // namespace

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

  load_tensor_map_encoder();
  for (bool t : {false, true})
    for (bool d : {false, true}) {
      Config k{};
      k.tiled = t;
      k.divloop = d;
      CK(cudaFuncSetAttribute(kernel_for(k), cudaFuncAttributeMaxDynamicSharedMemorySize, c.optin));
    }

  c.mat_bytes = 2ull << 30;  // 8192 x 131072 bf16 (or 4096 x 262144)
  c.flush_bytes = 256ull << 20;
  const int max_ctas = 2 * c.nsm;
  CK(cudaMalloc(&c.mat, c.mat_bytes));
  CK(cudaMalloc(&c.flush, c.flush_bytes));
  CK(cudaMalloc(&c.flush2, c.flush_bytes));
  CK(cudaMemset(c.flush2, 0x3c, c.flush_bytes));
  CK(cudaMalloc(&c.dbg, 2ull * kDumpSlots * 32768));
  CK(cudaMalloc(&c.smid, max_ctas * sizeof(int)));
  CK(cudaMalloc(&c.t0, max_ctas * sizeof(unsigned long long)));
  CK(cudaMalloc(&c.t1, max_ctas * sizeof(unsigned long long)));
  CK(cudaMemset(c.t1, 0, max_ctas * sizeof(unsigned long long)));  // atomicMax target
  fill_random(reinterpret_cast<__nv_bfloat16*>(c.mat), c.mat_bytes / 2, 0x7a11);
  CK(cudaDeviceSynchronize());
  CK(cudaEventCreate(&c.e0));
  CK(cudaEventCreate(&c.e1));

  const int P16 = 16384, P8 = 8192;
  const long long MiB = 1ll << 20;
  const int ONE = 120 << 10;  // > half the SM's smem: one CTA per SM
  const int TWO = 80 << 10;   // > a third: at most two per SM
  const int nsm = c.nsm;

  // correctness, once per kind of request
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
  std::printf("correctness: %s\n", bad == 0 ? "all checks PASS" : "SOME CHECKS FAILED");

  std::vector<Config> cfgs;
  const int boxes[3] = {64, 128, 256};
  auto stage_list = [&](int box_rows) {
    std::vector<int> v;
    const int smax = max_stages(c, box_rows * 128);
    for (int s : {1, 2, 3, 4, 6, 8, 12, 16})
      if (s <= smax) v.push_back(s);
    if (v.back() != smax) v.push_back(smax);
    return v;
  };
  auto capped = [&](int box_rows, std::initializer_list<int> ss) {
    std::vector<int> v;
    const int smax = max_stages(c, box_rows * 128);
    for (int s : ss) {
      int t = std::min(s, smax);
      if (std::find(v.begin(), v.end(), t) == v.end()) v.push_back(t);
    }
    return v;
  };
  std::vector<int> main_ctas;
  for (int n : {1, 8, 16, 33, 48, 66, 96, 112, 132})
    if (n <= nsm) main_ctas.push_back(n);
  if (main_ctas.back() != nsm) main_ctas.push_back(nsm);
  // (a) tiled, the full sweep
  for (int R : boxes)
    for (int n : main_ctas)
      for (int s : stage_list(R)) cfgs.push_back({"tiled", true, n, s, R, P16, true, 8 * MiB, ONE, 1});
  // (b) contiguous, same bytes per request
  for (int R : boxes)
    for (int n : {1, 33, 66, 96, nsm})
      for (int s : stage_list(R)) cfgs.push_back({"contig", false, n, s, R, P16, true, 8 * MiB, ONE, 1});
  // pitch 8 KiB and no L2 promotion, a subset
  for (int R : boxes)
    for (int n : {1, 66, 96, nsm})
      for (int s : capped(R, {4, 8, 16, 64})) cfgs.push_back({"tiled_pitch8k", true, n, s, R, P8, true, 8 * MiB, ONE, 1});
  for (int R : boxes)
    for (int n : {1, 66, nsm})
      for (int s : capped(R, {4, 16, 64})) cfgs.push_back({"tiled_nopromo", true, n, s, R, P16, false, 8 * MiB, ONE, 1});
  // two CTAs per SM, 8 KiB boxes
  for (int s : {4, 8, 12}) {
    cfgs.push_back({"tiled_2cta", true, 2 * nsm, s, 64, P16, true, 4 * MiB, TWO, 2});
    cfgs.push_back({"contig_2cta", false, 2 * nsm, s, 64, P16, true, 4 * MiB, TWO, 2});
  }
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
  // request size beyond the three GEMM boxes: 2 and 4 KiB (16/32 rows), and 64/128 KiB 1D
  for (int R : {16, 32})
    for (int n : {1, 66, nsm})
      for (int st : capped(R, {1, 2, 4, 8, 16, 32, 64})) {
        cfgs.push_back({"tiled", true, n, st, R, P16, true, 8 * MiB, ONE, 1});
        cfgs.push_back({"contig", false, n, st, R, P16, true, 8 * MiB, ONE, 1});
      }
  for (int R : {512, 1024})
    for (int n : {1, 66, nsm})
      for (int st : capped(R, {1, 2, 3})) cfgs.push_back({"contig", false, n, st, R, P16, true, 8 * MiB, ONE, 1});
  // the first revision's producer loop (division and modulo by run-time values for stage,
  // phase and coordinates on every request): what the issuing thread's own cost does
  for (int R : boxes)
    for (int n : {1, 66, 96, nsm})
      for (int st : capped(R, {4, 8, 16, 64})) {
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
  if (argc > 2) {
    const std::string only = argv[2];
    std::vector<Config> keep;
    for (const auto& cf : cfgs)
      if (cf.variant.rfind(only, 0) == 0) keep.push_back(cf);
    cfgs.swap(keep);
  }

  FILE* f = std::fopen(out, "w");
  if (!f) { std::perror(out); return 2; }
  std::fprintf(f, "variant,ctas,stages,box_rows,box_bytes,bytes_in_flight_per_sm,gbps_total,gbps_per_sm,time_us,method\n");
  std::fflush(f);
  std::printf("%-14s %5s %3s %4s %6s %9s %9s %8s %9s %9s %8s %8s %6s %5s\n", "variant", "ctas", "S", "R", "box",
              "inflight/SM", "GB/s", "GB/s/SM", "time_us", "span_us", "end1st", "endmed", "spr%", "SMs");
  const int REPS = 15;
  const double t_start = now_s();
  // results for the summary: key variant/ctas/stages/box_rows
  std::map<std::string, double> per_sm, total;
  std::map<std::string, std::array<double, 3>> ends;
  for (const auto& cf : cfgs) {
    Result r = run(c, cf, REPS);
    if (!std::isfinite(r.ms)) {
      std::printf("%-14s %5d %3d %4d: skipped (does not fit)\n", cf.variant.c_str(), cf.ctas, cf.stages, cf.box_rows);
      continue;
    }
    const long long box_bytes = cf.box_bytes_1d ? cf.box_bytes_1d : cf.box_rows * 128ll;
    const double gbps = r.bytes / (r.ms * 1e-3) / 1e9;
    const double gbps_sm = gbps / r.sms;
    const int per = (cf.ctas + r.sms - 1) / r.sms;
    const long long inflight = (long long)cf.stages * box_bytes * per;
    char kd[128];
    std::snprintf(kd, sizeof kd, "%s/%d/%d/%d/%lld", cf.variant.c_str(), cf.ctas, cf.stages, cf.box_rows,
                  cf.per_cta_bytes >> 10);
    ends[kd] = {r.end_first_us, r.end_med_us, r.span_us};
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
                  cf.flush ? " then a 256 MiB read (L2 left holding clean lines)" : " (L2 left holding dirty lines)", REPS, r.spread, r.span_us, r.end_first_us, r.end_med_us, nvml.sm_mhz(), mix);
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
    per_sm[k] = gbps_sm;
    total[k] = gbps;
  }
  std::fclose(f);
  std::printf("# sweep took %.1f s; SM clock now %.0f MHz\n", now_s() - t_start, nvml.sm_mhz());

  // ---- condensed tables --------------------------------------------------------------
  auto get = [](std::map<std::string, double>& mp, const std::string& v, int n, int s, int R, long long kib = 8192) {
    char k[96];
    std::snprintf(k, sizeof k, "%s/%d/%d/%d/%lld", v.c_str(), n, s, R, kib);
    auto it = mp.find(k);
    return it == mp.end() ? std::string("-") : fmt(it->second, 1);
  };
  for (const char* v : {"tiled", "contig"}) {
    std::printf("\n%s, 8 KiB requests: GB/s per SM (rows: CTAs, cols: stages)\n%6s", v, "ctas");
    auto sl = stage_list(64);
    for (int s : sl) std::printf(" %7d", s);
    std::printf("\n");
    for (int n : main_ctas) {
      if (std::string(v) == "contig" && n != 1 && n != 33 && n != 66 && n != 96 && n != nsm) continue;
      std::printf("%6d", n);
      for (int s : sl) std::printf(" %7s", get(per_sm, v, n, s, 64).c_str());
      std::printf("\n");
    }
  }
  std::printf("\nTotal GB/s at %d CTAs (1 per SM), by request size and stages\n", nsm);
  std::printf("%-14s %6s", "variant", "box");
  for (int s : {1, 2, 4, 8, 16}) std::printf(" %7d", s);
  std::printf(" %7s\n", "Smax");
  for (const char* v : {"tiled", "contig", "tiled_pitch8k", "tiled_nopromo"})
    for (int R : boxes) {
      std::printf("%-14s %5dK", v, R / 8);
      for (int s : {1, 2, 4, 8, 16}) std::printf(" %7s", get(total, v, nsm, s, R).c_str());
      std::printf(" %7s\n", get(total, v, nsm, max_stages(c, R * 128), R).c_str());
    }
  std::printf("\n2 CTAs/SM (%d CTAs, 8 KiB): ", 2 * nsm);
  for (int s : {4, 8, 12})
    std::printf("S=%d tiled %s contig %s GB/s; ", s, get(total, "tiled_2cta", 2 * nsm, s, 64, 4096).c_str(),
                get(total, "contig_2cta", 2 * nsm, s, 64, 4096).c_str());
  std::printf("\n%d CTAs, 8 KiB, L2 flush by memset then read (clean L2): ", nsm);
  for (int s : {4, 16})
    std::printf("S=%d tiled %s contig %s GB/s; ", s, get(total, "tiled_rdflush", nsm, s, 64).c_str(),
                get(total, "contig_rdflush", nsm, s, 64).c_str());
  std::printf("\n\nShort kernels (8 KiB pitch and boxes): total GB/s (events) by KiB per CTA\n%-19s %4s %3s", "variant",
              "ctas", "S");
  const long long kibs[7] = {128, 256, 512, 1024, 2048, 4096, 8192};
  for (long long kb : kibs) std::printf(" %7lld", kb);
  std::printf("\n");
  for (const char* v : {"tiled_len", "contig_len", "tiled_len_rdflush", "contig_len_rdflush"})
    for (int n : {96, nsm})
      for (int s : {8, 16}) {
        std::printf("%-19s %4d %3d", v, n, s);
        for (long long kb : kibs) std::printf(" %7s", get(total, v, n, s, 64, kb).c_str());
        std::printf("\n");
      }
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
        std::string g = get(total, v, 1, st, R);
        std::printf(" %7s", g.c_str());
        if (g != "-") best = std::max(best, std::atof(g.c_str()));
      }
      for (int st : {6, 7, 12, 14})  // Smax of the big boxes
        { std::string g = get(total, v, 1, st, R); if (g != "-") best = std::max(best, std::atof(g.c_str())); }
      std::printf(" %9s\n", best > 0 ? fmt(R * 128.0 / best, 1).c_str() : "-");
    }
  std::printf("\nProducer loop and rings per CTA, 8 KiB requests: GB/s per SM (stages = all rings together)\n%-14s %5s", "variant", "ctas");
  for (int st : {4, 8, 16, 28}) std::printf(" %7d", st);
  std::printf("\n");
  for (const char* v : {"tiled", "tiled_divloop", "tiled_p2", "tiled_p4", "contig", "contig_divloop", "contig_p2", "contig_p4"})
    for (int n : {1, 66, 96, nsm}) {
      std::printf("%-14s %5d", v, n);
      for (int st : {4, 8, 16, 28}) std::printf(" %7s", get(per_sm, v, n, st, 64).c_str());
      std::printf("\n");
    }
  std::printf("\nSeveral rings, 1 CTA, 16/32 KiB: ");
  for (const char* v : {"tiled", "tiled_p2", "tiled_p4"})
    std::printf("%s 16K S8 %s S12 %s, 32K S4 %s S6 %s; ", v, get(total, v, 1, 8, 128).c_str(),
                get(total, v, 1, 12, 128).c_str(), get(total, v, 1, 4, 256).c_str(), get(total, v, 1, 6, 256).c_str());
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
  std::printf("\ncalib_tma done (%s)\n", bad == 0 ? "checks passed" : "CHECKS FAILED");
  return bad == 0 ? 0 : 1;
}
