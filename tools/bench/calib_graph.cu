// calib_graph: what CUDA events, CUPTI and the kernels' own clocks say about short kernels launched
// the way the attention and GEMM captures launch them.
//
// Each timed repetition is: a 256 MiB cudaMemsetAsync (the L2 flush of docs/measurements.md),
// event e0, the work, event e1, with the host queued ahead behind a ~1 ms spin kernel, as in
// tools/bench/attention_capture.py. The work is a chain of K = 1 or 2 "busy" kernels (G CTAs of
// 128 threads, each CTA spinning B ns on %globaltimer), launched either
//   * graph:  as one CUDA graph (cudaGraphLaunch), as attention_capture.py --graph replays SDPA;
//   * stream: as plain kernel launches on the stream, as gemm_sweep times cuBLASLt;
// on a non-blocking stream (stream "nb", as gemm_sweep) or the legacy default stream ("legacy", as
// PyTorch's default stream and calib_tma); and
//   * stream_pdl: two kernels on the non-blocking stream, the second launched with programmatic
//     dependent launch (cudaLaunchAttributeProgrammaticStreamSerialization; the first triggers
//     griddepcontrol.launch_dependents at its start, the second runs griddepcontrol.wait before
//     its clock read), as a library may launch a split-K reduction.
// Every kernel records its first CTA start and last CTA end (%globaltimer, atomicMin/Max); a small
// kernel outside the events archives them per repetition. Per configuration (medians of 41 reps):
//   event_us     e1 - e0
//   span_us      last kernel's last CTA end - first kernel's first CTA start
//   overhead_us  event_us - span_us (per repetition, then the median)
//   k0_us, k1_us each kernel's own span; gap_us  k1's first start - k0's last end (K = 2)
//   cupti_k0_us, cupti_k1_us  the CUPTI activity-record durations (end - start) of the same kernels
//                in a second set of repetitions with CUPTI enabled (-1 if built without CUPTI);
//   cupti_event_us  e1 - e0 in that CUPTI set (CUPTI's own cost on the events).
// The simulator's launch.kernel_overhead (event time minus in-kernel span of a stream launch),
// queued_kernel_gap, graph_launch_overhead and graph_kernel_overhead are read from these rows
// (configs/gpus/h200.json). CUPTI minus span (0.67 us median) is recorded, not used: the span
// ends at the last %globaltimer read, before the kernel's final atomic completes, so part of
// it is the kernel's own work (docs/gpu-specs.md).
//
// A second sweep (`calib_graph OUT.csv launch_cfg`) asks whether the launch costs depend on how a
// kernel is launched, as the GEMM and attention kernels are: plain stream launches on the
// non-blocking stream through cudaLaunchKernelEx with a cluster dimension (1, 2, 4, 8), 0 or
// 200 KiB of dynamic shared memory (one CTA per SM, as the GEMMs' pipelines; the flush's memset
// runs without), 128 or 384 threads. Per configuration, besides the columns above:
//   start_spread_us  last CTA start - first CTA start (%globaltimer), the CTA launch's spread.
//
// Usage: calib_graph [out.csv] [launch_cfg]
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "common.h"

#include "cupti_kernels.h"

using namespace bench;

