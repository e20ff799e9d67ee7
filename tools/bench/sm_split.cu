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
#include "multigpu.h"

#include <map>
#include <set>
#include <tuple>

using namespace bench;

namespace {

constexpr int kSmem = 120 * 1024;
constexpr int kMaxThreads = 512;
constexpr size_t kMaxBytes = 256ull << 20;

struct SplitParams {
  const int4* src;   // GPU 0
  int4* dst;         // GPU 1 (peer pointer)
  long long bytes;
  long long chunk_bytes;
  int nchunks;
  int comm_blocks;
  int tiles;
  int mpt;           // mma per warp per tile
  int steal;
  int* counters;     // [0] chunks, [1] tiles
  float* sink;       // [grid * threads]
  unsigned long long* t_start;  // per CTA, globaltimer
  unsigned long long* t_copy;   // per comm CTA, after its fence (0 = none)
  unsigned long long* t_comp;   // per CTA, after its last tile (0 = none)
  long long* cyc;               // per CTA: clock64 cycles of the tile loop
  int* ntiles;                  // per CTA: tiles done
  int* sm;                      // per CTA: %smid
};

__device__ __forceinline__ void mma_bf16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ uint32_t rand_bf16x2(uint64_t i, uint64_t seed) {
  __nv_bfloat16 lo = __float2bfloat16(urand(2 * i, seed)), hi = __float2bfloat16(urand(2 * i + 1, seed));
  return (uint32_t)__bfloat16_as_ushort(lo) | ((uint32_t)__bfloat16_as_ushort(hi) << 16);
}

template <int CHAINS>
__global__ void __launch_bounds__(kMaxThreads, 1) sm_split_kernel(SplitParams p) {
  extern __shared__ int4 smem_unused[];  // only there to force one CTA per SM
  __shared__ int s_item;
  const int tid = threadIdx.x, T = blockDim.x, cta = blockIdx.x;
  if (tid == 0) {
    p.t_start[cta] = globaltimer_ns();
    p.sm[cta] = (int)smid();
    p.t_copy[cta] = 0;
    p.t_comp[cta] = 0;
    p.cyc[cta] = 0;
    p.ntiles[cta] = 0;
  }
  if (cta < p.comm_blocks) {
    for (;;) {
      if (tid == 0) s_item = atomicAdd(&p.counters[0], 1);
      __syncthreads();
      const int ch = s_item;
      __syncthreads();
      if (ch >= p.nchunks) break;
      const long long off = (long long)ch * p.chunk_bytes;
      const long long nb = p.chunk_bytes < p.bytes - off ? p.chunk_bytes : p.bytes - off;
      const int n = (int)(nb / 16);
      const int4* s = p.src + off / 16;
      int4* d = p.dst + off / 16;
      constexpr int U = 4;
      for (int base = 0; base < n; base += T * U) {
        int4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int i = base + u * T + tid;
          if (i < n) v[u] = s[i];
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int i = base + u * T + tid;
          if (i < n) d[i] = v[u];
        }
      }
    }
    __threadfence_system();
    __syncthreads();
    if (tid == 0) p.t_copy[cta] = globaltimer_ns();
    if (!p.steal) {
      p.sink[(size_t)cta * T + tid] = 0.f;
      return;
    }
  }
  // compute worker (or a communication worker that steals tiles)
  const int lane = tid & 31;
  uint32_t a[4], b[2];
#pragma unroll
  for (int k = 0; k < 4; ++k) a[k] = rand_bf16x2(lane * 8 + k, 77);
#pragma unroll
  for (int k = 0; k < 2; ++k) b[k] = rand_bf16x2(lane * 8 + 4 + k, 78);
  float acc[CHAINS][4];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c)
#pragma unroll
    for (int k = 0; k < 4; ++k) acc[c][k] = urand(tid * 64 + c * 4 + k, 79 + cta);
  int done = 0;
  const long long c0 = clock64();
  for (;;) {
    if (tid == 0) s_item = atomicAdd(&p.counters[1], 1);
    __syncthreads();
    const int t = s_item;
    __syncthreads();
    if (t >= p.tiles) break;
#pragma unroll 4
    for (int i = 0; i < p.mpt; i += CHAINS) {
#pragma unroll
      for (int c = 0; c < CHAINS; ++c) mma_bf16(acc[c], a, b);
    }
    ++done;
  }
  const long long c1 = clock64();
  float sum = 0.f;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c)
#pragma unroll
    for (int k = 0; k < 4; ++k) sum += acc[c][k];
  p.sink[(size_t)cta * T + tid] = sum;
  if (tid == 0) {
    p.ntiles[cta] = done;
    p.cyc[cta] = c1 - c0;
    if (done) p.t_comp[cta] = globaltimer_ns();
  }
}

