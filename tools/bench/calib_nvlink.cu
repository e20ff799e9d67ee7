// calib_nvlink: peer-to-peer (NVLink) transfer between GPU 0 and GPU 1, for calibrating
// tgsim's link model: bandwidth an SM-driven copy reaches versus the number of SMs issuing,
// threads per CTA and bytes in flight; bandwidth versus message size for SM copies and
// the copy engine, one direction and both at once; cross-GPU flag (signal) latency.
//
// Set-up: cudaDeviceEnablePeerAccess both ways; on each GPU a 1 GiB random source and a
// 1 GiB destination (plain cudaMalloc), peer pointers used directly in kernels.
// SM copy kernel (sm_copy): grid-stride over 16-byte elements (int4), each thread issues
// `unroll` 16-byte loads, then the `unroll` 16-byte stores (grid stride between them, so
// each warp access is 512 contiguous bytes). push = GPU 0's kernel reads its own memory and
// stores into GPU 1's (remote stores); pull = GPU 0's kernel loads from GPU 1's memory
// (remote loads) and stores locally.
// Tests:
//   push_vs_ctas / pull_vs_ctas  256 MiB, ctas 1..132, threads 256/512/1024, unroll 4. Every
//       copy kernel is launched with 120 KiB of (unused) dynamic shared memory, so no two
//       CTAs share an SM: ctas = SMs issuing.
//   push_1sm / pull_1sm  one CTA, threads 256/1024, unroll 1,2,4,8,16 (bytes in flight per SM
//       = threads*16*unroll), 32 MiB.
//   size_sweep  4 KiB .. 1 GiB (x4 steps): sm_copy with all SMs (grid = min(SMs, what the
//       size needs), threads = the best at 132 CTAs in *_vs_ctas, unroll 4) and copy_engine
//       (cudaMemcpyPeerAsync), directions 0to1 (push from GPU 0), 1to0_pull (GPU 0 reads
//       GPU 1; copy engine: the same peer copy issued on GPU 0's stream) and bidir (GPU 0
//       pushes to GPU 1 and GPU 1 pushes to GPU 0 at once; gbps counts both directions).
//   latency  flag ping-pong between one thread on each GPU, 2000 round trips per launch
//       (after one untimed exchange), timed by %globaltimer on GPU 0: write_remote_poll_local
//       (each side stores the counter into the other GPU's flag and spins on its own) and
//       write_local_poll_remote (each stores its own flag and spins on the peer's), with
//       st/ld .relaxed.sys or .release/.acquire.sys; value = one-way = round trip / 2.
// Timing (bandwidth tests): before each rep a 256 MiB cudaMemsetAsync on GPU 1 (host waits)
// then on GPU 0's stream (L2 flush of both GPUs), then CUDA events on GPU 0's stream around
// the transfer; bidir: GPU 1's stream waits for the start event, GPU 0's stream waits for
// an event recorded on GPU 1's stream after its transfer, before the stop event (so the
// time spans both transfers and includes one cross-GPU event hop, a few us). One warm-up,
// reps = clamp(30 ms / warm-up time, 5, 40), median of reps; 2 passes per test group
// (each group's configurations are run twice in a row), row = mean of the 2 pass medians,
// spread = their difference over it.
// Correctness: before timing, each transfer kind (sm push, sm pull, sm bidir, copy
// engine push/pull) is run once into a poisoned (0xA5) destination and 4 KiB at the start,
// middle and end are compared byte for byte with the source.
//
// Output: rows appended to calibration_nvlink.csv (columns in multigpu.h).
// Usage: calib_nvlink [calibration_nvlink.csv] [--quick]
//
// Code: calib_nvlink_kernels.h (copy and ping-pong kernels), calib_nvlink_timing.h (buffers,
// flushed event timing, test groups, correctness helpers); main below runs the tests in order.
#include "multigpu.h"

#include <functional>
#include <map>

#include "calib_nvlink_kernels.h"
#include "calib_nvlink_timing.h"

using namespace bench;

