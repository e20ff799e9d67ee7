// calib_gemm_feed: the operand feed of a Hopper warp-specialised GEMM, without its MMAs.
//
// Why: the cuBLAS kernel nvjet_sm90_tst_128x64_64x8_1x2 steps through K at the same rate for
// 256x4096 and 1024x1024 when L2 holds its operands (0.19 us per 64 of K, small_gemm_kscan.csv,
// `warm`), but after the L2 flush the 256x4096 one takes 0.29 us per step and the 1024x1024 one
// still 0.19 (`flushed`, both runs). tgsim predicts the two alike (docs/validation.md, GEMM). This
// program replays only the kernel's data movement, with the tile order and cluster multicast of
// tgsim's lowering of that kernel, to tell whether the memory system alone makes the difference
// (then it is a property of the HBM/L2 path to model) or the interplay with the MMAs does.
//
// Kernel: one CTA per output tile (tiles_m x tiles_n = 128 CTAs, one wave, one per SM), clusters
// of k CTAs (k = 1 or 2) taking k consecutive n tiles of one m tile. Per K step (64 columns,
// 128 B), a stage holds the A tile (128 rows of library A, the M x K operand with K contiguous)
// and the B tile (64 rows of the N x K operand): CTA rank r of the cluster loads rows
// [r 128/k, (r+1) 128/k) of the A tile by cp.async.bulk.tensor.2d .multicast::cluster to every
// CTA of the cluster, and its own B tile by a plain 2D TMA load (128B swizzle, L2 promotion
// 256 B, as tgsim's lowering: A multicast, B own). 8 stages; lane 0 of warp 0 is the producer;
// `consumers` warps take the stages in turn (warp 1 + i takes steps i, i + consumers, ...): each
// waits for its stage, holds it `hold_cycles` (clock64; 0 = release at once, standing in for the
// MMAs otherwise) and releases it to every CTA of the cluster (one arrive per CTA, as
// calib_tma_multicast). One consumer warp steps no faster than about 0.25 us (the release to a
// peer CTA costs its warp some 450 cycles, first run on the H100), which hides the memory system
// in the warm rows; four overlap their releases. Clusters are numbered n first or m first (`order`); `nfirst`/`mfirst`
// follow CUTLASS's raster heuristic as tgsim does (m first only when there are more n tiles than
// m tiles), `alt` is the other order.
// Timing: `flushed` = a 256 MiB memset before each launch (L2 full of dirty lines, the method of
// traces/h200/gemm_settled.csv); `warm` = right after the same launch (operands left in L2 where
// they fit). CUDA events around the kernel (median of 15 launches after 2 warm-ups) and the
// in-kernel span (globaltimer, first CTA start to last CTA end; median).
// Correctness: CTA 0's first stage (A tile, both slices, and B tile) is compared byte for byte
// with the source (swizzle undone) for k = 1 and 2.
//
// Output: CSV case,m,n,k,tiles_m,tiles_n,cluster,order,stages,hold_cycles,l2,ctas,event_us,span_us,
// step_us,unique_mb,consumers,method (m, n, k as the library runs them: C = A[m x k] B[n x k]^T; step_us =
// span / k steps; unique_mb = A + B bytes).
// With `ncu` as the second argument: only the K = 4096 flushed cases without hold, four consumer
// warps (clusters of 2 and 1), 3 timed launches each, for a run under Nsight Compute.
// Usage: calib_gemm_feed [calibration_gemm_feed.csv] [ncu]
#include "common.h"
#include "tma_ops.h"

#include <string>
#include <vector>

using namespace bench;

