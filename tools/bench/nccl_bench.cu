// nccl_bench: NCCL all-to-all and all-reduce times on the GPUs of one host (2 on the lent
// nvidia-h200-x2), for validating tgsim's collective model.
//
// One process drives every GPU (ncclCommInitAll over devices 0..n-1, one non-blocking stream
// each). NVLink SHARP / multicast is kept off: NCCL_NVLS_ENABLE=0 is forced before init
// (workplace rule for these hosts). Operations:
//   all_to_all  ncclGroupStart; on every rank, ncclSend of bytes_per_pair to every OTHER
//               rank and ncclRecv of bytes_per_pair from it (no self copy); ncclGroupEnd.
//               bf16 elements, bytes_per_pair 4 KiB .. 512 MiB (x2 steps).
//   all_reduce  ncclAllReduce bf16 sum, out of place, bytes 4 KiB .. 1 GiB (x2 steps).
// Inputs random bf16 in [-1, 1). Timing: before each rep every GPU runs a 256 MiB
// cudaMemsetAsync (L2 flush) and the host waits for all streams (all GPUs idle: the
// barrier-ish sync), then CUDA events on rank 0's stream around the collective (launched
// on all ranks in one group; rank 0's stop event follows rank 0's part, which cannot end
// before the others' data arrived). One warm-up, reps = clamp(30 ms / warm-up, 5, 50),
// median; 2 passes over the sweep, time_us = mean of the 2 pass medians, spread_pct =
// their difference over it. algbw = bytes per rank / time (all_to_all: (n-1) x
// bytes_per_pair); busbw = algbw x 2(n-1)/n (all_reduce) or algbw (all_to_all, as
// nccl-tests with the self part excluded).
// Kernel names: after the passes, one more launch of each row's collective under CUPTI
// activity tracing (CONCURRENT_KERNEL); names of the kernels that ran on device 0, in
// launch order, ';'-separated, demangled without parameters.
// Correctness: all_reduce of 1 MiB and all_to_all of 64 KiB checked against a host
// reference (bf16 inputs summed in double; relative error printed).
//
// Output: nccl.csv (measurement schema, rewritten after each pass).
// Usage: nccl_bench [nccl.csv] [--quick] [--gpus N] [--passes N]
#include "common.h"

#include <nccl.h>

#include "cupti_kernels.h"

#include <functional>
#include <mutex>

using namespace bench;

#define NCK(call)                                                                              \
  do {                                                                                         \
    ncclResult_t r_ = (call);                                                                  \
    if (r_ != ncclSuccess) {                                                                   \
      std::fprintf(stderr, "NCCL error %s at %s:%d\n", ncclGetErrorString(r_), __FILE__, __LINE__); \
      std::exit(2);                                                                            \
    }                                                                                          \
  } while (0)