int main(int argc, char** argv) {
  const char* out = "calibration_nvlink.csv";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) g_quick = true;
    else out = argv[i];
  }
  Ctx c;
  if (!c.pp.init()) return 3;
  NvCsv csv(out);
  const int nsm = c.pp.nsm;
  for (int d = 0; d < 2; ++d) {
    CK(cudaSetDevice(d));
    CK(cudaMalloc(&c.src[d], kBuf));
    CK(cudaMalloc(&c.dst[d], kBuf));
    fill_random((__nv_bfloat16*)c.src[d], kBuf / 2, 1234 + d);
    set_copy_attrs();
    CK(cudaDeviceSynchronize());
    if (d == 1) CK(cudaEventCreateWithFlags(&c.done1, cudaEventDisableTiming));
  }
  CK(cudaSetDevice(0));
  CK(cudaEventCreate(&c.e0));
  CK(cudaEventCreate(&c.e1));
  cudaStream_t s0 = c.pp.s[0], s1 = c.pp.s[1];
  void *src0 = c.src[0], *src1 = c.src[1], *dst0 = c.dst[0], *dst1 = c.dst[1];
  const double t_start = now_s();

  // ---- correctness ----
  bool all_ok = true;
  const size_t vb = 64ull << 20;
  poison(c, 1);
  launch_copy(4, nsm, 512, c.src[0], c.dst[1], vb, s0);
  CK(cudaStreamSynchronize(s0));
  all_ok &= check_bytes(c.dst[1], 1, c.src[0], 0, vb, "sm_copy push 0->1");
  poison(c, 0);
  launch_copy(4, nsm, 512, c.src[1], c.dst[0], vb, s0);
  CK(cudaStreamSynchronize(s0));
  all_ok &= check_bytes(c.dst[0], 0, c.src[1], 1, vb, "sm_copy pull 1->0");
  poison(c, 0);
  poison(c, 1);
  {
    auto f = bidir(c, [&](cudaStream_t s) { launch_copy(4, nsm, 512, c.src[0], c.dst[1], vb, s); },
                   [&](cudaStream_t s) { launch_copy(4, nsm, 512, c.src[1], c.dst[0], vb, s); });
    time_once(c, f);
  }
  all_ok &= check_bytes(c.dst[1], 1, c.src[0], 0, vb, "sm_copy bidir 0->1");
  all_ok &= check_bytes(c.dst[0], 0, c.src[1], 1, vb, "sm_copy bidir 1->0");
  poison(c, 1);
  CK(cudaMemcpyPeerAsync(c.dst[1], 1, c.src[0], 0, vb, s0));
  CK(cudaStreamSynchronize(s0));
  all_ok &= check_bytes(c.dst[1], 1, c.src[0], 0, vb, "copy_engine 0->1");
  poison(c, 0);
  CK(cudaMemcpyPeerAsync(c.dst[0], 0, c.src[1], 1, vb, s0));
  CK(cudaStreamSynchronize(s0));
  all_ok &= check_bytes(c.dst[0], 0, c.src[1], 1, vb, "copy_engine 1->0 (on GPU0)");
  if (!all_ok) std::printf("WARNING: a correctness check failed; rows are still written\n");

  // ---- bandwidth versus CTAs ----
  std::vector<int> ctas_list = {1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 132};
  std::vector<int> thr_list = {256, 512, 1024};
  if (g_quick) { ctas_list = {1, 16, 132}; thr_list = {512}; }
  std::map<std::pair<int, int>, double> best_at_full;  // (pull?, threads) -> gbps at nsm CTAs
  for (int pull = 0; pull < 2; ++pull) {
    std::vector<Cfg> cfgs;
    const size_t bytes = 256ull << 20;
    for (int thr : thr_list)
      for (int k : ctas_list) {
        if (k > nsm) continue;
        Cfg g;
        g.row.test = pull ? "pull_vs_ctas" : "push_vs_ctas";
        g.row.direction = pull ? "1to0_pull" : "0to1";
        g.row.method = "sm_copy";
        g.row.ctas = k; g.row.threads = thr; g.row.unroll = 4; g.row.bytes = bytes;
        g.row.note = pull ? "GPU0 kernel: remote 16B loads from GPU1, local stores"
                          : "GPU0 kernel: local 16B loads, remote 16B stores to GPU1";
        g.payload_bytes = (double)bytes;
        const void* sp = pull ? c.src[1] : c.src[0];
        void* dp = pull ? c.dst[0] : c.dst[1];
        g.enqueue = [=]() { launch_copy(4, k, thr, sp, dp, bytes, s0); };
        cfgs.push_back(g);
      }
    run_group(c, csv, cfgs);
    for (auto& g : cfgs)
      if (g.row.ctas == nsm) best_at_full[{pull, (int)g.row.threads}] = g.row.gbps;
  }
  int sweep_thr[2] = {512, 512};
  for (int pull = 0; pull < 2; ++pull) {
    double b = -1;
    for (auto& kv : best_at_full)
      if (kv.first.first == pull && kv.second > b) { b = kv.second; sweep_thr[pull] = kv.first.second; }
  }
  std::printf("# size sweep threads: push %d, pull %d (best at %d CTAs)  t=%.1fs\n", sweep_thr[0], sweep_thr[1], nsm,
              now_s() - t_start);

  // ---- one SM versus bytes in flight ----
  for (int pull = 0; pull < 2; ++pull) {
    std::vector<Cfg> cfgs;
    const size_t bytes = 32ull << 20;
    std::vector<int> us = {1, 2, 4, 8, 16};
    std::vector<int> ts = {256, 1024};  // (1024, 16) skipped: U = 16 allows 512 threads
    if (g_quick) { us = {1, 4}; ts = {1024}; }
    for (int thr : ts)
      for (int u : us) {
        Cfg g;
        g.row.test = pull ? "pull_1sm" : "push_1sm";
        g.row.direction = pull ? "1to0_pull" : "0to1";
        g.row.method = "sm_copy";
        if (u >= 16 && thr > 512) continue;
        g.row.ctas = 1; g.row.threads = thr; g.row.unroll = u; g.row.bytes = bytes;
        g.row.value = thr * 16.0 * u; g.row.unit = "bytes_in_flight_per_sm";
        g.row.note = "one CTA; value = threads*16*unroll (loads in flight per SM)";
        g.payload_bytes = (double)bytes;
        const void* sp = pull ? c.src[1] : c.src[0];
        void* dp = pull ? c.dst[0] : c.dst[1];
        g.enqueue = [=]() { launch_copy(u, 1, thr, sp, dp, bytes, s0); };
        cfgs.push_back(g);
      }
    run_group(c, csv, cfgs);
  }
  std::printf("# t=%.1fs\n", now_s() - t_start);

  // ---- bandwidth versus message size ----
  {
    std::vector<size_t> sizes;
    for (size_t b = 4096; b <= kBuf; b *= 4) sizes.push_back(b);
    if (g_quick) sizes = {4096, 1 << 20, 64 << 20};
    auto grid_for = [&](size_t bytes, int thr) {
      size_t per_cta = (size_t)thr * 16 * 4;
      return (int)std::max<size_t>(1, std::min<size_t>(nsm, (bytes + per_cta - 1) / per_cta));
    };
    std::vector<Cfg> cfgs;
    for (size_t bytes : sizes) {
      const int tp = sweep_thr[0], tl = sweep_thr[1];
      const int gp = grid_for(bytes, tp), gl = grid_for(bytes, tl);
      auto add = [&](const char* dir, const char* method, int ctas, int thr, double payload,
                     std::function<void()> f, const char* note) {
        Cfg g;
        g.row.test = "size_sweep"; g.row.direction = dir; g.row.method = method;
        g.row.ctas = ctas; g.row.threads = thr; g.row.unroll = ctas > 0 ? 4 : -1;
        g.row.bytes = (long long)bytes;
        g.row.note = note;
        g.payload_bytes = payload;
        g.enqueue = f;
        cfgs.push_back(g);
      };
      add("0to1", "sm_copy", gp, tp, (double)bytes,
          [=]() { launch_copy(4, gp, tp, src0, dst1, bytes, s0); }, "GPU0 pushes (remote stores)");
      add("1to0_pull", "sm_copy", gl, tl, (double)bytes,
          [=]() { launch_copy(4, gl, tl, src1, dst0, bytes, s0); }, "GPU0 pulls (remote loads)");
      add("bidir", "sm_copy", gp, tp, 2.0 * bytes,
          bidir(c, [=](cudaStream_t s) { launch_copy(4, gp, tp, src0, dst1, bytes, s); },
                [=](cudaStream_t s) { launch_copy(4, gp, tp, src1, dst0, bytes, s); }),
          "both GPUs push at once; bytes per direction; gbps = 2*bytes/time");
      add("0to1", "copy_engine", -1, -1, (double)bytes,
          [=]() { CK(cudaMemcpyPeerAsync(dst1, 1, src0, 0, bytes, s0)); },
          "cudaMemcpyPeerAsync GPU0->GPU1 on GPU0's stream");
      add("1to0_pull", "copy_engine", -1, -1, (double)bytes,
          [=]() { CK(cudaMemcpyPeerAsync(dst0, 0, src1, 1, bytes, s0)); },
          "cudaMemcpyPeerAsync GPU1->GPU0 on GPU0's stream");
      add("bidir", "copy_engine", -1, -1, 2.0 * bytes,
          bidir(c, [=](cudaStream_t s) { CK(cudaMemcpyPeerAsync(dst1, 1, src0, 0, bytes, s)); },
                [=](cudaStream_t s) { CK(cudaMemcpyPeerAsync(dst0, 0, src1, 1, bytes, s)); }),
          "cudaMemcpyPeerAsync both ways at once, each on its source GPU's stream; gbps = 2*bytes/time");
    }
    run_group(c, csv, cfgs);
  }
  std::printf("# t=%.1fs\n", now_s() - t_start);

  // ---- signal latency ----
  {
    unsigned* flag[2];
    unsigned long long* outns;
    int* err;
    for (int d = 0; d < 2; ++d) {
      CK(cudaSetDevice(d));
      CK(cudaMalloc(&flag[d], 256));
    }
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&outns, 8));
    CK(cudaMalloc(&err, 4));  // GPU 0 memory, written by either side on a timeout (peer access)
    const int iters = g_quick ? 200 : 2000;
    const int launches = g_quick ? 2 : 5;
    for (int mode = 0; mode < 2; ++mode)
      for (int acq = 0; acq < 2; ++acq) {
        // mode 0: write remote, poll local; mode 1: write local, poll remote
        unsigned* i_wr = mode == 0 ? flag[1] : flag[0];
        unsigned* i_rd = mode == 0 ? flag[0] : flag[1];
        unsigned* r_wr = mode == 0 ? flag[0] : flag[1];
        unsigned* r_rd = mode == 0 ? flag[1] : flag[0];
        std::vector<double> pass_us;
        int bad = 0;
        for (int p = 0; p < g_passes; ++p) {
          std::vector<double> rtt;
          for (int l = 0; l < launches; ++l) {
            for (int d = 0; d < 2; ++d) {
              CK(cudaSetDevice(d));
              CK(cudaMemset(flag[d], 0, 256));
              CK(cudaDeviceSynchronize());
            }
            CK(cudaSetDevice(0));
            CK(cudaMemset(err, 0, 4));
            CK(cudaMemset(outns, 0, 8));
            CK(cudaDeviceSynchronize());
            CK(cudaSetDevice(1));
            if (acq) pingpong_kernel<true><<<1, 32, 0, s1>>>(r_wr, r_rd, iters, 0, nullptr, err);
            else pingpong_kernel<false><<<1, 32, 0, s1>>>(r_wr, r_rd, iters, 0, nullptr, err);
            CKLAUNCH();
            CK(cudaSetDevice(0));
            if (acq) pingpong_kernel<true><<<1, 32, 0, s0>>>(i_wr, i_rd, iters, 1, outns, err);
            else pingpong_kernel<false><<<1, 32, 0, s0>>>(i_wr, i_rd, iters, 1, outns, err);
            CKLAUNCH();
            CK(cudaStreamSynchronize(s0));
            CK(cudaStreamSynchronize(s1));
            unsigned long long ns = 0;
            int e = 0;
            CK(cudaMemcpy(&ns, outns, 8, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(&e, err, 4, cudaMemcpyDeviceToHost));
            if (e || ns == 0) { ++bad; continue; }
            rtt.push_back(ns / 1e3 / iters);
          }
          if (!rtt.empty()) pass_us.push_back(median(rtt));
        }
        NvCsv::Row r;
        r.test = "latency";
        r.direction = "0to1to0";
        r.method = std::string(mode == 0 ? "flag_write_remote_poll_local" : "flag_write_local_poll_remote") +
                   (acq ? "_release_acquire" : "_relaxed");
        r.ctas = 1; r.threads = 1; r.bytes = 4;
        double m = 0;
        for (double v : pass_us) m += v;
        m = pass_us.empty() ? NAN : m / pass_us.size();
        r.time_us = m;
        r.value = m * 1e3 / 2;
        r.unit = "ns_one_way";
        r.spread_pct = spread_pct(pass_us);
        r.reps = launches;
        r.passes = (int)pass_us.size();
        r.note = "one thread per GPU, " + std::to_string(iters) +
                 " round trips per launch timed by globaltimer on GPU0; time_us = round trip; value = round trip/2" +
                 (acq ? "; st.release.sys / ld.acquire.sys" : "; st.relaxed.sys / ld.relaxed.sys") +
                 (bad ? "; " + std::to_string(bad) + " launches timed out" : "");
        csv.row(r);
      }
  }
  std::printf("# calib_nvlink done in %.1fs\n", now_s() - t_start);
  return all_ok ? 0 : 1;
}
