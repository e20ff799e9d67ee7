// calib_tma_multicast: what an SM receives when a cluster's CTAs share each pipeline stage by
// TMA multicast, as a Hopper GEMM's cluster shares its A or B tile.
//
// Why: tgsim charges a multicast load `bytes / k` through L2 (and HBM) for each of the k CTAs of
// the cluster and lets the delivery of the other k - 1 slices into the CTA's shared memory cost
// nothing (docs/model.md, the memory path, point 5). Whether the SM's own L2 port (or shared
// memory's fill path) also carries those deliveries decides the K-step time of GEMMs with narrow
// tiles and large clusters (the held-out row bf16 1536x576x7168, a 2x4 cluster over 64x128 tiles,
// docs/validation.md).
//
// Kernel: the ring of calib_tma_hitmiss (tma_ops.h), one CTA per SM, in clusters of k CTAs
// (k = 1, 2, 4, 8, 16; cudaLaunchKernelEx, as many clusters as fit at once, so every CTA runs in
// one wave). A stage is a tile of T bytes (64 bf16 cols x T/128 rows, 128B swizzle, L2 promotion
// 256 B); CTA rank r of the cluster loads rows [r T/(128 k), (r+1) T/(128 k)) of it with
// cp.async.bulk.tensor.2d ... .multicast::cluster to every CTA of the cluster, so every CTA's
// stage receives the whole tile (k slices) while it fetches T / k. Lane 0 of warp 0 fills S
// stages; warp 1 waits for each stage and releases it to every CTA of the cluster, lane c on CTA
// c's empty barrier (count k; mapa + mbarrier.arrive.shared::cluster, as CUTLASS's pipelines
// release a multicast stage), since a slice is written into all of them. (A first version had
// one lane issue the k arrives with .release.cluster one after the other: 0.48-3.1 us per step,
// set by that chain, not by the data.) Tiles: `hit` mode cycles over the cluster's own 8 tiles (L2-resident after the
// first pass; all clusters together 1-4 MB), `miss` mode walks the cluster's own panels of a
// 4 GiB random bf16 matrix (every tile from HBM). The consumer records %globaltimer every kCk
// steps; the window W is the first CTA's last checkpoint, steps within W give the rates.
// Correctness: CTA 0's first stage (all k slices) is compared byte for byte with the source
// (swizzle undone), for every cluster size, hit mode and T = 16 KiB.
//
// Output: CSV case,cluster (the CTAs sharing each tile),ctas,stages,tile_bytes,slice_bytes,window_us,us_per_step,
// gbps_recv_per_sm,gbps_recv_total,gbps_fetch_total,time_us,method (GB = 1e9 B; recv: bytes
// landing in the CTAs' shared memory; fetch: bytes the CTAs request from L2, recv / k).
// With `share` as the second argument it runs, instead, the same hit-mode rings without multicast
// (16 KiB stages, 8 stages): `own_cluster` rows put k CTAs in a cluster (one GPC) and let each load
// the whole tile itself, the same tiles as its peers at about the same time; `own_group` rows do
// the same with k consecutive CTAs and no cluster (placed by the block scheduler, across GPCs).
// Where the SMs' rate exceeds what L2 can serve for k separate requests (the fetch column counts
// each CTA's whole tile), reads of one line by several SMs were combined before the L2 (the
// Nsight Compute counters of calib_tma contig_l2_share, docs/validation.md, suggest they are).
// Usage: calib_tma_multicast [calibration_tma_multicast.csv] [share]
#include "common.h"
#include "tma_ops.h"

#include <string>
#include <vector>

using namespace bench;