typedef void (*KernelFn)(SplitParams);
KernelFn kernel_for(int chains) {
  switch (chains) {
    case 1: return sm_split_kernel<1>;
    case 2: return sm_split_kernel<2>;
    case 4: return sm_split_kernel<4>;
    case 8: return sm_split_kernel<8>;
  }
  std::fprintf(stderr, "bad chains %d\n", chains);
  std::exit(2);
}

// ---- host ---------------------------------------------------------------------------------
struct Dev {
  PeerPair pp;
  int nsm = 0;
  void* src = nullptr;  // GPU 0, kMaxBytes random
  void* dst = nullptr;  // GPU 1, kMaxBytes
  int* counters = nullptr;
  float* sink = nullptr;
  unsigned long long *t_start = nullptr, *t_copy = nullptr, *t_comp = nullptr;
  long long* cyc = nullptr;
  int *ntiles = nullptr, *sm = nullptr;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
};

struct Cfg {
  int c = 0, chains = 4, threads = 256, mpt = 1024, steal = 0, tiles = 0;
  long long bytes = 0, chunk = 1 << 20;
  double ratio = NAN, copy_ref_us = NAN, compute_ref_us = NAN;
  // results
  std::vector<double> pass_us, pass_copy_us, pass_comp_us;
  int reps = 0;
  std::string check;
  // per-CTA results of the last run
};

struct RunOut {
  double us, copy_us, comp_us;
  std::vector<long long> cyc;
  std::vector<int> ntiles, sm;
};

bool g_quick = false;

SplitParams params_for(Dev& d, const Cfg& g) {
  SplitParams p{};
  p.src = (const int4*)d.src;
  p.dst = (int4*)d.dst;
  p.bytes = g.bytes;
  p.chunk_bytes = g.chunk;
  p.nchunks = g.bytes > 0 ? (int)((g.bytes + g.chunk - 1) / g.chunk) : 0;
  p.comm_blocks = g.c;
  p.tiles = g.tiles;
  p.mpt = g.mpt;
  p.steal = g.steal;
  p.counters = d.counters;
  p.sink = d.sink;
  p.t_start = d.t_start;
  p.t_copy = d.t_copy;
  p.t_comp = d.t_comp;
  p.cyc = d.cyc;
  p.ntiles = d.ntiles;
  p.sm = d.sm;
  return p;
}

