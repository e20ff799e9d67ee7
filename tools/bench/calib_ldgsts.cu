// calib_ldgsts: what a warp's cp.async (SASS LDGSTS) and st.shared cost the SM's shared-memory
// pipe, by access width and by the bank pattern of the shared-memory addresses. For tgsim's model
// of CUTLASS 2.x GEMMs that cuBLAS falls back to for odd sizes (align1/align2: 4-byte cp.async
// into a layout swizzled for 16-byte vectors), which Nsight Compute shows bound by the L1/shared
// data pipe (traces/h200/gemm_ncu_raw.csv: 5-7 wavefronts per LDGSTS).
//
// Kernel: one CTA per SM (>= 120 KiB of dynamic shared memory), W warps. Each warp issues R = 8
// cp.async (or st.shared) per iteration, each of S = 4, 8 or 16 bytes per lane, then commits a
// group and waits until at most 2 groups are in flight; 256 iterations. The global source is a
// per-warp 4 KiB region read coalesced (lane l, instruction r: bytes (r x 32 + l) x S, modulo
// 4 KiB), so after the first pass it comes from L1 and the shared-memory side is what binds.
// Shared-memory destinations of lane l for instruction r, in a per-warp 4 KiB area seen as 32
// rows of 128 B:
//   contig   the warp writes 32 x S contiguous bytes (offset r x 32 x S + l x S, modulo 4 KiB):
//            conflict-free, one wavefront per 128 B
//   rows     lane l writes row l at column (r x S) mod 128: every lane the same bank, 32-way
//   rows_swz the same rows with the 128B XOR swizzle of CUTLASS/TMA layouts: 16-byte chunk
//            (column / 16) XOR (row mod 8): 8 lanes share a bank, 4-way for S = 4
// Timing: clock64 around the loop in every CTA (after a warm-up launch), median over CTAs of
// cycles / (iterations x R x W): SM cycles per warp instruction. Median of 3 launches.
// Correctness: every lane's last writes are compared with their source bytes (copied back).
//
// Output: CSV op,pattern,bytes_per_lane,warps,cycles_per_inst,bytes_per_clk,method.
// Usage: calib_ldgsts [calibration_ldgsts.csv]
#include "common.h"

#include <string>
#include <vector>

using namespace bench;

namespace {

constexpr int kR = 8;        // instructions per iteration
constexpr int kIters = 256;
constexpr int kArea = 4096;  // bytes of shared memory (and of global source) per warp

enum Pattern { CONTIG = 0, ROWS = 1, ROWS_SWZ = 2 };
const char* kPatternName[3] = {"contig", "rows", "rows_swz"};

__device__ __forceinline__ uint32_t dst_offset(int pattern, int lane, int r, int s) {
  if (pattern == CONTIG) return (uint32_t)((r * 32 * s + lane * s) % kArea);
  const int col = (r * s) % 128;
  if (pattern == ROWS) return (uint32_t)(lane * 128 + col);
  const int chunk = (col >> 4) ^ (lane & 7);
  return (uint32_t)(lane * 128 + (chunk << 4) + (col & 15));
}

template <int S>
__device__ __forceinline__ void cp_async(uint32_t dst, const void* src) {
  if constexpr (S == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(dst), "l"(src), "n"(S) : "memory");
  }
}

template <int S>
__device__ __forceinline__ void st_shared(uint32_t dst, const unsigned char* src) {
  if constexpr (S == 4) {
    asm volatile("st.shared.b32 [%0], %1;" ::"r"(dst), "r"(*reinterpret_cast<const uint32_t*>(src)) : "memory");
  } else if constexpr (S == 8) {
    const uint2 v = *reinterpret_cast<const uint2*>(src);
    asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(dst), "r"(v.x), "r"(v.y) : "memory");
  } else {
    const uint4 v = *reinterpret_cast<const uint4*>(src);
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(dst), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
  }
}

// op 0: cp.async, op 1: st.shared of a value loaded from the same source (register round trip).
template <int S, int OP>
__global__ void __launch_bounds__(1024, 1) ldgsts_kernel(const unsigned char* __restrict__ src, int pattern,
                                                          long long* cycles, unsigned char* check) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const unsigned char* wsrc = src + ((size_t)blockIdx.x * blockDim.x / 32 + warp) * kArea;
  const uint32_t base = (uint32_t)__cvta_generic_to_shared(smem) + (uint32_t)(warp * kArea);
  __syncthreads();
  const long long c0 = clock64();
  for (int it = 0; it < kIters; ++it) {
#pragma unroll
    for (int r = 0; r < kR; ++r) {
      const int rr = (it * kR + r) % (kArea / (32 * S));  // cycles through the 4 KiB source
      const unsigned char* g = wsrc + (rr * 32 + lane) * S;
      const uint32_t d = base + dst_offset(pattern, lane, rr, S);
      if constexpr (OP == 0) cp_async<S>(d, g);
      else st_shared<S>(d, g);
    }
    if constexpr (OP == 0) {
      asm volatile("cp.async.commit_group;" ::: "memory");
      asm volatile("cp.async.wait_group 2;" ::: "memory");
    }
  }
  if constexpr (OP == 0) asm volatile("cp.async.wait_all;" ::: "memory");
  __syncwarp();
  const long long c1 = clock64();
  if (lane == 0) atomicMax(reinterpret_cast<unsigned long long*>(cycles + blockIdx.x), (unsigned long long)(c1 - c0));
  if (check && blockIdx.x == 0 && warp == 0) {  // the last write of each lane, as read back
    const int rr = (kIters * kR - 1) % (kArea / (32 * S));
    const unsigned char* sp = smem + dst_offset(pattern, lane, rr, S);
    for (int b = 0; b < S; ++b) check[lane * 16 + b] = sp[b];
  }
}