namespace {

constexpr int kBM = 128, kBN = 64;  // tile rows of A and of B; a K step is 64 bf16 columns = 128 B
constexpr int kABytes = kBM * 128, kBBytes = kBN * 128, kStageBytes = kABytes + kBBytes;
constexpr int kStages = 8;

struct Params {
  int tiles_m, tiles_n, k_steps;
  int n_first;      // 1: consecutive clusters walk the n tiles of an m tile first
  int hold_cycles;  // the consumer holds each stage this long before releasing it
  int consumers;    // consumer warps, taking the steps in turn
  unsigned long long* t;  // [ctas][2]: globaltimer at entry and at exit
  unsigned char* dbg;     // CTA 0's first stage (A tile, then B tile)
};

constexpr int kMaxConsumers = 4;

__global__ void __launch_bounds__(32 * (1 + kMaxConsumers), 1)
    feed_kernel(const __grid_constant__ CUtensorMap amap, const __grid_constant__ CUtensorMap bmap, Params p) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, cta = blockIdx.x;
  const uint32_t k = cluster_size(), rank = cluster_rank();
  if (tid == 0) p.t[2 * cta] = globaltimer();
  const uint32_t raw = smem_u32(smem_raw);
  const uint32_t aligned = (raw + 1023u) & ~1023u;  // the same offset in every CTA of the cluster
  const uint32_t bars = aligned, stage0 = aligned + 1024u;
  const int cluster = cta / (int)k, pairs = p.tiles_n / (int)k;
  const int m = p.n_first ? cluster / pairs : cluster % p.tiles_m;
  const int n = (p.n_first ? cluster % pairs : cluster / p.tiles_m) * (int)k + (int)rank;
  init_cluster_ring(bars, kStages, k);  // every CTA of the cluster releases each stage
  if (warp == 0 && lane == 0) {
    const uint16_t mask = (uint16_t)((1u << k) - 1u);
    const int slice_rows = kBM / (int)k;
    int s = 0;
    uint32_t ph = 1;
    for (int j = 0; j < p.k_steps; ++j) {
      mbar_wait(bars + 8u * (kStages + s), ph);
      const uint32_t full = bars + 8u * s, st = stage0 + (uint32_t)s * kStageBytes;
      mbar_arrive_expect_tx(full, kStageBytes);
      if (k == 1)
        tma_load_2d(st, &amap, j * 64, m * kBM, full);
      else
        tma_load_2d_multicast(st + rank * (uint32_t)slice_rows * 128u, &amap, j * 64, m * kBM + (int)rank * slice_rows,
                              full, mask);
      tma_load_2d(st + kABytes, &bmap, j * 64, n * kBN, full);
      if (++s == kStages) { s = 0; ph ^= 1; }
    }
  } else if (warp >= 1 && warp <= p.consumers) {
    for (int j = warp - 1; j < p.k_steps; j += p.consumers) {
      const int s = j % kStages;
      const uint32_t ph = (uint32_t)(j / kStages) & 1u;
      mbar_wait(bars + 8u * s, ph);
      if (p.dbg && cta == 0 && j == 0) {
        const unsigned char* st = smem_raw + (stage0 - raw);
        for (int i = lane; i < kStageBytes; i += 32) p.dbg[i] = st[i];
      }
      if (p.hold_cycles > 0 && lane == 0) {
        const long long c0 = clock64();
        while (clock64() - c0 < p.hold_cycles) {
        }
      }
      __syncwarp();
      if (k == 1) {
        if (lane == 0) mbar_arrive(bars + 8u * (kStages + s));
      } else if ((uint32_t)lane < k) {
        mbar_arrive_cluster(bars + 8u * (kStages + s), (uint32_t)lane);  // lane c releases CTA c
      }
    }
  }
  __syncthreads();
  cluster_sync();  // no CTA leaves while a peer may still write into it or arrive on its barriers
  if (tid == 0) p.t[2 * cta + 1] = globaltimer();
}

