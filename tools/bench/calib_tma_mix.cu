// calib_tma_mix: does a TMA box that lies wholly outside its tensor (zero-filled, nothing read
// from memory) take bandwidth from in-range HBM loads running at the same time?
//
// Why: calib_tma's tiled_oob rows (every SM streaming only such boxes) reach 3.8-4.4 TB/s
// "equivalent", about HBM's rate, and 66 CTAs reach nearly as much as 132, so zero-filled boxes
// hit some GPU-wide limit. Whether that limit is HBM's own (zero-filled boxes then delay real
// loads, as tgsim models them) or a separate one (then they delay nothing but themselves)
// decides what the out-of-range CTA of a 2x1 cluster over a grouped GEMM's edge costs.
//
// Kernel: calib_tma's ring (tma_ops.h): one CTA per SM (>= 120 KiB of dynamic shared memory),
// lane 0 of warp 0 issues 2D TMA boxes of 64 bf16 cols x R rows (128B swizzle, L2 promotion
// 256 B) into S stages, warp 1 releases each stage at once (no compute); every CTA walks 8 MiB
// of boxes along its own panels of a 2 GiB random bf16 matrix (row pitch 16 KiB). An
// "in-range" CTA reads them through a tensor map of the whole matrix; an "oob" CTA issues the
// same coordinates through a map of only 64 rows, so each of its boxes (but its first panel
// for CTA 0) is zero-filled. The two kinds are interleaved over the CTA index (so over SMs and
// GPCs). The consumer records %globaltimer every kCk tiles.
//
// Each case: n_in in-range CTAs with n_oob oob CTAs. Window W = the first CTA end (from the
// first CTA start): every CTA is streaming throughout it. Per kind, bytes delivered within W
// (checkpoints interpolated) / W = its rate while both run (gbps_in, gbps_oob). Cases pair each
// mix with the same CTAs of one kind alone.
//
// Timing: 256 MiB cudaMemsetAsync (L2 flush, dirty) before each rep, 2 warm-ups, median over
// 9 reps of each figure. Correctness: shared memory poisoned, the first box of the first
// in-range CTA compared byte for byte with the source (128B swizzle undone) and the second
// box of an oob CTA checked to be all zeros.
//
// Output: CSV case,ctas_in,ctas_oob,stages,box_bytes,window_us,gbps_in,gbps_oob,gbps_total,
// end_in_us,end_oob_us,time_us,method (GB = 1e9 B; *_end = median CTA end of the kind).
// Usage: calib_tma_mix [calibration_tma_mix.csv]
#include "common.h"
#include "tma_ops.h"

#include <string>
#include <vector>

using namespace bench;