namespace {

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// flags: 1 = let dependent grids launch now (griddepcontrol.launch_dependents), 2 = wait for the
// grids this one depends on first (griddepcontrol.wait; a no-op without programmatic launch).
// first[2 + slot] collects the latest CTA start (atomicMax), for the start spread.
__device__ __forceinline__ void busy_body(unsigned long long* first, unsigned long long* last, int slot, unsigned ns,
                                          unsigned flags) {
  if (flags & 1) asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  if (flags & 2) asm volatile("griddepcontrol.wait;" ::: "memory");
  const unsigned long long t0 = global_ns();
  if (threadIdx.x == 0) {
    atomicMin(&first[slot], t0);
    atomicMax(&first[2 + slot], t0);
  }
  while (global_ns() - t0 < ns) {
  }
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(&last[slot], global_ns());
}

__global__ void busy(unsigned long long* first, unsigned long long* last, int slot, unsigned ns, unsigned flags) {
  busy_body(first, last, slot, ns, flags);
}

// The same for the launch_cfg sweep, so that its shared-memory and cluster attributes stay off
// the kernel of the default sweep.
__global__ void busy_cfg(unsigned long long* first, unsigned long long* last, int slot, unsigned ns, unsigned flags) {
  busy_body(first, last, slot, ns, flags);
}

// Copies the K spans (first start, last end, last start) of this repetition to the history and
// resets them (outside the events).
__global__ void archive(unsigned long long* first, unsigned long long* last, unsigned long long* hist, int k, int rep) {
  const int i = threadIdx.x;
  if (i < k) {
    hist[(rep * k + i) * 3] = first[i];
    hist[(rep * k + i) * 3 + 1] = last[i];
    hist[(rep * k + i) * 3 + 2] = first[2 + i];
    first[i] = ~0ull;
    first[2 + i] = 0;
    last[i] = 0;
  }
}

__global__ void spin(unsigned long long ns) {
  const unsigned long long t0 = global_ns();
  while (global_ns() - t0 < ns) {
  }
}

struct KTime {
  unsigned long long start, end;
  std::string name;
};
std::vector<KTime> g_recs;
std::mutex g_mu;

#ifndef TGSIM_NO_CUPTI
void keep_kernel_record(const KernelActivity& k) {
  std::lock_guard<std::mutex> lk(g_mu);
  g_recs.push_back({k.start, k.end, k.name ? k.name : "?"});
}
#endif

struct Config {
  bool graph, legacy, pdl;
  int kernels, ctas;
  unsigned busy_ns;
  bool launch_cfg = false;                   // launched by the launch_cfg sweep (busy_cfg)
  int cluster = 1, smem = 0, threads = 128;  // its launch attributes
};

struct Result {
  std::vector<double> event, span, overhead, k0, k1, gap, start_spread;
};

constexpr int kBigSmem = 200 << 10;  // the launch_cfg sweep's dynamic shared memory

constexpr int kReps = 41;

class Runner {
 public:
  Runner() {
    CK(cudaStreamCreateWithFlags(&nb_, cudaStreamNonBlocking));
    CK(cudaMalloc(&flush_, kFlush));
    CK(cudaMalloc(&first_, 4 * sizeof(unsigned long long)));
    CK(cudaMalloc(&last_, 2 * sizeof(unsigned long long)));
    CK(cudaMalloc(&hist_, kReps * 2 * 3 * sizeof(unsigned long long)));
    CK(cudaMemset(first_, 0xff, 2 * sizeof(unsigned long long)));
    CK(cudaMemset(first_ + 2, 0, 2 * sizeof(unsigned long long)));
    CK(cudaMemset(last_, 0, 2 * sizeof(unsigned long long)));
    CK(cudaFuncSetAttribute(busy_cfg, cudaFuncAttributeMaxDynamicSharedMemorySize, kBigSmem));
    for (int r = 0; r < kReps; ++r) {
      CK(cudaEventCreate(&e0_[r]));
      CK(cudaEventCreate(&e1_[r]));
    }
  }