RunOut run_once(Dev& d, const Cfg& g, bool want_cta = false) {
  const int n = d.nsm;
  d.pp.flush_both();
  cudaStream_t s0 = d.pp.s[0];
  CK(cudaMemsetAsync(d.counters, 0, 2 * sizeof(int), s0));
  SplitParams p = params_for(d, g);
  CK(cudaEventRecord(d.e0, s0));
  kernel_for(g.chains)<<<n, g.threads, kSmem, s0>>>(p);
  CKLAUNCH();
  CK(cudaEventRecord(d.e1, s0));
  CK(cudaEventSynchronize(d.e1));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, d.e0, d.e1));
  std::vector<unsigned long long> ts(n), tc(n), tp(n);
  CK(cudaMemcpy(ts.data(), d.t_start, n * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(tc.data(), d.t_copy, n * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(tp.data(), d.t_comp, n * 8, cudaMemcpyDeviceToHost));
  unsigned long long t0 = ~0ull, tcm = 0, tpm = 0;
  for (int i = 0; i < n; ++i) {
    t0 = std::min(t0, ts[i]);
    tcm = std::max(tcm, tc[i]);
    tpm = std::max(tpm, tp[i]);
  }
  RunOut o;
  o.us = ms * 1e3;
  o.copy_us = tcm ? (tcm - t0) / 1e3 : NAN;
  o.comp_us = tpm ? (tpm - t0) / 1e3 : NAN;
  if (want_cta) {
    o.cyc.resize(n);
    o.ntiles.resize(n);
    o.sm.resize(n);
    CK(cudaMemcpy(o.cyc.data(), d.cyc, n * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o.ntiles.data(), d.ntiles, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o.sm.data(), d.sm, n * 4, cudaMemcpyDeviceToHost));
  }
  return o;
}

// correctness run: poisons the destination, runs once, checks data / tiles / sink / SMs
std::string check_run(Dev& d, const Cfg& g, double* warm_us) {
  if (g.bytes > 0) {
    CK(cudaSetDevice(1));
    CK(cudaMemset(d.dst, 0xA5, g.bytes));
    CK(cudaDeviceSynchronize());
    CK(cudaSetDevice(0));
  }
  RunOut o = run_once(d, g, true);
  *warm_us = o.us;
  std::string bad;
  if (g.bytes > 0) {
    const long long nch = (g.bytes + g.chunk - 1) / g.chunk;
    const long long chs[3] = {0, nch / 2, nch - 1};
    std::vector<unsigned char> x(4096), y(4096);
    for (long long ch : chs) {
      long long beg = ch * g.chunk, end = std::min(g.bytes, beg + g.chunk);
      for (long long off : {beg, end - 4096}) {
        CK(cudaSetDevice(1));
        CK(cudaMemcpy(x.data(), (char*)d.dst + off, 4096, cudaMemcpyDeviceToHost));
        CK(cudaSetDevice(0));
        CK(cudaMemcpy(y.data(), (char*)d.src + off, 4096, cudaMemcpyDeviceToHost));
        if (std::memcmp(x.data(), y.data(), 4096) != 0) bad = "data";
      }
    }
  }
  long long tiles = 0;
  for (int v : o.ntiles) tiles += v;
  if (tiles != g.tiles) bad += (bad.empty() ? "" : "+") + std::string("tiles");
  std::vector<float> sink((size_t)d.nsm * g.threads);
  CK(cudaMemcpy(sink.data(), d.sink, sink.size() * 4, cudaMemcpyDeviceToHost));
  for (float v : sink)
    if (!std::isfinite(v)) { bad += "+sink"; break; }
  std::vector<int> sms = o.sm;
  std::sort(sms.begin(), sms.end());
  if (std::unique(sms.begin(), sms.end()) != sms.end()) bad += "+shared_sm";
  return bad.empty() ? "pass" : "FAIL:" + bad;
}

void run_cfg(Dev& d, Cfg& g) {
  double warm = 0;
  if (g.check.empty()) g.check = check_run(d, g, &warm);
  else warm = run_once(d, g).us;
  int reps = (int)std::min(20.0, std::max(5.0, 30000.0 / std::max(warm, 1.0)));
  if (g_quick) reps = 3;
  std::vector<double> t, tc, tp;
  for (int r = 0; r < reps; ++r) {
    RunOut o = run_once(d, g);
    t.push_back(o.us);
    tc.push_back(o.copy_us);
    tp.push_back(o.comp_us);
  }
  g.reps = reps;
  g.pass_us.push_back(median(t));
  g.pass_copy_us.push_back(median(tc));
  g.pass_comp_us.push_back(median(tp));
}

double mean(const std::vector<double>& v) {
  double s = 0;
  int n = 0;
  for (double x : v)
    if (std::isfinite(x)) { s += x; ++n; }
  return n ? s / n : NAN;
}

const char* kSource =
    "tools/bench/sm_split.cu: persistent kernel, 1 CTA per SM on 132 SMs; CTAs [0,c) push `bytes` from GPU 0 to "
    "GPU 1 over NVLink (16 B remote stores, chunks from an atomic counter), the rest run mma.sync tiles from a second "
    "counter; only GPU 0 runs the kernel (one direction); L2 of both GPUs flushed (256 MiB memset) before each rep; "
    "CUDA events on GPU 0; median of reps; mean of 2 pass medians";

void write_csv(const char* path, const std::vector<Cfg>& cfgs) {
  FILE* f = std::fopen(path, "w");
  if (!f) { std::perror(path); return; }
  std::fprintf(f, "op,gpu,gpus,dtype,comm_blocks,bytes,chunk_bytes,tiles,mma_per_warp_per_tile,mma_chains,mma_shape,"
                  "threads,steal,kernel,time_us,source,spread_pct,reps,passes,copy_done_us,compute_done_us,copy_gbps,"
                  "ratio_target,copy_ref_us,compute_ref_us,pass_us,check\n");
  for (const Cfg& g : cfgs) {
    if (g.pass_us.empty()) continue;
    double t = mean(g.pass_us), tc = mean(g.pass_copy_us), tp = mean(g.pass_comp_us);
    std::string pus;
    for (size_t i = 0; i < g.pass_us.size(); ++i) pus += (i ? ";" : "") + fmt(g.pass_us[i], 2);
    char kname[64];
    std::snprintf(kname, sizeof kname, "sm_split_kernel<%d>", g.chains);
    std::fprintf(f, "sm_split,h200,2,bf16,%d,%lld,%lld,%d,%d,%d,m16n8k16,%d,%d,%s,%s,%s,%s,%d,%zu,%s,%s,%s,%s,%s,%s,%s,%s\n",
                 g.c, g.bytes, g.chunk, g.tiles, g.mpt, g.chains, g.threads, g.steal, csv_field(kname).c_str(),
                 fmt(t, 3).c_str(), csv_field(kSource).c_str(), fmt(spread_pct(g.pass_us), 2).c_str(), g.reps,
                 g.pass_us.size(), fmt(tc, 2).c_str(), fmt(tp, 2).c_str(),
                 g.bytes > 0 ? fmt(g.bytes / (tc * 1e-6) / 1e9, 1).c_str() : "", fmt(g.ratio, 2).c_str(),
                 fmt(g.copy_ref_us, 2).c_str(), fmt(g.compute_ref_us, 2).c_str(), csv_field(pus).c_str(),
                 g.check.c_str());
  }
  std::fclose(f);
}

int round_sig2(double v) {
  if (v < 1) return 1;
  double p = std::pow(10.0, std::floor(std::log10(v)) - 1);
  return (int)std::max(1.0, std::round(v / p) * p);
}

}  // namespace

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
