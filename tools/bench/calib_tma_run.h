// calib_tma_run.h (part of calib_tma): one configuration of the TMA stream (Config), the
// buffers and tensor maps all configurations share (Ctx), and the two ways to run one: `run`
// times it (L2 flush before every rep, CUDA events around the kernel, globaltimer per CTA,
// median of the reps) and `check` makes one checked launch and compares the dumped tiles with
// the source byte for byte (the 128-byte swizzle undone).
#pragma once

#include "common.h"
#include "tma_ops.h"
#include "calib_tma_kernel.h"

#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace bench::calib_tma {

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

inline int max_stages(const Ctx& c, long long box_bytes) { return (int)std::min<long long>(64, (c.optin - 2048) / box_bytes); }

// Sets up Params for one config; returns false if it cannot run (smem, size).
inline bool setup(Ctx& c, const Config& cf, Params& p, int& smem, const CUtensorMap*& tm, int check) {
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
inline KernelFn kernel_for(const Config& cf) {
  if (cf.tiled) return cf.divloop ? tma_stream_kernel<true, true> : tma_stream_kernel<true, false>;
  return cf.divloop ? tma_stream_kernel<false, true> : tma_stream_kernel<false, false>;
}

inline void launch(const Config& cf, const CUtensorMap& tm, const Params& p, int smem) {
  const int threads = 64 * cf.producers;
  kernel_for(cf)<<<cf.ctas, threads, smem>>>(tm, p);
  CKLAUNCH();
}

inline Result run(Ctx& c, const Config& cf, int reps) {
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

// Finds the tensor-map encoder, lets every kernel variant use all opt-in shared memory, and
// allocates what all configurations share: the 2 GiB random bf16 matrix, the flush buffers, the
// dump area, per-CTA SM ids and timestamps, and the timing events.
inline void prepare(Ctx& c) {
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
}

// One checked launch: poisoned smem, dumps of 3 tiles of the first and last CTA compared
// with the source. Returns the number of mismatching bytes.
inline long long check(Ctx& c, const Config& cf) {
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

}  // namespace bench::calib_tma