  void enqueue_work(const Config& c, cudaStream_t s) {
    for (int k = 0; k < c.kernels; ++k) {
      if (c.launch_cfg) {  // the launch_cfg sweep: every launch through busy_cfg
        cudaLaunchConfig_t cfg{};
        cfg.gridDim = dim3(c.ctas);
        cfg.blockDim = dim3(c.threads);
        cfg.dynamicSmemBytes = static_cast<size_t>(c.smem);
        cfg.stream = s;
        cudaLaunchAttribute attr{};
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim.x = static_cast<unsigned>(c.cluster);
        attr.val.clusterDim.y = 1;
        attr.val.clusterDim.z = 1;
        cfg.attrs = &attr;
        cfg.numAttrs = 1;
        CK(cudaLaunchKernelEx(&cfg, busy_cfg, first_, last_, k, c.busy_ns, 0u));
      } else if (!c.pdl) {
        busy<<<c.ctas, 128, 0, s>>>(first_, last_, k, c.busy_ns, 0u);
      } else if (k == 0) {
        busy<<<c.ctas, 128, 0, s>>>(first_, last_, k, c.busy_ns, 1u);
      } else {
        cudaLaunchConfig_t cfg{};
        cfg.gridDim = dim3(c.ctas);
        cfg.blockDim = dim3(128);
        cfg.stream = s;
        cudaLaunchAttribute attr{};
        attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attr.val.programmaticStreamSerializationAllowed = 1;
        cfg.attrs = &attr;
        cfg.numAttrs = 1;
        CK(cudaLaunchKernelEx(&cfg, busy, first_, last_, k, c.busy_ns, 2u));
      }
    }
  }

  Result run(const Config& c) {
    const cudaStream_t s_ = c.legacy ? cudaStreamLegacy : nb_;
    cudaGraphExec_t ge = nullptr;
    if (c.graph) {  // captured on the non-blocking stream (the legacy stream cannot capture)
      cudaGraph_t g;
      CK(cudaStreamBeginCapture(nb_, cudaStreamCaptureModeThreadLocal));
      enqueue_work(c, nb_);
      CK(cudaStreamEndCapture(nb_, &g));
      CK(cudaGraphInstantiate(&ge, g, 0));
      CK(cudaGraphDestroy(g));
    }
    const auto work = [&] {
      if (ge) CK(cudaGraphLaunch(ge, s_));
      else enqueue_work(c, s_);
    };
    for (int i = 0; i < 3; ++i) work();  // warm-up
    archive<<<1, 32, 0, s_>>>(first_, last_, hist_, c.kernels, 0);
    CK(cudaStreamSynchronize(s_));
    spin<<<1, 32, 0, s_>>>(1000000);  // ~1 ms head start for the host
    for (int r = 0; r < kReps; ++r) {
      CK(cudaMemsetAsync(flush_, 0, kFlush, s_));
      CK(cudaEventRecord(e0_[r], s_));
      work();
      CK(cudaEventRecord(e1_[r], s_));
      archive<<<1, 32, 0, s_>>>(first_, last_, hist_, c.kernels, r);
    }
    CK(cudaStreamSynchronize(s_));
    CKLAUNCH();
    std::vector<unsigned long long> h(kReps * c.kernels * 3);
    CK(cudaMemcpy(h.data(), hist_, h.size() * sizeof(h[0]), cudaMemcpyDeviceToHost));
    Result res;
    for (int r = 0; r < kReps; ++r) {
      float ms;
      CK(cudaEventElapsedTime(&ms, e0_[r], e1_[r]));
      // end: 0 first CTA start, 1 last CTA end, 2 last CTA start
      const auto at = [&](int k, int end) { return static_cast<double>(h[(r * c.kernels + k) * 3 + end]); };
      const double span = (at(c.kernels - 1, 1) - at(0, 0)) * 1e-3;
      res.event.push_back(ms * 1e3);
      res.span.push_back(span);
      res.overhead.push_back(ms * 1e3 - span);
      res.k0.push_back((at(0, 1) - at(0, 0)) * 1e-3);
      res.start_spread.push_back((at(0, 2) - at(0, 0)) * 1e-3);
      if (c.kernels > 1) {
        res.k1.push_back((at(1, 1) - at(1, 0)) * 1e-3);
        res.gap.push_back((at(1, 0) - at(0, 1)) * 1e-3);
      }
    }
    if (ge) CK(cudaGraphExecDestroy(ge));
    return res;
  }