namespace {

constexpr size_t kFlush = 256ull << 20;

struct Row {
  std::string op;
  size_t bytes = 0;  // all_to_all: bytes_per_pair; all_reduce: bytes
  std::vector<double> pass_us;
  int reps = 0;
  std::string kernel;
  std::string check;
};

// ---- CUPTI kernel names (device 0 only) ------------------------------------------------
struct KRec { uint64_t start; uint32_t dev; std::string name; };
std::vector<KRec> g_krecs;
std::mutex g_kmu;

#ifndef TGSIM_NO_CUPTI
void keep_kernel_record(const KernelActivity& k) {
  std::lock_guard<std::mutex> lk(g_kmu);
  g_krecs.push_back({k.start, k.deviceId, clean_kernel_name(k.name)});
}
bool cupti_on() {
  static int state = 0;  // 0 unknown, 1 ok, -1 failed
  if (state == 0) state = register_kernel_records(keep_kernel_record) ? 1 : -1;
  return state > 0 && cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == CUPTI_SUCCESS;
}
std::string cupti_off() {
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lk(g_kmu);
  std::sort(g_krecs.begin(), g_krecs.end(), [](const KRec& a, const KRec& b) { return a.start < b.start; });
  std::string s;
  for (auto& k : g_krecs)
    if (k.dev == 0) s += (s.empty() ? "" : ";") + k.name;
  g_krecs.clear();
  return s;
}
#else
bool cupti_on() { return false; }
std::string cupti_off() { return ""; }
#endif

struct World {
  int n = 0;
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> s;
  std::vector<void*> send, recv, flush;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  int flush_val = 1;
};

void enqueue(World& w, const std::string& op, size_t bytes) {
  NCK(ncclGroupStart());
  for (int r = 0; r < w.n; ++r) {
    if (op == "all_reduce") {
      NCK(ncclAllReduce(w.send[r], w.recv[r], bytes / 2, ncclBfloat16, ncclSum, w.comms[r], w.s[r]));
    } else {
      for (int p = 0; p < w.n; ++p) {
        if (p == r) continue;
        NCK(ncclSend((char*)w.send[r] + p * bytes, bytes / 2, ncclBfloat16, p, w.comms[r], w.s[r]));
        NCK(ncclRecv((char*)w.recv[r] + p * bytes, bytes / 2, ncclBfloat16, p, w.comms[r], w.s[r]));
      }
    }
  }
  NCK(ncclGroupEnd());
}

double time_once(World& w, const std::string& op, size_t bytes, bool flush = true) {
  for (int r = 0; r < w.n; ++r) {
    CK(cudaSetDevice(r));
    if (flush) CK(cudaMemsetAsync(w.flush[r], (w.flush_val++) & 0xff, kFlush, w.s[r]));
  }
  for (int r = 0; r < w.n; ++r) {
    CK(cudaSetDevice(r));
    CK(cudaStreamSynchronize(w.s[r]));
  }
  CK(cudaSetDevice(0));
  CK(cudaEventRecord(w.e0, w.s[0]));
  enqueue(w, op, bytes);
  CK(cudaSetDevice(0));
  CK(cudaEventRecord(w.e1, w.s[0]));
  for (int r = 0; r < w.n; ++r) {
    CK(cudaSetDevice(r));
    CK(cudaStreamSynchronize(w.s[r]));
  }
  CK(cudaSetDevice(0));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, w.e0, w.e1));
  return ms * 1e3;
}

