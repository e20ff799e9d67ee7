// calib_tma_hitmiss: what an SM's TMA loads achieve when each pipeline stage holds one box that
// misses L2 (streamed from HBM) and B boxes that hit it, as a GEMM's stage holds a weight tile
// read once and an activation tile read again and again.
//
// Why: tgsim routes an L2-missing load over both the L2 link and the HBM link and moves one
// transfer at a time per SM and direction (docs/model.md, the memory path). Whether a miss also
// takes L2 bandwidth from the hits, and whether hits wait behind misses, decides the K-step time
// of GEMMs that are near both limits (the nvjet rows of docs/validation.md, GEMM point 2).
//
// Kernel: calib_tma_mix's ring (tma_ops.h): one CTA per SM, lane 0 of warp 0 fills S stages,
// warp 1 releases each stage at once (no compute). A step = one stage = (A ? one : no) 8 KiB box
// of 64 bf16 cols x 64 rows (128B swizzle, L2 promotion 256 B) from the CTA's own panels of a
// 2 GiB random bf16 matrix (8 MiB per CTA: every box misses) + NB 8 KiB boxes cycling over the
// CTA's own region of R boxes (64 rows x R x 64 cols) of a 256 MiB matrix: with R = 8 (64 KiB,
// 8.4 MB over 132 CTAs) all but the first 8 hit.
// The consumer records %globaltimer every kCk steps. Window W = the first CTA's last checkpoint
// (every CTA streams throughout it); steps delivered within W (interpolated) give each kind's rate.
//
// Cases: A only, B only (NB = 1..4) and A + NB B (NB = 1..4), 132 CTAs, S = 8 for stages up to
// 24 KiB, 6 for 32 KiB, 5 for 40 KiB (every A-only and B-only reference at the stage count of
// the mix it is compared with); A + 2 B with 66 CTAs. Then the L2's replacement under cyclic
// reuse: B only (NB = 1, S = 8), R = 8 ... 128 boxes, i.e. 132 CTAs re-reading 8 MB ... 138 MB
// round and round (8 ... 128 passes in the 1024 steps): a whole-tile LRU of 60 MiB hits every
// box up to 63 MB and none beyond; the late-half rate says what the hardware keeps. Then where
// the B regions lie: row pitch 16, 8, 4 KiB with every CTA's region at the same column offsets
// or spread along the rows, and 1 KiB (each region 64 KiB of contiguous bytes). Timing: 256 MiB memset then a 256 MiB
// read before each rep (L2 left clean: no write-backs of the flush), 2 warm-ups, median over 9
// reps. Correctness: the first A box and the first B box of CTA 0 are compared byte for byte
// with the source (128B swizzle undone).
//
// Output: CSV case,ctas,stages,a_boxes,b_boxes,region_kib,b_working_set_mb,b_pitch,b_spread,b_copy,box_bytes,window_us,
// gbps_a,gbps_b,gbps_total,gbps_total_late,us_per_step,time_us,method (GB = 1e9 B; *_late: over the
// second half of the window, after the first passes over the B regions).
// With "probe" as the second argument it runs instead: the 1-box hit stream on 33-132 CTAs and
// with 4/16 stages, the same bytes as 1D bulk copies, and 16-stage miss streams.
// Usage: calib_tma_hitmiss [calibration_tma_hitmiss.csv] [probe]
#include "common.h"
#include "tma_ops.h"

#include <string>
#include <vector>

using namespace bench;