namespace {

constexpr int kCk = 32;      // steps between two timestamps
constexpr int kMaxCk = 32;   // 1024 steps per CTA
constexpr int kSteps = kCk * kMaxCk;
constexpr int kPitch = 16384;                // bytes per matrix row (8192 bf16)
constexpr int kTilesPerPanel = kPitch / 128; // 64-col tiles along a row
constexpr int kHitTiles = 8;                 // hit mode: tiles per cluster region

struct Params {
  int stages, tile_rows, slice_rows, miss, panels_per_cluster;
  int own;    // 1: each CTA loads the whole tile itself (no multicast); its stages are its own
  int group;  // CTAs that read the same tiles (the cluster size, or k consecutive CTAs)
  int hit_tiles;       // hit mode: tiles each group cycles over
  unsigned offset_ns;  // own_cluster: CTA rank 1 starts its ring this much after rank 0
  unsigned long long* t0;  // [ctas] globaltimer at entry
  unsigned long long* ck;  // [ctas][kMaxCk] globaltimer after step (i+1)*kCk - 1
  unsigned char* dbg;      // [tile bytes]: CTA 0's first stage
};

__global__ void __launch_bounds__(64, 1) multicast_kernel(const __grid_constant__ CUtensorMap map, Params p) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, cta = blockIdx.x;
  const uint32_t k = cluster_size(), rank = cluster_rank();
  const int cluster = cta / p.group;
  if (tid == 0) p.t0[cta] = globaltimer();
  const uint32_t raw = smem_u32(smem_raw);
  const uint32_t aligned = (raw + 1023u) & ~1023u;  // the same offset in every CTA of the cluster
  const uint32_t bars = aligned, tiles = aligned + 1024u;
  const unsigned char* tiles_g = smem_raw + (tiles - raw);
  const int S = p.stages;
  const uint32_t tile_bytes = (uint32_t)p.tile_rows * 128u, slice_bytes = (uint32_t)p.slice_rows * 128u;
  init_cluster_ring(bars, S, p.own ? 1u : k);  // one release per sharer
  if (warp == 0 && lane == 0) {
    const uint16_t mask = (uint16_t)((1u << k) - 1u);
    int s = 0, j = 0;
    uint32_t ph = 1;
    if (p.offset_ns > 0 && rank == 1) {  // a phase offset between the two readers of each tile
      const unsigned long long t = globaltimer();
      while (globaltimer() < t + p.offset_ns) {
      }
    }
    for (int it = 0; it < kSteps; ++it) {
      mbar_wait(bars + 8u * (S + s), ph);
      mbar_arrive_expect_tx(bars + 8u * s, tile_bytes);
      int col, row;
      if (p.miss) {  // the cluster's own panels, tile after tile
        col = (j % kTilesPerPanel) * 64;
        row = (cluster * p.panels_per_cluster + j / kTilesPerPanel) * p.tile_rows;
      } else {       // the cluster's own 8 tiles, round and round
        col = (j % p.hit_tiles) * 64;
        row = cluster * p.tile_rows;
      }
      if (p.own)
        tma_load_2d(tiles + (uint32_t)s * tile_bytes, &map, col, row, bars + 8u * s);
      else
        tma_load_2d_multicast(tiles + (uint32_t)s * tile_bytes + rank * slice_bytes, &map, col,
                              row + (int)rank * p.slice_rows, bars + 8u * s, mask);
      ++j;
      if (++s == S) { s = 0; ph ^= 1; }
    }
  } else if (warp == 1) {
    int s = 0;
    uint32_t ph = 0;
    for (int it = 0; it < kSteps; ++it) {
      mbar_wait(bars + 8u * s, ph);
      if (p.dbg && cta == 0 && it == 0)
        for (uint32_t i = lane; i < tile_bytes; i += 32) p.dbg[i] = tiles_g[i];
      __syncwarp();
      if (p.own) {
        if (lane == 0) mbar_arrive(bars + 8u * (S + s));
      } else if ((uint32_t)lane < k) {
        mbar_arrive_cluster(bars + 8u * (S + s), (uint32_t)lane);  // lane c releases CTA c
      }
      if (lane == 0 && (it + 1) % kCk == 0) p.ck[cta * kMaxCk + (it + 1) / kCk - 1] = globaltimer();
      if (++s == S) { s = 0; ph ^= 1; }
    }
  }
  __syncthreads();
  cluster_sync();  // no CTA leaves while a peer may still write into it or arrive on its barriers
}