struct Case {
  int m, n, k, cluster, hold;
  int order;  // 0: CUTLASS's heuristic, 1: the other order
  bool warm;
  int consumers = kMaxConsumers;
};

}  // namespace

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "calibration_gemm_feed.csv";
  const bool ncu = argc > 2 && std::string(argv[2]) == "ncu";
  const int timed_reps = ncu ? 3 : 15;
  const int nsm = open_device0();
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  Nvml nvml(0);
  load_tensor_map_encoder();
  const int smem = kStages * kStageBytes + 2048;
  CK(cudaFuncSetAttribute(feed_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));

  const size_t a_cap = 128ull << 20, b_cap = 64ull << 20, flush_bytes = 256ull << 20;
  unsigned char *a, *b, *dbg;
  void* flush;
  unsigned long long* t;
  CK(cudaMalloc(&a, a_cap));
  CK(cudaMalloc(&b, b_cap));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMalloc(&dbg, kStageBytes));
  CK(cudaMalloc(&t, 2 * (size_t)nsm * sizeof(unsigned long long)));
  fill_random(reinterpret_cast<__nv_bfloat16*>(a), a_cap / 2, 0x61);
  fill_random(reinterpret_cast<__nv_bfloat16*>(b), b_cap / 2, 0x62);
  CK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));

  const auto heuristic_n_first = [](int tiles_m, int tiles_n) { return tiles_n > tiles_m ? 0 : 1; };
  const auto run = [&](const Case& cs, unsigned char* dump, std::vector<double>* ev, std::vector<double>* span) {
    const int tiles_m = cs.m / kBM, tiles_n = cs.n / kBN, ctas = tiles_m * tiles_n;
    if ((size_t)cs.m * cs.k * 2 > a_cap || (size_t)cs.n * cs.k * 2 > b_cap || ctas > nsm || tiles_n % cs.cluster) {
      std::fprintf(stderr, "case %dx%dx%d does not fit\n", cs.m, cs.n, cs.k);
      std::exit(2);
    }
    const CUtensorMap amap = make_map(a, cs.k, cs.m, kBM / cs.cluster, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
    const CUtensorMap bmap = make_map(b, cs.k, cs.n, kBN, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
    Params p{};
    p.tiles_m = tiles_m;
    p.tiles_n = tiles_n;
    p.k_steps = cs.k / 64;
    p.n_first = heuristic_n_first(tiles_m, tiles_n) ^ cs.order;
    p.hold_cycles = cs.hold;
    p.consumers = cs.consumers;
    p.t = t;
    p.dbg = dump;
    cudaLaunchConfig_t cfg{};
    cudaLaunchAttribute attr[1];
    cfg.gridDim = dim3(ctas);
    cfg.blockDim = dim3(32 * (1 + cs.consumers));
    cfg.dynamicSmemBytes = smem;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cs.cluster;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    const int reps = ev ? timed_reps : 1;
    std::vector<unsigned long long> h(2 * (size_t)ctas);
    for (int r = ev ? -2 : 0; r < reps; ++r) {
      if (!cs.warm) CK(cudaMemsetAsync(flush, (r + 3) & 0xff, flush_bytes));
      CK(cudaEventRecord(e0));
      CK(cudaLaunchKernelEx(&cfg, feed_kernel, amap, bmap, p));
      CKLAUNCH();
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      if (r < 0 || !ev) continue;
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      CK(cudaMemcpy(h.data(), t, h.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      unsigned long long lo = ~0ull, hi = 0;
      for (int c = 0; c < ctas; ++c) {
        lo = std::min(lo, h[2 * c]);
        hi = std::max(hi, h[2 * c + 1]);
      }
      ev->push_back(ms * 1e3);
      span->push_back((double)(hi - lo) * 1e-3);
    }
    return p.n_first;
  };

  // correctness: CTA 0 (m tile 0, n tile 0) holds the whole A tile and its B tile after its first stage
  long long bad = 0;
  for (int k : {1, 2}) {
    CK(cudaMemset(dbg, 0x5A, kStageBytes));
    run({4096, 256, 1024, k, 0, 0, true}, dbg, nullptr, nullptr);
    CK(cudaDeviceSynchronize());
    std::vector<unsigned char> d(kStageBytes);
    CK(cudaMemcpy(d.data(), dbg, d.size(), cudaMemcpyDeviceToHost));
    const long long ba = compare_swizzled_box(d.data(), a, 1024 * 2, 0, 0, kBM);
    const long long bb = compare_swizzled_box(d.data() + kABytes, b, 1024 * 2, 0, 0, kBN);
    std::printf("check: cluster %d: CTA 0's first stage: A %lld, B %lld mismatches -> %s\n", k, ba, bb,
                ba + bb == 0 ? "PASS" : "FAIL");
    bad += ba + bb;
  }

  // library (m, n): 128 tiles of 128 x 64 each, from 64 m tiles x 2 n tiles to 2 x 64
  const int shapes[6][2] = {{8192, 128}, {4096, 256}, {2048, 512}, {1024, 1024}, {512, 2048}, {256, 4096}};
  std::vector<Case> cases;
  if (ncu)
    for (const auto& s : shapes)
      for (int cl : {2, 1}) cases.push_back({s[0], s[1], 4096, cl, 0, 0, false});
  if (!ncu)
    for (const auto& s : shapes) {
      for (int kk : {1024, 2048, 4096, 8192})
        for (bool warm : {false, true}) cases.push_back({s[0], s[1], kk, 2, 0, 0, warm});
      for (bool warm : {false, true}) {
        cases.push_back({s[0], s[1], 4096, 1, 0, 0, warm});       // no cluster, no multicast
        cases.push_back({s[0], s[1], 4096, 2, 0, 1, warm});       // the other tile order
        cases.push_back({s[0], s[1], 4096, 2, 0, 0, warm, 1});    // one consumer warp
        cases.push_back({s[0], s[1], 4096, 2, 256, 0, warm, 1});  // one consumer warp holding 256 cycles
      }
    }

  FILE* f = std::fopen(out, "w");
  if (!f) { std::perror(out); return 2; }
  std::fprintf(f, "case,m,n,k,tiles_m,tiles_n,cluster,order,stages,hold_cycles,l2,ctas,event_us,span_us,step_us,"
                  "unique_mb,consumers,method\n");
  std::printf("%6s %6s %6s %2s %10s %5s %2s %7s %9s %9s %8s\n", "m", "n", "k", "cl", "order", "hold", "w", "l2",
              "event_us", "span_us", "step_us");
  for (const Case& cs : cases) {
    std::vector<double> ev, span;
    const int n_first = run(cs, nullptr, &ev, &span);
    const int tiles_m = cs.m / kBM, tiles_n = cs.n / kBN;
    const double sp = median(span), steps = cs.k / 64.0;
    const char* order = cs.order ? (n_first ? "alt_nfirst" : "alt_mfirst") : (n_first ? "nfirst" : "mfirst");
    const char* l2 = cs.warm ? "warm" : "flushed";
    char name[64];
    std::snprintf(name, sizeof name, "%dx%dx%d_c%d_%s_h%d_w%d_%s", cs.m, cs.n, cs.k, cs.cluster, order, cs.hold,
                  cs.consumers, l2);
    char m[900];
    std::snprintf(m, sizeof m,
                  "operand feed of a 128x64x64-tile warp-specialised GEMM without MMAs: %d CTAs (one per tile, one "
                  "wave), clusters of %d along n (A tile multicast in %d slices, B tile own), clusters numbered %s "
                  "first; per K step a 16 KiB A box and an 8 KiB B box by 2D TMA (128B swizzle, L2 promotion 256B) "
                  "from random bf16 A[m x k] and B[n x k] (K contiguous); %d stages; 1 producer thread, %d consumer "
                  "warp(s) taking the stages in turn, each holding its stage %d cycles (clock64) and releasing it to "
                  "every CTA of its cluster; %s; CUDA "
                  "events around the kernel and in-kernel span (globaltimer, first CTA start to last CTA end), "
                  "median of %d launches after 2 warm-ups; SM clock after %.0f MHz (NVML)",
                  tiles_m * tiles_n, cs.cluster, cs.cluster, n_first ? "n" : "m", kStages, cs.consumers, cs.hold,
                  cs.warm ? "L2 warm: right after the same launch, no flush"
                          : "L2 flushed by a 256 MiB memset before each launch (L2 left holding dirty lines)",
                  timed_reps, nvml.sm_mhz());
    const double unique_mb = ((double)cs.m + cs.n) * cs.k * 2 / 1e6;
    std::fprintf(f, "%s,%d,%d,%d,%d,%d,%d,%s,%d,%d,%s,%d,%s,%s,%s,%s,%d,%s\n", name, cs.m, cs.n, cs.k, tiles_m,
                 tiles_n, cs.cluster, order, kStages, cs.hold, l2, tiles_m * tiles_n, fmt(median(ev), 3).c_str(),
                 fmt(sp, 3).c_str(), fmt(sp / steps, 4).c_str(), fmt(unique_mb, 2).c_str(), cs.consumers,
                 csv_field(m).c_str());
    std::fflush(f);
    std::printf("%6d %6d %6d %2d %10s %5d %2d %7s %9.3f %9.3f %8.4f\n", cs.m, cs.n, cs.k, cs.cluster, order, cs.hold,
                cs.consumers, l2, median(ev), sp, sp / steps);
  }
  std::fclose(f);
  std::printf("calib_gemm_feed done (%s)\n", bad == 0 ? "checks passed" : "CHECKS FAILED");
  return bad == 0 ? 0 : 1;
}