 private:
  static constexpr size_t kFlush = 256ull << 20;
  cudaStream_t nb_;
  void* flush_ = nullptr;
  unsigned long long *first_ = nullptr, *last_ = nullptr, *hist_ = nullptr;
  cudaEvent_t e0_[kReps], e1_[kReps];
};

// CUPTI durations of the busy kernels of one run, in launch order: per kernel index the median.
bool cupti_durations(Runner& runner, const Config& c, std::vector<double>& per_kernel, double& event_us) {
#ifndef TGSIM_NO_CUPTI
  {
    std::lock_guard<std::mutex> lk(g_mu);
    g_recs.clear();
  }
  if (cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) return false;
  const Result r = runner.run(c);
  CK(cudaDeviceSynchronize());
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  event_us = median(r.event);
  std::lock_guard<std::mutex> lk(g_mu);
  std::vector<KTime> busy_recs;
  for (const auto& k : g_recs)
    if (k.name.find("busy") != std::string::npos) busy_recs.push_back(k);
  std::sort(busy_recs.begin(), busy_recs.end(), [](const KTime& a, const KTime& b) { return a.start < b.start; });
  // the last kReps * kernels records are the timed repetitions (the warm-ups come first)
  const size_t n = static_cast<size_t>(kReps) * c.kernels;
  if (busy_recs.size() < n) return false;
  const size_t off = busy_recs.size() - n;
  per_kernel.assign(c.kernels, 0.0);
  for (int k = 0; k < c.kernels; ++k) {
    std::vector<double> d;
    for (int r = 0; r < kReps; ++r) {
      const KTime& t = busy_recs[off + r * c.kernels + k];
      d.push_back((t.end - t.start) * 1e-3);
    }
    per_kernel[k] = median(d);
  }
  return true;
#else
  (void)runner, (void)c, (void)per_kernel, (void)event_us;
  return false;
#endif
}

// One configuration measured: the timed repetitions, then the CUPTI set, and the overhead's
// 10th and 90th percentiles.
struct Measured {
  Result r;
  std::vector<double> cup;
  double cup_event = -1;
  bool have = false;
  double p10 = 0, p90 = 0;
};

Measured measure(Runner& runner, const Config& c) {
  Measured m;
  m.r = runner.run(c);
  m.have = cupti_durations(runner, c, m.cup, m.cup_event);
  auto sorted = m.r.overhead;
  std::sort(sorted.begin(), sorted.end());
  m.p10 = sorted[sorted.size() / 10];
  m.p90 = sorted[sorted.size() * 9 / 10];
  return m;
}

// One configuration of the default sweep: one CSV row and a log line.
void measure_row(FILE* f, Runner& runner, const Config& c) {
  const Measured m = measure(runner, c);
  const Result& r = m.r;
  const auto& cup = m.cup;
  const double cup_event = m.cup_event, p10 = m.p10, p90 = m.p90;
  const bool have = m.have;
  const bool two = c.kernels > 1;
  const char* mode = c.pdl ? "stream_pdl" : c.graph ? "graph" : "stream";
  const char* stream = c.legacy ? "legacy" : "nb";
  std::fprintf(f, "%s,%s,%d,%d,%u,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d\n", mode, stream, c.kernels,
               c.ctas, c.busy_ns, median(r.event), median(r.span), median(r.overhead), p10, p90, median(r.k0),
               two ? median(r.k1) : -1.0, two ? median(r.gap) : -1.0, have ? cup[0] : -1.0, have && two ? cup[1] : -1.0,
               have ? cup_event : -1.0, kReps);
  std::printf("%-10s %-6s K=%d G=%3d busy=%5u ns: event %7.3f span %7.3f overhead %6.3f k0 %6.3f gap %6.3f cupti k0 %6.3f\n",
              mode, stream, c.kernels, c.ctas, c.busy_ns, median(r.event), median(r.span), median(r.overhead), median(r.k0),
              two ? median(r.gap) : -1.0, have ? cup[0] : -1.0);
  std::fflush(stdout);
}

// One configuration of the launch_cfg sweep: a single stream-launched kernel with its launch
// attributes; one CSV row and a log line.
void measure_launch_cfg_row(FILE* f, Runner& runner, const Config& c) {
  const Measured m = measure(runner, c);
  const Result& r = m.r;
  const double cupti_k0 = m.have ? m.cup[0] : -1.0;
  std::fprintf(f, "stream,nb,%d,%d,%u,%d,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d\n", c.kernels, c.ctas,
               c.busy_ns, c.cluster, c.smem, c.threads, median(r.event), median(r.span), median(r.overhead), m.p10, m.p90,
               median(r.start_spread), median(r.k0), cupti_k0, m.have ? m.cup_event : -1.0, kReps);
  std::printf("cluster %d smem %6d threads %3d G=%3d busy=%5u ns: event %7.3f span %7.3f overhead %6.3f "
              "start spread %6.3f cupti k0 %6.3f\n",
              c.cluster, c.smem, c.threads, c.ctas, c.busy_ns, median(r.event), median(r.span), median(r.overhead),
              median(r.start_spread), cupti_k0);
  std::fflush(stdout);
}

// The launch_cfg sweep: cluster size x dynamic shared memory x block size x grid x busy time.
// The grids are multiples of 8 (whole clusters): 8 CTAs, 120 (15 clusters of 8, the most the
// H200's GPCs hold at once) and 240 (two waves with 200 KiB each).
void launch_cfg_sweep(FILE* f, Runner& runner) {
  std::fprintf(f,
               "mode,stream,kernels,ctas,busy_ns,cluster,smem_bytes,threads,event_us,span_us,overhead_us,overhead_p10_us,"
               "overhead_p90_us,start_spread_us,k0_us,cupti_k0_us,cupti_event_us,reps\n");
  for (int cluster : {1, 2, 4, 8})
    for (int smem : {0, kBigSmem})
      for (int threads : {128, 384})
        for (int g : {8, 120, 240})
          for (unsigned b : {0u, 8000u}) {
            Config c{false, false, false, 1, g, b};
            c.launch_cfg = true;
            c.cluster = cluster;
            c.smem = smem;
            c.threads = threads;
            measure_launch_cfg_row(f, runner, c);
          }
}

}  // namespace

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "calibration_graph.csv";
  CK(cudaSetDevice(0));
  print_device(0);
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
#ifndef TGSIM_NO_CUPTI
  if (!register_kernel_records(keep_kernel_record))
    std::printf("CUPTI callbacks not registered: no CUPTI columns\n");