typedef void (*Fn)(const unsigned char*, int, long long*, unsigned char*);
Fn kernel_for(int s, int op) {
  if (op == 0) return s == 4 ? ldgsts_kernel<4, 0> : s == 8 ? ldgsts_kernel<8, 0> : ldgsts_kernel<16, 0>;
  return s == 4 ? ldgsts_kernel<4, 1> : s == 8 ? ldgsts_kernel<8, 1> : ldgsts_kernel<16, 1>;
}

}  // namespace

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "calibration_ldgsts.csv";
  const int nsm = open_device0();
  Nvml nvml(0);
  const int smem = 120 << 10;  // > half the SM: one CTA per SM; 16 warps x 4 KiB = 64 KiB used
  const int max_warps = 16;
  unsigned char *src, *check;
  long long* cycles;
  CK(cudaMalloc(&src, (size_t)nsm * max_warps * kArea));
  CK(cudaMalloc(&check, 32 * 16));
  CK(cudaMalloc(&cycles, nsm * sizeof(long long)));
  fill_random(reinterpret_cast<__nv_bfloat16*>(src), (size_t)nsm * max_warps * kArea / 2, 0x1d65);
  CK(cudaDeviceSynchronize());
  for (int s : {4, 8, 16})
    for (int op : {0, 1}) CK(cudaFuncSetAttribute(kernel_for(s, op), cudaFuncAttributeMaxDynamicSharedMemorySize, smem));

  // correctness: the last write of each lane of warp 0 / CTA 0 against its source bytes
  long long bad = 0;
  for (int s : {4, 8, 16})
    for (int op : {0, 1})
      for (int pat : {CONTIG, ROWS, ROWS_SWZ}) {
        CK(cudaMemset(check, 0x5A, 32 * 16));
        kernel_for(s, op)<<<1, 32, smem>>>(src, pat, cycles, check);
        CKLAUNCH();
        CK(cudaDeviceSynchronize());
        std::vector<unsigned char> got(32 * 16), ref(kArea);
        CK(cudaMemcpy(got.data(), check, got.size(), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(ref.data(), src, kArea, cudaMemcpyDeviceToHost));
        const int rr = (kIters * kR - 1) % (kArea / (32 * s));
        for (int l = 0; l < 32; ++l)
          for (int b = 0; b < s; ++b) bad += got[l * 16 + b] != ref[(rr * 32 + l) * s + b];
      }
  std::printf("correctness: %s (%lld mismatching bytes)\n", bad == 0 ? "PASS" : "FAIL", bad);

  FILE* f = std::fopen(out, "w");
  if (!f) { std::perror(out); return 2; }
  std::fprintf(f, "op,pattern,bytes_per_lane,warps,cycles_per_inst,bytes_per_clk,method\n");
  std::printf("%-9s %-9s %3s %5s %12s %10s\n", "op", "pattern", "S", "warps", "clk/inst", "B/clk");
  for (int op : {0, 1})
    for (int pat : {CONTIG, ROWS, ROWS_SWZ})
      for (int s : {4, 8, 16})
        for (int w : {4, 8, 16}) {
          std::vector<double> per_launch;
          for (int rep = 0; rep < 4; ++rep) {
            CK(cudaMemset(cycles, 0, nsm * sizeof(long long)));
            kernel_for(s, op)<<<nsm, 32 * w, smem>>>(src, pat, cycles, nullptr);
            CKLAUNCH();
            CK(cudaDeviceSynchronize());
            if (rep == 0) continue;  // warm-up: fills L1 with the source
            std::vector<long long> c(nsm);
            CK(cudaMemcpy(c.data(), cycles, nsm * sizeof(long long), cudaMemcpyDeviceToHost));
            per_launch.push_back(median(std::vector<double>(c.begin(), c.end())));
          }
          const double cyc = median(per_launch) / ((double)kIters * kR * w);
          const double bpc = 32.0 * s / cyc;
          const char* opn = op == 0 ? "cp.async" : "st.shared";
          char m[600];
          std::snprintf(m, sizeof m,
                        "%s of %d B per lane, %s shared-memory pattern (see calib_ldgsts.cu), %d warps per SM x %d "
                        "instructions x %d iterations, one CTA per SM on %d SMs; source L1-resident after a warm-up "
                        "launch; clock64 per CTA, median over CTAs, median of 3 launches; SM clock %.0f MHz",
                        opn, s, kPatternName[pat], w, kR, kIters, nsm, nvml.sm_mhz());
          std::fprintf(f, "%s,%s,%d,%d,%s,%s,%s\n", opn, kPatternName[pat], s, w, fmt(cyc, 3).c_str(),
                       fmt(bpc, 2).c_str(), csv_field(m).c_str());
          std::fflush(f);
          std::printf("%-9s %-9s %3d %5d %12.3f %10.2f\n", opn, kPatternName[pat], s, w, cyc, bpc);
        }
  std::fclose(f);
  std::printf("calib_ldgsts done (%s)\n", bad == 0 ? "checks passed" : "CHECKS FAILED");
  return bad == 0 ? 0 : 1;
}
