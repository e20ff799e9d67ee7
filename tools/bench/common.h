// tgsim_bench common helpers: error checks, statistics, CSV output, NVML (loaded at run
// time with dlopen so that no nvml.h / link stub is needed: the driver always ships
// libnvidia-ml.so.1), random fills for every dtype the benchmarks use.
#pragma once

#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(call)                                                                        \
  do {                                                                                  \
    cudaError_t e_ = (call);                                                            \
    if (e_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_),       \
                   __FILE__, __LINE__, cudaGetErrorString(e_));                         \
      std::exit(2);                                                                     \
    }                                                                                   \
  } while (0)

#define CKLAUNCH() CK(cudaGetLastError())

namespace bench {

inline double median(std::vector<double> in) {
  std::vector<double> v;
  for (double x : in)
    if (std::isfinite(x)) v.push_back(x);
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
inline double vmin(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
inline double vmax(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

inline double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// RFC 4180 quoting: only when the field holds a comma, quote or newline.
inline std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + "\"";
}

inline std::string fmt(double v, int prec = 3) {
  if (!std::isfinite(v)) return "";
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", prec, v);
  return b;
}

// Appends rows `quantity,value,unit,method` to a calibration CSV (header written if the
// file is new or empty), flushing after every row so partial results survive a crash.
struct CalibCsv {
  FILE* f = nullptr;
  explicit CalibCsv(const char* path) {
    if (!path) return;
    f = std::fopen(path, "a+");
    if (!f) { std::perror(path); return; }
    std::fseek(f, 0, SEEK_END);
    if (std::ftell(f) == 0) std::fprintf(f, "quantity,value,unit,method\n");
    std::fflush(f);
  }
  ~CalibCsv() { if (f) std::fclose(f); }
  void row(const std::string& q, double v, const std::string& unit, const std::string& method,
           int prec = 3) {
    std::printf("  %-44s %14s %-10s\n", q.c_str(), fmt(v, prec).c_str(), unit.c_str());
    if (!f) return;
    std::fprintf(f, "%s,%s,%s,%s\n", csv_field(q).c_str(), fmt(v, prec).c_str(),
                 csv_field(unit).c_str(), csv_field(method).c_str());
    std::fflush(f);
  }
};

// ---- NVML through dlopen ---------------------------------------------------------------
// Only the handful of entry points used here, declared with NVML's stable C ABI.
struct Nvml {
  typedef void* Dev;
  void* lib = nullptr;
  Dev dev = nullptr;
  bool ok = false;
  int (*init)() = nullptr;
  int (*byPci)(const char*, Dev*) = nullptr;
  int (*byIndex)(unsigned, Dev*) = nullptr;
  int (*clockInfo)(Dev, int, unsigned*) = nullptr;      // NVML_CLOCK_SM = 1, MEM = 2
  int (*maxClockInfo)(Dev, int, unsigned*) = nullptr;
  int (*powerUsage)(Dev, unsigned*) = nullptr;          // milliwatts
  int (*powerLimit)(Dev, unsigned*) = nullptr;          // enforced limit, milliwatts
  int (*temperature)(Dev, int, unsigned*) = nullptr;    // NVML_TEMPERATURE_GPU = 0
  int (*reasons)(Dev, unsigned long long*) = nullptr;   // clock event (throttle) reasons
  int (*driverVersion)(char*, unsigned) = nullptr;
  // nvmlFieldValue_t of nvml.h (layout stable since the field API appeared)
  struct FieldValue {
    unsigned fieldId, scopeId;
    long long timestamp, latencyUsec;
    int valueType, nvmlReturn;
    union { double d; unsigned ui; unsigned long ul; unsigned long long ull; long long sll; } value;
  };
  int (*fieldValues)(Dev, int, FieldValue*) = nullptr;

  void* sym(const char* a, const char* b = nullptr) {
    void* p = dlsym(lib, a);
    if (!p && b) p = dlsym(lib, b);
    return p;
  }
  explicit Nvml(int cuda_dev = 0) {
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib) lib = dlopen("libnvidia-ml.so", RTLD_NOW);
    if (!lib) { std::fprintf(stderr, "NVML: libnvidia-ml not found; clocks/power not recorded\n"); return; }
    init = (int (*)())sym("nvmlInit_v2", "nvmlInit");
    byPci = (int (*)(const char*, Dev*))sym("nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId");
    byIndex = (int (*)(unsigned, Dev*))sym("nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
    clockInfo = (int (*)(Dev, int, unsigned*))sym("nvmlDeviceGetClockInfo");
    maxClockInfo = (int (*)(Dev, int, unsigned*))sym("nvmlDeviceGetMaxClockInfo");
    powerUsage = (int (*)(Dev, unsigned*))sym("nvmlDeviceGetPowerUsage");
    powerLimit = (int (*)(Dev, unsigned*))sym("nvmlDeviceGetEnforcedPowerLimit");
    temperature = (int (*)(Dev, int, unsigned*))sym("nvmlDeviceGetTemperature");
    reasons = (int (*)(Dev, unsigned long long*))sym("nvmlDeviceGetCurrentClocksEventReasons",
                                                     "nvmlDeviceGetCurrentClocksThrottleReasons");
    driverVersion = (int (*)(char*, unsigned))sym("nvmlSystemGetDriverVersion");
    fieldValues = (int (*)(Dev, int, FieldValue*))sym("nvmlDeviceGetFieldValues");
    if (!init || init() != 0) { std::fprintf(stderr, "NVML: init failed\n"); return; }
    char pci[64] = {0};
    if (byPci && cudaDeviceGetPCIBusId(pci, sizeof pci, cuda_dev) == cudaSuccess && byPci(pci, &dev) == 0) ok = true;
    else if (byIndex && byIndex((unsigned)cuda_dev, &dev) == 0) ok = true;
    if (!ok) std::fprintf(stderr, "NVML: no handle for the CUDA device\n");
  }
  double sm_mhz() const { unsigned v = 0; return ok && clockInfo && clockInfo(dev, 1, &v) == 0 ? v : NAN; }
  double mem_mhz() const { unsigned v = 0; return ok && clockInfo && clockInfo(dev, 2, &v) == 0 ? v : NAN; }
  double max_sm_mhz() const { unsigned v = 0; return ok && maxClockInfo && maxClockInfo(dev, 1, &v) == 0 ? v : NAN; }
  double power_w() const { unsigned v = 0; return ok && powerUsage && powerUsage(dev, &v) == 0 ? v / 1000.0 : NAN; }
  // NVML_FI_DEV_POWER_INSTANT (186): current power, not the 1 s average that
  // nvmlDeviceGetPowerUsage returns on Ampere and newer
  double power_instant_w() const {
    if (!ok || !fieldValues) return NAN;
    FieldValue f{};
    f.fieldId = 186;
    if (fieldValues(dev, 1, &f) != 0 || f.nvmlReturn != 0) return NAN;
    switch (f.valueType) {
      case 0: return f.value.d / 1000.0;
      case 1: return f.value.ui / 1000.0;
      case 2: return f.value.ul / 1000.0;
      case 3: return f.value.ull / 1000.0;
      case 4: return f.value.sll / 1000.0;
      default: return f.value.ui / 1000.0;
    }
  }
  double power_limit_w() const { unsigned v = 0; return ok && powerLimit && powerLimit(dev, &v) == 0 ? v / 1000.0 : NAN; }
  double temp_c() const { unsigned v = 0; return ok && temperature && temperature(dev, 0, &v) == 0 ? v : NAN; }
  unsigned long long reason_bits() const { unsigned long long v = 0; if (ok && reasons) reasons(dev, &v); return v; }
  std::string driver() const {
    char b[96] = {0};
    if (driverVersion && driverVersion(b, sizeof b) == 0) return b;
    return "";
  }
};

// ---- random fills ------------------------------------------------------------------------
__host__ __device__ inline uint32_t hash32(uint64_t x) {
  x ^= x >> 33; x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return (uint32_t)x;
}
// uniform in [-1, 1), never exactly a run of zeros
__device__ inline float urand(uint64_t i, uint64_t seed) {
  return (hash32(i * 0x9E3779B97F4A7C15ULL + seed) >> 8) * (2.0f / 16777216.0f) - 1.0f;
}
template <typename T> __device__ inline T from_float(float f);
template <> __device__ inline float from_float<float>(float f) { return f; }
template <> __device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float f) { return __float2bfloat16(f); }
template <> __device__ inline __half from_float<__half>(float f) { return __float2half(f); }
template <> __device__ inline __nv_fp8_e4m3 from_float<__nv_fp8_e4m3>(float f) { return __nv_fp8_e4m3(f); }

template <typename T>
__global__ void fill_random_kernel(T* p, size_t n, uint64_t seed, float scale) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = from_float<T>(urand(i, seed) * scale);
}
template <typename T>
inline void fill_random(T* p, size_t n, uint64_t seed, float scale = 1.0f, cudaStream_t s = 0) {
  if (n == 0) return;
  fill_random_kernel<T><<<2048, 256, 0, s>>>(p, n, seed, scale);
  CKLAUNCH();
}

inline void print_device(int dev = 0) {
  cudaDeviceProp p{};
  CK(cudaGetDeviceProperties(&p, dev));
  int rt = 0, drv = 0;
  cudaRuntimeGetVersion(&rt);
  cudaDriverGetVersion(&drv);
  std::printf("# device %d: %s, %d SMs, L2 %.1f MiB, smem/SM %zu KiB, mem %.1f GiB, cc %d.%d, "
              "CUDA runtime %d.%d, driver API %d.%d\n",
              dev, p.name, p.multiProcessorCount, p.l2CacheSize / 1048576.0,
              p.sharedMemPerMultiprocessor / 1024, p.totalGlobalMem / 1073741824.0, p.major, p.minor,
              rt / 1000, (rt % 1000) / 10, drv / 1000, (drv % 1000) / 10);
}

// Runs `launch` (a kernel whose CTAs each write their clock64 cycles to d_cycles[blockIdx.x])
// once to warm up and then 3 times; returns the median over the 3 launches of the median over
// the `ctas` CTAs.
template <typename Launch>
inline double median_cta_cycles(Launch launch, int ctas, long long* d_cycles) {
  std::vector<double> per_launch;
  std::vector<long long> cyc(ctas);
  for (int rep = 0; rep < 4; ++rep) {
    launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    if (rep == 0) continue;  // warm-up
    CK(cudaMemcpy(cyc.data(), d_cycles, ctas * sizeof(long long), cudaMemcpyDeviceToHost));
    per_launch.push_back(median(std::vector<double>(cyc.begin(), cyc.end())));
  }
  return median(per_launch);
}

// The SM clock right now, read on the GPU: one thread spins for `spin_us` of %globaltimer and
// counts clock64 cycles meanwhile; returns cycles / ns x 1000 (MHz). NVML refreshes its clock
// only about every 100 ms, too slowly for a row timed in a few ms; this probe sees the clock
// the next kernel will start at. A 1-thread kernel draws no measurable power.
static __global__ void clock_probe_kernel(unsigned long long spin_ns, long long* out) {
  unsigned long long g0, g1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  long long c0 = clock64(), c1 = c0;
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    c1 = clock64();
  } while (g1 - g0 < spin_ns);
  out[0] = c1 - c0;
  out[1] = (long long)(g1 - g0);
}

inline double probe_sm_mhz(cudaStream_t s, int spin_us = 50) {
  static long long* d = nullptr;
  if (!d) CK(cudaMalloc(&d, 2 * sizeof(long long)));
  clock_probe_kernel<<<1, 1, 0, s>>>((unsigned long long)spin_us * 1000ull, d);
  CKLAUNCH();
  long long h[2] = {0, 0};
  CK(cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s));
  CK(cudaStreamSynchronize(s));
  return h[1] > 0 ? 1000.0 * (double)h[0] / (double)h[1] : NAN;
}

// Selects GPU 0, prints what it is and returns its SM count (the calibration programs' start).
inline int open_device0() {
  CK(cudaSetDevice(0));
  print_device(0);
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  return prop.multiProcessorCount;
}

}  // namespace bench