float bf2f(uint16_t v) {
  uint32_t u = (uint32_t)v << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

std::string check(World& w, const std::string& op, size_t bytes) {
  time_once(w, op, bytes, false);
  const size_t ne = bytes / 2;
  double err = 0, ref2 = 0;
  if (op == "all_reduce") {
    std::vector<double> ref(ne, 0.0);
    std::vector<uint16_t> h(ne);
    for (int r = 0; r < w.n; ++r) {
      CK(cudaSetDevice(r));
      CK(cudaMemcpy(h.data(), w.send[r], bytes, cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < ne; ++i) ref[i] += bf2f(h[i]);
    }
    for (int r = 0; r < w.n; ++r) {
      CK(cudaSetDevice(r));
      CK(cudaMemcpy(h.data(), w.recv[r], bytes, cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < ne; ++i) {
        double d = bf2f(h[i]) - ref[i];
        err += d * d;
        ref2 += ref[i] * ref[i];
      }
    }
  } else {
    std::vector<uint16_t> a(ne), b(ne);
    for (int r = 0; r < w.n; ++r)
      for (int p = 0; p < w.n; ++p) {
        if (p == r) continue;
        CK(cudaSetDevice(r));
        CK(cudaMemcpy(a.data(), (char*)w.recv[r] + p * bytes, bytes, cudaMemcpyDeviceToHost));
        CK(cudaSetDevice(p));
        CK(cudaMemcpy(b.data(), (char*)w.send[p] + r * bytes, bytes, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < ne; ++i) {
          double d = bf2f(a[i]) - bf2f(b[i]);
          err += d * d;
          ref2 += (double)bf2f(b[i]) * bf2f(b[i]);
        }
      }
  }
  CK(cudaSetDevice(0));
  const double rel = std::sqrt(err / std::max(ref2, 1e-30));
  const bool ok = std::isfinite(rel) && rel < (op == "all_reduce" ? 1e-2 : 1e-12);
  std::printf("CHECK %-10s %10zu B rel_err=%.3e %s\n", op.c_str(), bytes, rel, ok ? "PASS" : "FAIL");
  char b[64];
  std::snprintf(b, sizeof b, "%s rel_err %.1e", ok ? "pass" : "FAIL", rel);
  return b;
}

std::string g_version, g_env, g_source;

void write_csv(const char* path, const World& w, const std::vector<Row>& rows) {
  FILE* f = std::fopen(path, "w");
  if (!f) { std::perror(path); return; }
  std::fprintf(f, "op,gpu,gpus,dtype,bytes_per_pair,bytes,kernel,time_us,source,spread_pct,reps,passes,algbw_gbps,"
                  "busbw_gbps,nccl_version,nccl_env,pass_us\n");
  for (const Row& r : rows) {
    if (r.pass_us.empty()) continue;
    double t = 0;
    for (double v : r.pass_us) t += v;
    t /= r.pass_us.size();
    const bool a2a = r.op == "all_to_all";
    const double per_rank = a2a ? (double)(w.n - 1) * r.bytes : (double)r.bytes;
    const double alg = per_rank / (t * 1e-6) / 1e9;
    const double bus = a2a ? alg : alg * 2.0 * (w.n - 1) / w.n;
    std::string pus;
    for (size_t i = 0; i < r.pass_us.size(); ++i) pus += (i ? ";" : "") + fmt(r.pass_us[i], 2);
    double sp = 0;
    if (r.pass_us.size() > 1) sp = (vmax(r.pass_us) - vmin(r.pass_us)) / median(r.pass_us) * 100;
    std::fprintf(f, "%s,h200,%d,bf16,%s,%s,%s,%s,%s,%s,%d,%zu,%s,%s,%s,%s,%s\n", r.op.c_str(), w.n,
                 a2a ? std::to_string(r.bytes).c_str() : "", a2a ? "" : std::to_string(r.bytes).c_str(),
                 csv_field(r.kernel).c_str(), fmt(t, 3).c_str(), csv_field(g_source + "; " + r.check).c_str(),
                 fmt(sp, 2).c_str(), r.reps, r.pass_us.size(), fmt(alg, 2).c_str(), fmt(bus, 2).c_str(),
                 g_version.c_str(), csv_field(g_env).c_str(), csv_field(pus).c_str());
  }
  std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  setenv("NCCL_NVLS_ENABLE", "0", 1);  // never NVLink multicast on these hosts
  const char* out = "nccl.csv";
  bool quick = false;
  int want = 0, passes = 2;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--gpus") && i + 1 < argc) want = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--passes") && i + 1 < argc) passes = std::atoi(argv[++i]);
    else out = argv[i];
  }
  if (quick) passes = 1;
  World w;
  CK(cudaGetDeviceCount(&w.n));
  if (want > 0) w.n = std::min(w.n, want);
  if (w.n < 2) { std::fprintf(stderr, "need >= 2 GPUs\n"); return 3; }
  int v = 0;
  NCK(ncclGetVersion(&v));
  char vb[32];
  std::snprintf(vb, sizeof vb, "%d.%d.%d", v / 10000, (v / 100) % 100, v % 100);
  g_version = vb;
  for (const char* e : {"NCCL_NVLS_ENABLE", "NCCL_ALGO", "NCCL_PROTO", "NCCL_P2P_LEVEL", "NCCL_P2P_DISABLE",
                        "NCCL_SHM_DISABLE", "NCCL_NET_GDR_LEVEL", "NCCL_MAX_NCHANNELS", "NCCL_MIN_NCHANNELS"}) {
    const char* val = std::getenv(e);
    if (val) g_env += std::string(g_env.empty() ? "" : ";") + e + "=" + val;
  }
  std::printf("# NCCL %s (header %d.%d.%d), %d GPUs, env %s\n", vb, NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH, w.n,
              g_env.c_str());
  for (int d = 0; d < w.n; ++d) print_device(d);
  w.comms.resize(w.n);
  std::vector<int> devs(w.n);
  for (int d = 0; d < w.n; ++d) devs[d] = d;
  const double t_init = now_s();
  NCK(ncclCommInitAll(w.comms.data(), w.n, devs.data()));
  std::printf("# ncclCommInitAll %.2f s\n", now_s() - t_init);

  std::vector<size_t> a2a, ar;
  for (size_t b = 4096; b <= (512ull << 20); b *= 2) a2a.push_back(b);
  for (size_t b = 4096; b <= (1ull << 30); b *= 2) ar.push_back(b);
  if (quick) { a2a = {4096, 1 << 20, 64 << 20}; ar = {4096, 1 << 20, 64 << 20}; }
  const size_t buf = std::max((size_t)w.n * a2a.back(), ar.back());
  w.s.resize(w.n);
  w.send.resize(w.n);
  w.recv.resize(w.n);
  w.flush.resize(w.n);
  for (int r = 0; r < w.n; ++r) {
    CK(cudaSetDevice(r));
    CK(cudaStreamCreateWithFlags(&w.s[r], cudaStreamNonBlocking));
    CK(cudaMalloc(&w.send[r], buf));
    CK(cudaMalloc(&w.recv[r], buf));
    CK(cudaMalloc(&w.flush[r], kFlush));
    fill_random((__nv_bfloat16*)w.send[r], buf / 2, 900 + r);
    CK(cudaMemset(w.recv[r], 0, buf));
    CK(cudaDeviceSynchronize());
  }
  CK(cudaSetDevice(0));
  CK(cudaEventCreate(&w.e0));
  CK(cudaEventCreate(&w.e1));
  g_source = "tools/bench/nccl_bench.cu: NCCL " + g_version + ", single process ncclCommInitAll over " +
             std::to_string(w.n) + " GPUs, NCCL_NVLS_ENABLE=0; 256 MiB memset L2 flush on every GPU + host sync " +
             "before each rep; CUDA events on rank 0 around the grouped collective; median of reps, mean of " +
             std::to_string(passes) + " pass medians; all_to_all = ncclSend/ncclRecv to every other rank (no self copy)";

  std::vector<Row> rows;
  for (size_t b : a2a) rows.push_back({"all_to_all", b});
  for (size_t b : ar) rows.push_back({"all_reduce", b});
  const std::string ck_ar = check(w, "all_reduce", 1 << 20);
  const std::string ck_a2a = check(w, "all_to_all", 64 << 10);
  for (Row& r : rows) r.check = "check " + (r.op == "all_reduce" ? ck_ar : ck_a2a);

  const double t0 = now_s();
  for (int p = 0; p < passes; ++p) {
    for (Row& r : rows) {
      const double warm = time_once(w, r.op, r.bytes);
      int reps = (int)std::min(50.0, std::max(5.0, 30000.0 / std::max(warm, 1.0)));
      if (quick) reps = 3;
      std::vector<double> t;
      for (int i = 0; i < reps; ++i) t.push_back(time_once(w, r.op, r.bytes));
      r.reps = reps;
      r.pass_us.push_back(median(t));
      if (p == 0) std::printf("pass0 %-10s %11zu B  %10.2f us\n", r.op.c_str(), r.bytes, r.pass_us.back());
    }
    write_csv(out, w, rows);
    std::printf("# pass %d done t=%.1fs\n", p, now_s() - t0);
  }
  if (cupti_on()) {
    for (Row& r : rows) {
      if (!cupti_on()) break;
      time_once(w, r.op, r.bytes, false);
      r.kernel = cupti_off();
    }
    write_csv(out, w, rows);
  } else {
    std::printf("CUPTI not available: kernel names not recorded\n");
  }
  std::printf("%-10s %12s %10s %9s %9s  %s\n", "op", "bytes", "time_us", "algbw", "busbw", "kernel");
  for (const Row& r : rows) {
    double t = 0;
    for (double x : r.pass_us) t += x;
    t /= r.pass_us.size();
    const bool isa = r.op == "all_to_all";
    const double alg = (isa ? (double)(w.n - 1) * r.bytes : (double)r.bytes) / (t * 1e-6) / 1e9;
    std::printf("%-10s %12zu %10.2f %9.1f %9.1f  %s\n", r.op.c_str(), r.bytes, t, alg,
                isa ? alg : alg * 2.0 * (w.n - 1) / w.n, r.kernel.substr(0, 90).c_str());
  }
  for (auto& c : w.comms) ncclCommDestroy(c);
  return 0;
}