struct Case {
  int cluster, tile_bytes, stages;
  bool miss;
  int ctas = 0;   // 0: as many clusters as fit at once
  int own = 0;    // share mode: 1 own_cluster (k CTAs per cluster), 2 own_group (k CTAs, no cluster)
  int group = 0;  // own_group: CTAs reading the same tiles
  int hit_tiles = kHitTiles;
  unsigned offset_ns = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "calibration_tma_multicast.csv";
  const int nsm = open_device0();
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  Nvml nvml(0);
  load_tensor_map_encoder();
  CK(cudaFuncSetAttribute(multicast_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)prop.sharedMemPerBlockOptin));
  CK(cudaFuncSetAttribute(multicast_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));

  const size_t a_bytes = 4ull << 30, flush_bytes = 256ull << 20;
  const int rows_total = (int)(a_bytes / kPitch);
  unsigned char *mat, *dbg;
  void* flush;
  unsigned long long *t0, *ck;
  CK(cudaMalloc(&mat, a_bytes));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMalloc(&dbg, 64 * 1024));
  CK(cudaMalloc(&t0, nsm * sizeof(unsigned long long)));
  CK(cudaMalloc(&ck, (size_t)nsm * kMaxCk * sizeof(unsigned long long)));
  fill_random(reinterpret_cast<__nv_bfloat16*>(mat), a_bytes / 2, 0x51);
  CK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));

  const auto smem_of = [](const Case& cs) { return cs.stages * cs.tile_bytes + 2048; };
  const auto config_of = [&](const Case& cs, int ctas, cudaLaunchAttribute* attr) {
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(ctas);
    cfg.blockDim = dim3(64);
    cfg.dynamicSmemBytes = smem_of(cs);
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cs.own == 2 ? 1 : cs.cluster;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cfg;
  };
  const auto ctas_of = [&](const Case& cs) {
    if (cs.ctas > 0) return cs.ctas;
    cudaLaunchAttribute attr[1];
    cudaLaunchConfig_t cfg = config_of(cs, cs.cluster, attr);
    int clusters = 0;
    CK(cudaOccupancyMaxActiveClusters(&clusters, multicast_kernel, &cfg));
    return std::min(clusters * cs.cluster, nsm / cs.cluster * cs.cluster);
  };
  const auto map_of = [&](const Case& cs) {
    return make_map(mat, kPitch / 2, (uint64_t)rows_total, (uint32_t)(cs.tile_bytes / 128 / (cs.own ? 1 : cs.cluster)),
                    CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  };
  const auto params_of = [&](const Case& cs, int ctas) {
    Params p{};
    p.stages = cs.stages;
    p.tile_rows = cs.tile_bytes / 128;
    p.slice_rows = cs.own ? p.tile_rows : p.tile_rows / cs.cluster;
    p.own = cs.own ? 1 : 0;
    p.group = cs.own == 2 ? cs.group : cs.cluster;
    p.hit_tiles = cs.hit_tiles;
    p.offset_ns = cs.offset_ns;
    p.miss = cs.miss ? 1 : 0;
    p.panels_per_cluster = (kSteps + kTilesPerPanel - 1) / kTilesPerPanel;
    const int clusters = ctas / p.group;
    if ((long long)clusters * (cs.miss ? p.panels_per_cluster : 1) * p.tile_rows > rows_total) {
      std::fprintf(stderr, "case k=%d T=%d: the matrix is too small\n", cs.cluster, cs.tile_bytes);
      std::exit(2);
    }
    p.t0 = t0;
    p.ck = ck;
    return p;
  };
  const auto launch = [&](const Case& cs, int ctas, const CUtensorMap& map, const Params& p) {
    cudaLaunchAttribute attr[1];
    cudaLaunchConfig_t cfg = config_of(cs, ctas, attr);
    CK(cudaLaunchKernelEx(&cfg, multicast_kernel, map, p));
  };

  // correctness: CTA 0's first stage holds the whole tile (its own slice and its peers')
  long long bad = 0;
  const bool share = argc > 2 && std::string(argv[2]) == "share";
  std::vector<Case> checks;
  for (int k : {1, 2, 4, 8, 16}) checks.push_back({k, 16384, 4, false});
  if (share) checks = {{4, 16384, 4, false, 0, 1}, {1, 16384, 4, false, 0, 2, 4}};
  for (const Case& cs : checks) {
    const int k = cs.cluster;
    const int ctas = ctas_of(cs);
    Params p = params_of(cs, ctas);
    p.dbg = dbg;
    CK(cudaMemset(dbg, 0x5A, cs.tile_bytes));
    launch(cs, ctas, map_of(cs), p);
    CKLAUNCH();
    CK(cudaDeviceSynchronize());
    std::vector<unsigned char> d(cs.tile_bytes);
    CK(cudaMemcpy(d.data(), dbg, d.size(), cudaMemcpyDeviceToHost));
    const long long b = compare_swizzled_box(d.data(), mat, kPitch, 0, 0, cs.tile_bytes / 128);
    std::printf("check: cluster %2d (%d CTAs): CTA 0's first 16 KiB stage: %lld mismatches -> %s\n", k, ctas, b,
                b == 0 ? "PASS" : "FAIL");
    bad += b;
  }

  std::vector<Case> cases;
  if (share) {
    for (int k : {1, 2, 4, 8, 16}) cases.push_back({k, 16384, 8, false});       // multicast, for reference
    for (int k : {2, 4, 8, 16}) cases.push_back({k, 16384, 8, false, 0, 1});    // own_cluster
    for (int k : {2, 4, 8, 16, 33}) cases.push_back({1, 16384, 8, false, 0, 2, k});  // own_group
    // own_cluster pairs, rank 1 offset by d ns, cycling over 24 tiles (3.5 us at the step floor, so
    // offsets up to 1.6 us never meet the other reader's previous round)
    for (unsigned d : {0u, 50u, 100u, 200u, 400u, 800u, 1600u}) cases.push_back({2, 16384, 8, false, 0, 1, 0, 24, d});
  }
  for (int T : {8192, 16384, 32768})
    if (!share)
    for (int k : {1, 2, 4, 8, 16}) {
      if (T / 128 / k < 8) continue;  // slices of at least 8 rows (one 128B-swizzle period)
      cases.push_back({k, T, T == 32768 ? 6 : 8, false});
    }
  if (!share) for (int k : {1, 2, 4, 8}) cases.push_back({k, 16384, 8, true});
  // the cluster-8 runs fill fewer SMs: the same CTA count without clusters
  if (!share) {
    const int c8 = ctas_of({8, 16384, 8, false});
    cases.push_back({1, 16384, 8, false, c8});
    cases.push_back({1, 16384, 8, true, c8});
  }

  FILE* f = std::fopen(out, "w");
  if (!f) { std::perror(out); return 2; }
  std::fprintf(f, "case,cluster,ctas,stages,tile_bytes,slice_bytes,window_us,us_per_step,gbps_recv_per_sm,gbps_recv_total,"
                  "gbps_fetch_total,time_us,method\n");
  std::printf("%-5s %3s %4s %2s %6s %6s %9s %9s %9s %9s %9s %9s\n", "case", "k", "ctas", "S", "T", "slice", "window_us",
              "us/step", "recv/SM", "recv all", "fetch all", "event_us");
  const int REPS = 9;
  for (const Case& cs : cases) {
    const int ctas = ctas_of(cs);
    const Params p = params_of(cs, ctas);
    const CUtensorMap map = map_of(cs);
    std::vector<unsigned long long> a(ctas), b((size_t)ctas * kMaxCk);
    std::vector<double> win, steps_s, ev;
    for (int r = -2; r < REPS; ++r) {
      CK(cudaMemsetAsync(flush, (r + 3) & 0xff, flush_bytes));
      CK(cudaEventRecord(e0));
      launch(cs, ctas, map, p);
      CKLAUNCH();
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      if (r < 0) continue;
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      CK(cudaMemcpy(a.data(), t0, ctas * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(b.data(), ck, b.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      const unsigned long long tmin = *std::min_element(a.begin(), a.end());
      double w = 1e30;
      for (int c = 0; c < ctas; ++c) w = std::min(w, (double)(b[(size_t)c * kMaxCk + kMaxCk - 1] - tmin));
      double steps = 0;
      for (int c = 0; c < ctas; ++c) steps += tiles_by(b, c, kMaxCk, kMaxCk, kCk, a[c], tmin, w);
      win.push_back(w * 1e-3);
      steps_s.push_back(steps / w);  // steps per ns, all CTAs
      ev.push_back(ms * 1e3);
    }
    const double rate = median(steps_s), window = median(win);
    const double us_step = ctas / rate * 1e-3;
    const double recv_sm = cs.tile_bytes / (us_step * 1e3), recv = recv_sm * ctas;
    const double fetch = cs.own ? recv : recv / cs.cluster;
    std::string name = cs.own == 1 ? "own_cluster" : cs.own == 2 ? "own_group" : cs.miss ? "miss" : "hit";
    if (cs.hit_tiles != kHitTiles) name += "_t" + std::to_string(cs.hit_tiles) + "_off" + std::to_string(cs.offset_ns);
    const int sharers = cs.own == 2 ? cs.group : cs.cluster;
    char how[300];
    if (cs.own)
      std::snprintf(how, sizeof how,
                    "no multicast: %d CTAs (%s) read the same tiles, each loading the whole tile itself by "
                    "cp.async.bulk.tensor.2d into its own stage and releasing it locally; rank 1 starts %u ns after "
                    "rank 0",
                    sharers, cs.own == 1 ? "one cluster, so one GPC" : "consecutive blockIdx, no cluster", cs.offset_ns);
    else
      std::snprintf(how, sizeof how,
                    "each CTA loading %d rows of it by cp.async.bulk.tensor.2d...multicast::cluster to every CTA of its "
                    "cluster, 1 consumer warp releasing each stage to every CTA of the cluster",
                    cs.tile_bytes / 128 / cs.cluster);
    char m[1000];
    std::snprintf(m, sizeof m,
                  "2D TMA ring: clusters of %d CTAs (one per SM, %d CTAs, one wave); a stage is a tile of 64 bf16 "
                  "cols x %d rows (%d B; 128B swizzle; L2 promotion 256B); %s; %s; %d stages; 1 producer thread "
                  "(no compute); %d steps; rates over the window until the first CTA ends (%.1f us); 256 MiB memset "
                  "before each rep; median of %d reps; SM clock after %.0f MHz",
                  cs.own == 2 ? 1 : cs.cluster, ctas, cs.tile_bytes / 128, cs.tile_bytes, how,
                  cs.miss ? "each group walks its own panels of a 4 GiB random bf16 matrix (L2 misses)"
                          : cs.hit_tiles == kHitTiles ? "each group cycles over its own 8 tiles (L2-resident after the first pass)"
                                                      : "each group cycles over its own 24 tiles (L2-resident after the first pass)",
                  cs.stages, kSteps, window, REPS, nvml.sm_mhz());
    const int slice = cs.own ? cs.tile_bytes : cs.tile_bytes / cs.cluster;
    std::fprintf(f, "%s,%d,%d,%d,%d,%d,%s,%s,%s,%s,%s,%s,%s\n", name.c_str(), sharers, ctas, cs.stages, cs.tile_bytes,
                 slice, fmt(window, 2).c_str(), fmt(us_step, 4).c_str(), fmt(recv_sm, 1).c_str(),
                 fmt(recv, 1).c_str(), fmt(fetch, 1).c_str(), fmt(median(ev), 2).c_str(), csv_field(m).c_str());
    std::fflush(f);
    std::printf("%-11s %3d %4d %2d %6d %6d %9.2f %9.4f %9.1f %9.1f %9.1f %9.2f\n", name.c_str(), sharers, ctas,
                cs.stages, cs.tile_bytes, slice, window, us_step, recv_sm, recv, fetch, median(ev));
  }
  std::fclose(f);
  std::printf("calib_tma_multicast done (%s)\n", bad == 0 ? "checks passed" : "CHECKS FAILED");
  return bad == 0 ? 0 : 1;
}