namespace {

constexpr int kCk = 32;       // tiles between two timestamps
constexpr int kMaxCk = 64;    // timestamps per CTA (8 MiB / 8 KiB / 32 = 32)
constexpr int kPoison = 0xA5;

struct Params {
  int n_tiles, stages, box_rows, box_bytes, tiles_per_panel, panels_per_cta, smem_bytes;
  const unsigned char* oob;        // [ctas] 1 = read through the 64-row map
  unsigned long long* t0;          // [ctas] globaltimer at entry
  unsigned long long* ck;          // [ctas][kMaxCk] globaltimer after tile (i+1)*kCk - 1
  unsigned char* dbg;              // [2][box_bytes]: box 0 of CTA dbg_in, box 1 of CTA dbg_oob
  int dbg_in, dbg_oob;
};

__global__ void __launch_bounds__(64, 1)
    mix_kernel(const __grid_constant__ CUtensorMap in_map, const __grid_constant__ CUtensorMap oob_map, Params p) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, cta = blockIdx.x;
  if (tid == 0) p.t0[cta] = globaltimer();
  const uint32_t raw = smem_u32(smem_raw);
  const uint32_t aligned = (raw + 1023u) & ~1023u;
  const uint32_t bars = aligned, tiles = aligned + 1024u;
  const unsigned char* tiles_g = smem_raw + (tiles - raw);
  const int S = p.stages;
  if (p.dbg) {
    for (int i = tid * 4; i + 4 <= p.smem_bytes; i += blockDim.x * 4)
      *reinterpret_cast<uint32_t*>(smem_raw + i) = 0x01010101u * kPoison;
  }
  __syncthreads();
  if (tid == 0) {
    for (int s = 0; s < 2 * S; ++s) mbar_init(bars + 8u * s, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const CUtensorMap* map = p.oob[cta] ? &oob_map : &in_map;
  if (warp == 0 && lane == 0) {
    int s = 0, k = 0, row = cta * p.panels_per_cta * p.box_rows;
    uint32_t ph = 1;
    const int cols = p.tiles_per_panel * 64;
    for (int it = 0; it < p.n_tiles; ++it) {
      mbar_wait(bars + 8u * (S + s), ph);
      mbar_arrive_expect_tx(bars + 8u * s, (uint32_t)p.box_bytes);
      tma_load_2d(tiles + (uint32_t)s * (uint32_t)p.box_bytes, map, k, row, bars + 8u * s);
      k += 64;
      if (k >= cols) { k = 0; row += p.box_rows; }
      if (++s == S) { s = 0; ph ^= 1; }
    }
  } else if (warp == 1) {
    int s = 0;
    uint32_t ph = 0;
    for (int it = 0; it < p.n_tiles; ++it) {
      mbar_wait(bars + 8u * s, ph);
      const int slot = (cta == p.dbg_in && it == 0) ? 0 : (cta == p.dbg_oob && it == 1) ? 1 : -1;
      if (p.dbg && slot >= 0) {
        const uint4* from = reinterpret_cast<const uint4*>(tiles_g + (size_t)s * p.box_bytes);
        uint4* to = reinterpret_cast<uint4*>(p.dbg + (size_t)slot * p.box_bytes);
        for (int i = lane; i < p.box_bytes / 16; i += 32) to[i] = from[i];
      }
      __syncwarp();
      if (lane == 0) {
        mbar_arrive(bars + 8u * (S + s));
        if ((it + 1) % kCk == 0) p.ck[cta * kMaxCk + (it + 1) / kCk - 1] = globaltimer();
      }
      if (++s == S) { s = 0; ph ^= 1; }
    }
  }
}

struct Case {
  int n_in, n_oob, stages, box_rows;
};

struct Figures {
  double window_us, gbps_in, gbps_oob, end_in_us, end_oob_us, event_us;
};

}  // namespace

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "calibration_tma_mix.csv";
  const int nsm = open_device0();
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  Nvml nvml(0);
  load_tensor_map_encoder();
  CK(cudaFuncSetAttribute(mix_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)prop.sharedMemPerBlockOptin));

  const size_t mat_bytes = 2ull << 30, flush_bytes = 256ull << 20;
  const int pitch = 16384;
  const long long per_cta = 8ll << 20;
  unsigned char *mat, *oob, *dbg;
  void* flush;
  unsigned long long *t0, *ck;
  CK(cudaMalloc(&mat, mat_bytes));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMalloc(&oob, nsm));
  CK(cudaMalloc(&dbg, 2 * 32768));
  CK(cudaMalloc(&t0, nsm * sizeof(unsigned long long)));
  CK(cudaMalloc(&ck, (size_t)nsm * kMaxCk * sizeof(unsigned long long)));
  fill_random(reinterpret_cast<__nv_bfloat16*>(mat), mat_bytes / 2, 0x7a11);
  CK(cudaDeviceSynchronize());
  const uint64_t cols = pitch / 2, rows = mat_bytes / pitch;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));

  auto setup = [&](const Case& cs, Params& p, std::vector<unsigned char>& kind) {
    const int n = cs.n_in + cs.n_oob;
    kind.assign(n, 0);
    for (int c = 0; c < n; ++c)  // spread the oob CTAs evenly over the grid
      kind[c] = (unsigned char)(((long long)(c + 1) * cs.n_oob) / n > ((long long)c * cs.n_oob) / n);
    CK(cudaMemcpy(oob, kind.data(), n, cudaMemcpyHostToDevice));
    p = Params{};
    p.box_rows = cs.box_rows;
    p.box_bytes = cs.box_rows * 128;
    p.stages = cs.stages;
    p.n_tiles = (int)(per_cta / p.box_bytes);
    p.tiles_per_panel = pitch / 128;
    p.panels_per_cta = (p.n_tiles + p.tiles_per_panel - 1) / p.tiles_per_panel;
    p.smem_bytes = std::max(cs.stages * p.box_bytes + 2048, 120 << 10);
    p.oob = oob;
    p.t0 = t0;
    p.ck = ck;
    p.dbg_in = p.dbg_oob = -1;
    for (int c = 0; c < n; ++c) {
      if (!kind[c] && p.dbg_in < 0) p.dbg_in = c;
      if (kind[c]) p.dbg_oob = c;
    }
    return n;
  };
  auto maps = [&](int box_rows, CUtensorMap& in_map, CUtensorMap& oob_map) {
    in_map = make_map(mat, cols, rows, (uint32_t)box_rows, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
    oob_map = make_map(mat, cols, 64, (uint32_t)box_rows, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  };

  // correctness: one mixed launch with dumps
  long long bad = 0;
  {
    Case cs{66, 66, 8, 64};
    Params p;
    std::vector<unsigned char> kind;
    const int n = setup(cs, p, kind);
    CUtensorMap in_map, oob_map;
    maps(cs.box_rows, in_map, oob_map);
    p.dbg = dbg;
    CK(cudaMemset(dbg, 0x5A, 2 * p.box_bytes));
    mix_kernel<<<n, 64, p.smem_bytes>>>(in_map, oob_map, p);
    CKLAUNCH();
    CK(cudaDeviceSynchronize());
    std::vector<unsigned char> d(2 * p.box_bytes), ref(p.box_bytes);
    CK(cudaMemcpy(d.data(), dbg, d.size(), cudaMemcpyDeviceToHost));
    const unsigned char* src = mat + (size_t)p.dbg_in * p.panels_per_cta * p.box_rows * pitch;
    CK(cudaMemcpy2D(ref.data(), 128, src, pitch, 128, p.box_rows, cudaMemcpyDeviceToHost));
    for (int row = 0; row < p.box_rows; ++row)
      for (int byte = 0; byte < 128; ++byte)
        bad += d[row * 128 + ((((byte >> 4) ^ (row & 7)) << 4) | (byte & 15))] != ref[row * 128 + byte];
    long long nonzero = 0;
    for (int i = 0; i < p.box_bytes; ++i) nonzero += d[p.box_bytes + i] != 0;
    std::printf("check: in-range box of CTA %d: %lld mismatches; oob box of CTA %d: %lld non-zero bytes -> %s\n",
                p.dbg_in, bad, p.dbg_oob, nonzero, bad == 0 && nonzero == 0 ? "PASS" : "FAIL");
    bad += nonzero;
  }

  const int h = nsm / 2, q = nsm / 4;
  std::vector<Case> cases;
  for (int R : {64, 128})
    for (auto [a, b] : std::vector<std::pair<int, int>>{{nsm, 0}, {0, nsm}, {h, 0}, {0, h}, {h, h}, {q, 0},
                                                         {0, nsm - q}, {q, nsm - q}, {nsm - q, 0}, {0, q}, {nsm - q, q}})
      cases.push_back({a, b, 8, R});

  FILE* f = std::fopen(out, "w");
  if (!f) { std::perror(out); return 2; }
  std::fprintf(f, "case,ctas_in,ctas_oob,stages,box_bytes,window_us,gbps_in,gbps_oob,gbps_total,end_in_us,end_oob_us,"
                  "time_us,method\n");
  std::printf("%-10s %4s %4s %2s %6s %9s %9s %9s %9s %9s %9s %9s\n", "case", "in", "oob", "S", "box", "window_us",
              "GB/s in", "GB/s oob", "GB/s all", "end_in", "end_oob", "event_us");
  const int REPS = 9;
  for (const Case& cs : cases) {
    Params p;
    std::vector<unsigned char> kind;
    const int n = setup(cs, p, kind);
    CUtensorMap in_map, oob_map;
    maps(cs.box_rows, in_map, oob_map);
    const int nck = p.n_tiles / kCk;
    std::vector<unsigned long long> a(n), b((size_t)n * kMaxCk);
    std::vector<double> win, gin, goob, ein, eoob, ev;
    for (int r = -2; r < REPS; ++r) {
      CK(cudaMemsetAsync(flush, (r + 3) & 0xff, flush_bytes));
      CK(cudaEventRecord(e0));
      mix_kernel<<<n, 64, p.smem_bytes>>>(in_map, oob_map, p);
      CKLAUNCH();
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      if (r < 0) continue;
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      CK(cudaMemcpy(a.data(), t0, n * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(b.data(), ck, b.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      const unsigned long long tmin = *std::min_element(a.begin(), a.end());
      double w = 1e30;
      std::vector<double> end_in, end_oob;
      for (int c = 0; c < n; ++c) {
        const double e = (double)(b[(size_t)c * kMaxCk + nck - 1] - tmin);
        w = std::min(w, e);
        (kind[c] ? end_oob : end_in).push_back(e * 1e-3);
      }
      double tiles_in = 0, tiles_oob = 0;
      for (int c = 0; c < n; ++c) (kind[c] ? tiles_oob : tiles_in) += tiles_by(b, c, nck, kMaxCk, kCk, a[c], tmin, w);
      win.push_back(w * 1e-3);
      gin.push_back(tiles_in * p.box_bytes / w);  // B/ns = GB/s
      goob.push_back(tiles_oob * p.box_bytes / w);
      ein.push_back(end_in.empty() ? NAN : median(end_in));
      eoob.push_back(end_oob.empty() ? NAN : median(end_oob));
      ev.push_back(ms * 1e3);
    }
    const Figures fg{median(win), median(gin), median(goob), median(ein), median(eoob), median(ev)};
    const std::string name = cs.n_oob == 0 ? "in_only" : cs.n_in == 0 ? "oob_only" : "mix";
    char m[700];
    std::snprintf(m, sizeof m,
                  "2D TMA boxes of 64 bf16 cols x %d rows (128B swizzle; L2 promotion 256B), %d stages, 8 MiB per CTA, one "
                  "CTA per SM; %d CTAs read their own panels of a 2 GiB random bf16 matrix, %d CTAs (interleaved) issue "
                  "the same boxes through a 64-row tensor map (zero-filled); rates over the window until the first CTA "
                  "ends (%.1f us); 256 MiB memset flush before each rep; median of %d reps; SM clock after %.0f MHz",
                  cs.box_rows, cs.stages, cs.n_in, cs.n_oob, fg.window_us, REPS, nvml.sm_mhz());
    std::fprintf(f, "%s,%d,%d,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s\n", name.c_str(), cs.n_in, cs.n_oob, cs.stages, p.box_bytes,
                 fmt(fg.window_us, 2).c_str(), fmt(fg.gbps_in, 1).c_str(), fmt(fg.gbps_oob, 1).c_str(),
                 fmt(fg.gbps_in + fg.gbps_oob, 1).c_str(), fmt(fg.end_in_us, 2).c_str(), fmt(fg.end_oob_us, 2).c_str(),
                 fmt(fg.event_us, 2).c_str(), csv_field(m).c_str());
    std::fflush(f);
    std::printf("%-10s %4d %4d %2d %6d %9.2f %9.1f %9.1f %9.1f %9.2f %9.2f %9.2f\n", name.c_str(), cs.n_in, cs.n_oob,
                cs.stages, p.box_bytes, fg.window_us, fg.gbps_in, fg.gbps_oob, fg.gbps_in + fg.gbps_oob, fg.end_in_us,
                fg.end_oob_us, fg.event_us);
  }
  std::fclose(f);
  std::printf("calib_tma_mix done (%s)\n", bad == 0 ? "checks passed" : "CHECKS FAILED");
  return bad == 0 ? 0 : 1;
}