namespace {

constexpr int kCk = 32;      // steps between two timestamps
constexpr int kMaxCk = 32;   // 1024 steps per CTA
constexpr int kSteps = kCk * kMaxCk;
constexpr int kBoxRows = 64, kBoxBytes = kBoxRows * 128;
constexpr int kMaxRegionBoxes = 128;  // a B region is at most one 64-row panel (1 MiB)

struct Params {
  int stages, a_boxes, b_boxes, region_boxes, b_row_boxes, b_spread, b_1d, a_wrap, tiles_per_panel, panels_per_cta;
  const unsigned char* b_flat;  // B as bytes (b_1d: 1D bulk copies of the CTA's region)
  unsigned long long* t0;  // [ctas] globaltimer at entry
  unsigned long long* ck;  // [ctas][kMaxCk] globaltimer after step (i+1)*kCk - 1
  unsigned char* dbg;      // [2][kBoxBytes]: CTA 0's first A box and first B box
};

// Box j of CTA c's B region of `boxes` boxes (at most a row's `row_boxes`): 64 rows from row
// c * 64, box j % boxes at cols (j % boxes) * 64, shifted by c's slot of `boxes` boxes along the
// row when `spread` (so that the CTAs' regions cover every column offset, not the same few).
__device__ __forceinline__ void b_coords(int cta, int j, int boxes, int row_boxes, bool spread, int& col, int& row) {
  row = cta * kBoxRows;
  const int slot = spread ? cta % (row_boxes / boxes) : 0;
  col = (slot * boxes + j % boxes) * 64;
}

__global__ void __launch_bounds__(64, 1)
    hitmiss_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map, Params p) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, cta = blockIdx.x;
  if (tid == 0) p.t0[cta] = globaltimer();
  const uint32_t raw = smem_u32(smem_raw);
  const uint32_t aligned = (raw + 1023u) & ~1023u;
  const uint32_t bars = aligned, tiles = aligned + 1024u;
  const unsigned char* tiles_g = smem_raw + (tiles - raw);
  const int S = p.stages, boxes = p.a_boxes + p.b_boxes;
  const uint32_t stage_bytes = (uint32_t)boxes * kBoxBytes;
  if (tid == 0) {
    for (int s = 0; s < 2 * S; ++s) mbar_init(bars + 8u * s, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (warp == 0 && lane == 0) {
    int s = 0, k = 0, row = cta * p.panels_per_cta * kBoxRows;
    uint32_t ph = 1;
    const int cols = p.tiles_per_panel * 64;
    // B: coordinates advanced incrementally (no division in the loop), wrapping over the region
    int b_col0, b_row;
    b_coords(cta, 0, p.region_boxes, p.b_row_boxes, p.b_spread != 0, b_col0, b_row);
    const unsigned char* b_src0 = p.b_flat + (size_t)cta * p.region_boxes * kBoxBytes;
    int b_col = b_col0, b_j = 0;
    const unsigned char* b_src = b_src0;
    for (int it = 0; it < kSteps; ++it) {
      mbar_wait(bars + 8u * (S + s), ph);
      mbar_arrive_expect_tx(bars + 8u * s, stage_bytes);
      uint32_t dst = tiles + (uint32_t)s * stage_bytes;
      if (p.a_boxes) {
        tma_load_2d(dst, &a_map, k, row, bars + 8u * s);
        dst += kBoxBytes;
        k += 64;
        if (k >= cols) { k = 0; row += p.a_wrap ? 0 : kBoxRows; }  // a_wrap: the first tiles_per_panel boxes again
      }
      for (int j = 0; j < p.b_boxes; ++j, dst += kBoxBytes) {
        if (p.b_1d) {
          bulk_load_1d(dst, b_src, kBoxBytes, bars + 8u * s);  // the same bytes as one contiguous 8 KiB copy
        } else {
          tma_load_2d(dst, &b_map, b_col, b_row, bars + 8u * s);
        }
        b_col += 64;
        b_src += kBoxBytes;
        if (++b_j == p.region_boxes) { b_j = 0; b_col = b_col0; b_src = b_src0; }
      }
      if (++s == S) { s = 0; ph ^= 1; }
    }
  } else if (warp == 1) {
    int s = 0;
    uint32_t ph = 0;
    for (int it = 0; it < kSteps; ++it) {
      mbar_wait(bars + 8u * s, ph);
      if (p.dbg && cta == 0 && it == 0) {  // stage 0: [A box][B boxes...]
        const unsigned char* from = tiles_g;
        for (int i = lane; i < kBoxBytes; i += 32) {
          if (p.a_boxes) p.dbg[i] = from[i];
          if (p.b_boxes) p.dbg[kBoxBytes + i] = from[p.a_boxes * kBoxBytes + i];
        }
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
  int ctas, stages, a_boxes, b_boxes, region_boxes = 8;
  int b_pitch = 16384;  // bytes per row of the B matrix
  bool spread = false;
  bool bulk_1d = false;  // B by cp.async.bulk (1D, contiguous 8 KiB) instead of 2D tensor boxes
  int a_wrap = 0;        // > 0: the A stream re-reads its first a_wrap boxes (L2-resident) by A's code path
};


}  // namespace

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "calibration_tma_hitmiss.csv";
  const int nsm = open_device0();
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  Nvml nvml(0);
  load_tensor_map_encoder();
  CK(cudaFuncSetAttribute(hitmiss_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)prop.sharedMemPerBlockOptin));

  const size_t a_bytes = 2ull << 30, b_bytes = 256ull << 20, flush_bytes = 256ull << 20;
  const int pitch = 16384;  // both matrices: 8192 bf16 per row
  unsigned char *a_mat, *b_mat, *dbg;
  void *flush, *flush2;
  unsigned long long *t0, *ck;
  int4* sink;
  CK(cudaMalloc(&a_mat, a_bytes));
  CK(cudaMalloc(&b_mat, b_bytes));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMalloc(&flush2, flush_bytes));
  CK(cudaMalloc(&sink, 16));
  CK(cudaMalloc(&dbg, 2 * kBoxBytes));
  CK(cudaMalloc(&t0, nsm * sizeof(unsigned long long)));
  CK(cudaMalloc(&ck, (size_t)nsm * kMaxCk * sizeof(unsigned long long)));
  fill_random(reinterpret_cast<__nv_bfloat16*>(a_mat), a_bytes / 2, 0x41);
  fill_random(reinterpret_cast<__nv_bfloat16*>(b_mat), b_bytes / 2, 0x42);
  CK(cudaMemset(flush2, 0x3c, flush_bytes));
  CK(cudaDeviceSynchronize());
  const CUtensorMap a_map = make_map(a_mat, pitch / 2, a_bytes / pitch, kBoxRows, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  const auto b_map_of = [&](int b_pitch) {
    return make_map(b_mat, b_pitch / 2, b_bytes / b_pitch, kBoxRows, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  };
  const CUtensorMap b_map = b_map_of(pitch);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));

  auto params = [&](const Case& cs) {
    if (cs.region_boxes < 1 || cs.region_boxes > kMaxRegionBoxes || cs.region_boxes > cs.b_pitch / 128) {
      std::fprintf(stderr, "region of %d boxes: 1 to %d and at most a row\n", cs.region_boxes, kMaxRegionBoxes);
      std::exit(2);
    }
    Params p{};
    p.stages = cs.stages;
    p.a_boxes = cs.a_boxes;
    p.b_boxes = cs.b_boxes;
    p.region_boxes = cs.region_boxes;
    p.b_row_boxes = cs.b_pitch / 128;
    p.b_spread = cs.spread ? 1 : 0;
    p.b_1d = cs.bulk_1d ? 1 : 0;
    p.b_flat = b_mat;
    p.tiles_per_panel = cs.a_wrap > 0 ? cs.a_wrap : pitch / 128;
    p.a_wrap = cs.a_wrap > 0 ? 1 : 0;
    p.panels_per_cta = (kSteps + pitch / 128 - 1) / (pitch / 128);  // the CTA's rows, whatever a_wrap
    p.t0 = t0;
    p.ck = ck;
    return p;
  };
  auto smem_of = [](const Case& cs) { return cs.stages * (cs.a_boxes + cs.b_boxes) * kBoxBytes + 2048; };

  // correctness: one launch with A and B, dumps of CTA 0's first boxes
  long long bad = 0;
  {
    const Case cs{nsm, 4, 1, 1};
    Params p = params(cs);
    p.dbg = dbg;
    CK(cudaMemset(dbg, 0x5A, 2 * kBoxBytes));
    hitmiss_kernel<<<cs.ctas, 64, smem_of(cs)>>>(a_map, b_map, p);
    CKLAUNCH();
    CK(cudaDeviceSynchronize());
    std::vector<unsigned char> d(2 * kBoxBytes);
    CK(cudaMemcpy(d.data(), dbg, d.size(), cudaMemcpyDeviceToHost));
    bad += compare_swizzled_box(d.data(), a_mat, pitch, 0, 0, kBoxRows);
    bad += compare_swizzled_box(d.data() + kBoxBytes, b_mat, pitch, 0, 0, kBoxRows);  // CTA 0's region starts at (0, 0)
    std::printf("check: CTA 0's first A box and first B box: %lld mismatches -> %s\n", bad, bad == 0 ? "PASS" : "FAIL");
  }

  const int h = nsm / 2;
  const bool probe = argc > 2 && std::string(argv[2]) == "probe";
  const auto stages_for = [](int boxes) { return boxes <= 3 ? 8 : boxes == 4 ? 6 : 5; };
  std::vector<Case> cases;
  if (probe) {  // is the 2D hit stream's rate per SM or GPU-wide, latency or issue, and 1D alike?
    for (int n : {nsm / 4, h, 3 * nsm / 4, nsm}) cases.push_back({n, 8, 0, 1});
    for (int S : {4, 16}) cases.push_back({nsm, S, 0, 1});
    for (int n : {h, nsm}) cases.push_back({n, 8, 0, 1, 8, 16384, false, true});
    cases.push_back({nsm, 8, 0, 2, 8, 16384, false, true});
    cases.push_back({nsm, 4, 0, 1, 8, 16384, false, true});
    cases.push_back({nsm, 8, 1, 1, 8, 16384, false, true});
    for (int n : {h, nsm}) cases.push_back({n, 16, 1, 0});
    cases.push_back({h, 16, 0, 1});
    // the hit stream by the A path's code (no B loop): its first 8 boxes again and again
    for (int n : {h, nsm}) cases.push_back({n, 8, 1, 0, 8, 16384, false, false, 8});
  }
  if (!probe) cases.push_back({nsm, 8, 1, 0});
  for (int nb = 1; nb <= 4 && !probe; ++nb) {
    const int S = stages_for(nb + 1);
    if (S != 8) cases.push_back({nsm, S, 1, 0});
    cases.push_back({nsm, S, 0, nb});
    cases.push_back({nsm, S, 1, nb});
  }
  if (!probe) {
  cases.push_back({h, 8, 1, 0});
  cases.push_back({h, 8, 0, 2});
  cases.push_back({h, 8, 1, 2});
  for (int rb : {8, 32, 48, 56, 64, 72, 80, 96, 128}) cases.push_back({nsm, 8, 0, 1, rb});
  // where the B regions lie: the same column offsets in every CTA's rows (above) or spread along
  // the rows, and the row pitch (1 KiB: each region is 64 KiB of contiguous bytes)
  for (int pb : {16384, 8192, 4096, 1024})
    for (bool sp : {false, true}) {
      if (pb == 1024 && sp) continue;
      for (int nb : {1, 2}) cases.push_back({nsm, 8, 0, nb, 8, pb, sp});
    }
  cases.push_back({nsm, 8, 1, 1, 8, 16384, true});
  cases.push_back({nsm, 8, 1, 2, 8, 16384, true});
  cases.push_back({nsm, 8, 1, 2, 8, 1024, false});
  }

  FILE* f = std::fopen(out, "w");
  if (!f) { std::perror(out); return 2; }
  std::fprintf(f, "case,ctas,stages,a_boxes,b_boxes,region_kib,b_working_set_mb,b_pitch,b_spread,b_copy,box_bytes,window_us,gbps_a,"
                  "gbps_b,gbps_total,gbps_total_late,us_per_step,time_us,method\n");
  std::printf("%-8s %4s %2s %2s %2s %6s %6s %2s %9s %9s %9s %9s %9s %9s %9s\n", "case", "ctas", "S", "A", "B", "R_MB", "pitch", "sp", "window_us",  /* sp: 1 spread, 2 bulk 1D */
              "GB/s A", "GB/s B", "GB/s all", "late", "us/step", "event_us");
  const int REPS = 9;
  for (const Case& cs : cases) {
    const Params p = params(cs);
    const int smem = smem_of(cs);
    const CUtensorMap b_case = b_map_of(cs.b_pitch);
    std::vector<unsigned long long> a(cs.ctas), b((size_t)cs.ctas * kMaxCk);
    std::vector<double> win, steps_s, late_s, ev;
    for (int r = -2; r < REPS; ++r) {
      CK(cudaMemsetAsync(flush, (r + 3) & 0xff, flush_bytes));
      read_flush_kernel<<<nsm * 8, 256>>>(reinterpret_cast<const int4*>(flush2), flush_bytes / 16, sink);
      CKLAUNCH();
      CK(cudaEventRecord(e0));
      hitmiss_kernel<<<cs.ctas, 64, smem>>>(a_map, b_case, p);
      CKLAUNCH();
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      if (r < 0) continue;
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      CK(cudaMemcpy(a.data(), t0, cs.ctas * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(b.data(), ck, b.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      const unsigned long long tmin = *std::min_element(a.begin(), a.end());
      double w = 1e30;
      for (int c = 0; c < cs.ctas; ++c) w = std::min(w, (double)(b[(size_t)c * kMaxCk + kMaxCk - 1] - tmin));
      double steps = 0, half = 0;
      for (int c = 0; c < cs.ctas; ++c) {
        steps += tiles_by(b, c, kMaxCk, kMaxCk, kCk, a[c], tmin, w);
        half += tiles_by(b, c, kMaxCk, kMaxCk, kCk, a[c], tmin, w / 2);
      }
      win.push_back(w * 1e-3);
      steps_s.push_back(steps / w);  // steps per ns, all CTAs
      late_s.push_back((steps - half) / (w / 2));
      ev.push_back(ms * 1e3);
    }
    const double rate = median(steps_s), window = median(win);
    const double ga = rate * cs.a_boxes * kBoxBytes, gb = rate * cs.b_boxes * kBoxBytes;  // B/ns = GB/s
    const double us_step = cs.ctas / rate * 1e-3;
    const double late = median(late_s) * (cs.a_boxes + cs.b_boxes) * kBoxBytes;
    const double region_kib = cs.b_boxes ? cs.region_boxes * kBoxBytes / 1024.0 : 0;
    const double working_mb = region_kib * 1024 * cs.ctas / 1e6;
    const std::string name = cs.a_wrap > 0 ? "a_wrap" : cs.a_boxes == 0 ? "b_only" : cs.b_boxes == 0 ? "a_only" : "a_and_b";
    char m[900];
    std::snprintf(m, sizeof m,
                  "2D TMA boxes of 64 bf16 cols x 64 rows (8 KiB; 128B swizzle; L2 promotion 256B); per stage %d box(es) "
                  "from the CTA's own panels of a 2 GiB random bf16 matrix (misses) and %d cycling over its own %.0f KiB "
                  "of a 256 MiB matrix of %d-byte rows%s%s (%.1f MB over all CTAs); %d stages; %d CTAs, one per SM; 1 "
                  "producer thread, 1 consumer warp releasing "
                  "each stage (no compute)%s; rates over the window until the first CTA ends (%.1f us); 256 MiB memset "
                  "then 256 MiB read before each rep (L2 clean); median of %d reps; SM clock after %.0f MHz",
                  cs.a_boxes, cs.b_boxes, region_kib, cs.b_pitch, cs.spread ? ", regions spread along the rows" : "",
                  cs.bulk_1d ? ", as 1D cp.async.bulk copies of 8 KiB" : "", working_mb, cs.stages, cs.ctas,
                  cs.a_wrap > 0 ? "; the A box re-reads its first boxes (L2 hits, by the A code path)" : "", window,
                  REPS, nvml.sm_mhz());
    std::fprintf(f, "%s,%d,%d,%d,%d,%s,%s,%d,%d,%s,%d,%s,%s,%s,%s,%s,%s,%s,%s\n", name.c_str(), cs.ctas, cs.stages,
                 cs.a_boxes, cs.b_boxes, fmt(region_kib, 0).c_str(), fmt(working_mb, 1).c_str(), cs.b_pitch,
                 cs.spread ? 1 : 0, cs.bulk_1d ? "bulk1d" : "tensor2d", kBoxBytes, fmt(window, 2).c_str(),
                 fmt(ga, 1).c_str(), fmt(gb, 1).c_str(), fmt(ga + gb, 1).c_str(), fmt(late, 1).c_str(),
                 fmt(us_step, 4).c_str(), fmt(median(ev), 2).c_str(), csv_field(m).c_str());
    std::fflush(f);
    std::printf("%-8s %4d %2d %2d %2d %6.1f %6d %2d %9.2f %9.1f %9.1f %9.1f %9.1f %9.4f %9.2f\n", name.c_str(), cs.ctas,
                cs.stages, cs.a_boxes, cs.b_boxes, working_mb, cs.b_pitch, (cs.spread ? 1 : 0) + (cs.bulk_1d ? 2 : 0), window, ga, gb, ga + gb, late, us_step, median(ev));
  }
  std::fclose(f);
  std::printf("calib_tma_hitmiss done (%s)\n", bad == 0 ? "checks passed" : "CHECKS FAILED");
  return bad == 0 ? 0 : 1;
}