#endif
  Runner runner;
  FILE* f = std::fopen(out, "w");
  if (!f) {
    std::perror(out);
    return 1;
  }
  if (argc > 2 && std::string(argv[2]) == "launch_cfg") {
    launch_cfg_sweep(f, runner);
    std::fclose(f);
    std::printf("calib_graph launch_cfg done: %s\n", out);
    return 0;
  }
  std::fprintf(f,
               "mode,stream,kernels,ctas,busy_ns,event_us,span_us,overhead_us,overhead_p10_us,overhead_p90_us,k0_us,k1_us,gap_us,"
               "cupti_k0_us,cupti_k1_us,cupti_event_us,reps\n");
  const int ctas[] = {8, 64, prop.multiProcessorCount, 2 * prop.multiProcessorCount};
  const unsigned busy_ns[] = {0, 2000, 8000};
  for (int graph = 1; graph >= 0; --graph)
    for (int legacy = 0; legacy <= 1; ++legacy)
      for (int kernels = 1; kernels <= 2; ++kernels)
        for (int g : ctas)
          for (unsigned b : busy_ns) measure_row(f, runner, Config{graph != 0, legacy != 0, false, kernels, g, b});
  // programmatic dependent launch of the second kernel (mode stream_pdl)
  for (int g : ctas)
    for (unsigned b : busy_ns) measure_row(f, runner, Config{false, false, true, 2, g, b});
  std::fclose(f);
  std::printf("calib_graph done: %s\n", out);
  return 0;
}
