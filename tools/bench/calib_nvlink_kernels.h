// calib_nvlink_kernels.h (part of calib_nvlink, included by calib_nvlink.cu only): the SM copy
// kernel copy_kernel<U> (U 16-byte loads in flight per thread before the stores) with its
// launcher, and the one-thread cross-GPU flag ping-pong kernel; see calib_nvlink.cu for the
// method. Kept in the unnamed namespace as when it was in calib_nvlink.cu, so the kernel
// symbols (cuobjdump / ncu names) are unchanged.
#pragma once

#include "multigpu.h"

#include <cstdio>
#include <cstdlib>

namespace {

// No __restrict__: the compiler must then keep all U loads ahead of the first store (in
// flight together), instead of interleaving them. U = 16 needs 64+ registers per thread, so
// it is limited to 512 threads per CTA.
template <int U>
__global__ void __launch_bounds__(U >= 16 ? 512 : 1024) copy_kernel(const int4* src, int4* dst, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (U - 1) * stride < n; i += U * stride) {
    int4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = src[i + u * stride];
#pragma unroll
    for (int u = 0; u < U; ++u) dst[i + u * stride] = v[u];
  }
  for (; i < n; i += stride) dst[i] = src[i];
}

constexpr int kOneCtaSmem = 120 * 1024;  // > half an SM's shared memory: one CTA per SM

void set_copy_attrs() {  // on the current device
  CK(cudaFuncSetAttribute(copy_kernel<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, kOneCtaSmem));
  CK(cudaFuncSetAttribute(copy_kernel<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, kOneCtaSmem));
  CK(cudaFuncSetAttribute(copy_kernel<4>, cudaFuncAttributeMaxDynamicSharedMemorySize, kOneCtaSmem));
  CK(cudaFuncSetAttribute(copy_kernel<8>, cudaFuncAttributeMaxDynamicSharedMemorySize, kOneCtaSmem));
  CK(cudaFuncSetAttribute(copy_kernel<16>, cudaFuncAttributeMaxDynamicSharedMemorySize, kOneCtaSmem));
}

void launch_copy(int unroll, int grid, int threads, const void* src, void* dst, size_t bytes, cudaStream_t s) {
  const int4* a = (const int4*)src;
  int4* b = (int4*)dst;
  long long n = (long long)(bytes / 16);
  const int sm = kOneCtaSmem;
  switch (unroll) {
    case 1: copy_kernel<1><<<grid, threads, sm, s>>>(a, b, n); break;
    case 2: copy_kernel<2><<<grid, threads, sm, s>>>(a, b, n); break;
    case 4: copy_kernel<4><<<grid, threads, sm, s>>>(a, b, n); break;
    case 8: copy_kernel<8><<<grid, threads, sm, s>>>(a, b, n); break;
    case 16: copy_kernel<16><<<grid, threads, sm, s>>>(a, b, n); break;
    default: std::fprintf(stderr, "bad unroll %d\n", unroll); std::exit(2);
  }
  CKLAUNCH();
}

// ---- flag ping-pong ----------------------------------------------------------------------
template <bool ACQREL>
__device__ __forceinline__ unsigned ld_flag(const unsigned* p) {
  unsigned v;
  if (ACQREL) asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  else asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
template <bool ACQREL>
__device__ __forceinline__ void st_flag(unsigned* p, unsigned v) {
  if (ACQREL) asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  else asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// One thread. Initiator: store i, wait for the echo i. Responder: wait for i, store i.
// Exchange 1 is untimed (absorbs the other kernel's launch skew); exchanges 2..iters+1 timed.
template <bool ACQREL>
__global__ void pingpong_kernel(unsigned* wr, const unsigned* rd, int iters, int initiator,
                                unsigned long long* out_ns, int* err) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  unsigned long long t0 = bench::globaltimer_ns();
  const unsigned long long deadline = t0 + 3000000000ull;  // 3 s
  for (unsigned i = 1; i <= (unsigned)iters + 1; ++i) {
    if (i == 2) t0 = bench::globaltimer_ns();
    if (initiator) st_flag<ACQREL>(wr, i);
    unsigned spins = 0;
    while (ld_flag<ACQREL>(rd) != i) {
      if ((++spins & 1023u) == 0 && bench::globaltimer_ns() > deadline) { *err = 1; return; }
    }
    if (!initiator) st_flag<ACQREL>(wr, i);
  }
  if (initiator) *out_ns = bench::globaltimer_ns() - t0;
}

}  // namespace
