// calib_ldg: the load path of CUTLASS's register-staged (sm75, MmaPipelined) align1 GEMM kernels,
// which cuBLASLt runs for 16-bit GEMMs whose rows are only 2-byte aligned (odd K): scalar
// ld.global.u16 into registers, packed into 16-byte vectors and stored to shared memory, one
// CTA barrier per K step. And the rate of mma.sync m16n8k8 (those kernels' HMMA.1688) against
// m16n8k16. For tgsim's `sm.ldg_2b_cycles` and the sm75 lowering (docs/model.md).
//
// ldg kernel: CTAs of 128 threads (4 warps), C CTAs per SM (grid = C x SMs; C = 1, 2, 4). Per K
// step a CTA reads two 128 x 32 tiles of bf16 (A and B) from row-major matrices whose rows are
// `pitch` elements apart (4097: odd, 2-byte aligned; 4096 and other pitches for comparison), as CUTLASS's
// pitch-linear warp-raked thread map with 1-element accesses places them: a warp's lanes cover
// 8 rows x 4 lanes, lane (r, c) reads elements 8c .. 8c+7 of row r in 8 instructions, so each
// ld.global.u16 of a warp touches 8 rows (`tile8x4`; `contig`: the 32 lanes read 32 consecutive
// elements of one row instead). A thread reads 32 elements per tile (4 rows), 64 per K step: 64
// warp instructions per warp, 256 per CTA. The loads of step k+1 are issued before step k's
// values are packed (cvt / prmt) and stored with st.shared.v4 (two register sets, as
// MmaPipelined), then __syncthreads. Tiles are L2-resident: CTA b reads row block b mod 8 of A
// and (b / 8) mod 8 of B (8 x 128 rows of 2048 used columns x 2 B = 4.2 MB each), K steps 0..63 (columns 0..2047).
// Timing: clock64 around 64 K steps in every CTA after a warm-up launch, median over CTAs, median
// of 3 launches: cycles per K step of a CTA; SM cycles per warp ld instruction =
// cycles per step / (256 x C).
// Correctness: the shared-memory tile of the last step of CTA 0 is compared with the matrix.
//
// mma kernel: 8 warps per SM (one CTA per SM), each warp 8 independent accumulators, 1024
// iterations of 8 mma.sync (m16n8k16 or m16n8k8, bf16 in, fp32 accumulate): FLOP per SM cycle.
//
// Output: CSV op,pattern,pitch,ctas_per_sm,value,unit,method. Usage: calib_ldg [calibration_ldg.csv]
#include "common.h"

#include <string>
#include <vector>

using namespace bench;

namespace {

constexpr int kThreads = 128;
constexpr int kSteps = 64;
constexpr int kTileRows = 128, kTileK = 32;
constexpr int kBlocks = 8;  // row blocks per matrix
enum Pattern { TILE8X4 = 0, CONTIG = 1 };
const char* kPatternName[2] = {"tile8x4", "contig"};

// Row and column (within the 128 x 32 tile) of element e (0..31) of thread t.
__device__ __forceinline__ void place(int pattern, int t, int e, int* row, int* col) {
  const int warp = t >> 5, lane = t & 31;
  if (pattern == TILE8X4) {  // 4 passes of 32 rows; lane (r = lane / 4, c = lane % 4) reads 8c..8c+7
    const int pass = e >> 3, j = e & 7;
    *row = pass * 32 + warp * 8 + (lane >> 2);
    *col = (lane & 3) * 8 + j;
  } else {  // 32 lanes along one row; a warp walks 32 rows
    *row = warp * 32 + e;
    *col = lane;
  }
}

__device__ __forceinline__ void load_tile(const unsigned short* __restrict__ m, int pitch, int row0, int k0, int pattern,
                                          unsigned short (&v)[32]) {
#pragma unroll
  for (int e = 0; e < 32; ++e) {
    int r, c;
    place(pattern, threadIdx.x, e, &r, &c);
    const unsigned short* p = m + (size_t)(row0 + r) * pitch + k0 + c;
    asm volatile("ld.global.u16 %0, [%1];" : "=h"(v[e]) : "l"(p));
  }
}

// Packs 8 values into 16 bytes and stores them where element e0's row and column go (swizzled
// 16-byte chunks so the stores do not conflict).
__device__ __forceinline__ void store_tile(unsigned short* s, int pattern, const unsigned short (&v)[32]) {
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    int r, c;
    place(pattern, threadIdx.x, q * 8, &r, &c);
    const uint32_t w0 = v[q * 8 + 0] | ((uint32_t)v[q * 8 + 1] << 16), w1 = v[q * 8 + 2] | ((uint32_t)v[q * 8 + 3] << 16);
    const uint32_t w2 = v[q * 8 + 4] | ((uint32_t)v[q * 8 + 5] << 16), w3 = v[q * 8 + 6] | ((uint32_t)v[q * 8 + 7] << 16);
    const int chunk = ((c >> 3) ^ ((r >> 1) & 3));
    if (pattern == TILE8X4) {
      *reinterpret_cast<uint4*>(s + r * kTileK + chunk * 8) = make_uint4(w0, w1, w2, w3);
    } else {  // contig: each element to its place
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        int rr, cc;
        place(pattern, threadIdx.x, q * 8 + j, &rr, &cc);
        s[rr * kTileK + cc] = v[q * 8 + j];
      }
    }
  }
}

__global__ void __launch_bounds__(kThreads) ldg_kernel(const unsigned short* __restrict__ a, const unsigned short* __restrict__ b,
                                                       int pitch, int pattern, long long* cycles, unsigned short* check) {
  __shared__ __align__(16) unsigned short sa[kTileRows * kTileK], sb[kTileRows * kTileK];
  const int ra = (blockIdx.x % kBlocks) * kTileRows, rb = ((blockIdx.x / kBlocks) % kBlocks) * kTileRows;
  unsigned short va[32], vb[32], na[32], nb[32];
  load_tile(a, pitch, ra, 0, pattern, va);
  load_tile(b, pitch, rb, 0, pattern, vb);
  __syncthreads();
  const long long c0 = clock64();
  for (int k = 0; k < kSteps; ++k) {
    const int kn = ((k + 1) % kSteps) * kTileK;
    load_tile(a, pitch, ra, kn, pattern, na);  // next step's loads first (MmaPipelined)
    load_tile(b, pitch, rb, kn, pattern, nb);
    __syncthreads();  // the previous step's readers are done with the tiles
    store_tile(sa, pattern, va);
    store_tile(sb, pattern, vb);
    __syncthreads();
#pragma unroll
    for (int e = 0; e < 32; ++e) {
      va[e] = na[e];
      vb[e] = nb[e];
    }
  }
  const long long c1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = c1 - c0;
  if (check && blockIdx.x == 0) {  // the last stored step is step kSteps - 1 (columns of k = 63)
    for (int i = threadIdx.x; i < kTileRows * kTileK; i += blockDim.x) check[i] = sa[i];
  }
}

__global__ void __launch_bounds__(256, 1) mma_kernel(int k8, int iters, long long* cycles, float* sink) {
  float acc[8][4] = {};
  uint32_t av[4] = {0x3f803f80u ^ threadIdx.x, 0x3f803f80u, 0x3f803f80u, 0x3f803f80u}, bv[2] = {0x3f803f80u, 0x3f803f80u};
  __syncthreads();
  const long long c0 = clock64();
  if (k8) {
    for (int it = 0; it < iters; ++it) {
#pragma unroll
      for (int c = 0; c < 8; ++c)
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                     : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
                     : "r"(av[0]), "r"(av[1]), "r"(bv[0]));
    }
  } else {
    for (int it = 0; it < iters; ++it) {
#pragma unroll
      for (int c = 0; c < 8; ++c)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
                     : "r"(av[0]), "r"(av[1]), "r"(av[2]), "r"(av[3]), "r"(bv[0]), "r"(bv[1]));
    }
  }
  __syncthreads();
  const long long c1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = c1 - c0;
  float s = 0;
  for (int c = 0; c < 8; ++c) s += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  if (s == 1234.5f) sink[threadIdx.x] = s;
}

double median_of(long long* d, int n) {
  std::vector<long long> c(n);
  CK(cudaMemcpy(c.data(), d, n * sizeof(long long), cudaMemcpyDeviceToHost));
  return median(std::vector<double>(c.begin(), c.end()));
}

}  // namespace

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "calibration_ldg.csv";
  const int nsm = open_device0();
  Nvml nvml(0);
  const int max_pitch = 6144, rows = kBlocks * kTileRows;
  unsigned short *a, *b, *check;
  long long* cycles;
  float* sink;
  CK(cudaMalloc(&a, (size_t)rows * max_pitch * 2));
  CK(cudaMalloc(&b, (size_t)rows * max_pitch * 2));
  CK(cudaMalloc(&check, kTileRows * kTileK * 2));
  CK(cudaMalloc(&cycles, 4 * nsm * sizeof(long long)));
  CK(cudaMalloc(&sink, 1024 * sizeof(float)));
  fill_random(reinterpret_cast<__nv_bfloat16*>(a), (size_t)rows * max_pitch, 0x51a);
  fill_random(reinterpret_cast<__nv_bfloat16*>(b), (size_t)rows * max_pitch, 0x51b);
  CK(cudaDeviceSynchronize());

  // correctness: CTA 0's A tile of the last step, unswizzled, against the matrix
  long long bad = 0;
  std::vector<unsigned short> host((size_t)rows * max_pitch), got(kTileRows * kTileK);
  CK(cudaMemcpy(host.data(), a, host.size() * 2, cudaMemcpyDeviceToHost));
  for (int pattern : {TILE8X4, CONTIG}) {
    ldg_kernel<<<1, kThreads>>>(a, b, max_pitch, pattern, cycles, check);
    CKLAUNCH();
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), check, got.size() * 2, cudaMemcpyDeviceToHost));
    for (int r = 0; r < kTileRows; ++r)
      for (int c = 0; c < kTileK; ++c) {
        const int chunk = pattern == TILE8X4 ? ((c >> 3) ^ ((r >> 1) & 3)) : c >> 3;
        const int at = pattern == TILE8X4 ? r * kTileK + chunk * 8 + (c & 7) : r * kTileK + c;
        bad += got[at] != host[(size_t)r * max_pitch + (kSteps - 1) * kTileK + c];
      }
  }
  std::printf("correctness: %s (%lld mismatching elements)\n", bad == 0 ? "PASS" : "FAIL", bad);

  FILE* f = std::fopen(out, "w");
  if (!f) { std::perror(out); return 2; }
  std::fprintf(f, "op,pattern,pitch,ctas_per_sm,value,unit,method\n");
  // Row pitches: odd (4097), 8 KiB (4096), other multiples of 128 bytes (2048: 4 KiB, 6144: 12 KiB,
  // 4160: 8320 B = 65 lines), a multiple of 16 but not 128 bytes (4104); contig at 4097 and 4096.
  const std::vector<std::pair<int, int>> cases = {{TILE8X4, 4097}, {TILE8X4, 4096}, {TILE8X4, 4160}, {TILE8X4, 4104},
                                                  {TILE8X4, 2048}, {TILE8X4, 6144}, {CONTIG, 4097},  {CONTIG, 4096}};
  for (auto [pattern, pitch] : cases)
      for (int c : {1, 2, 4}) {
        std::vector<double> per;
        for (int rep = 0; rep < 4; ++rep) {
          ldg_kernel<<<nsm * c, kThreads>>>(a, b, pitch, pattern, cycles, nullptr);
          CKLAUNCH();
          CK(cudaDeviceSynchronize());
          if (rep > 0) per.push_back(median_of(cycles, nsm * c));
        }
        const double step = median(per) / kSteps;
        const double per_ldg = step / (256.0 * c);
        char m[700];
        std::snprintf(m, sizeof m,
                      "ld.global.u16 register-staged K steps (see calib_ldg.cu): two 128x32 bf16 tiles per step, %s "
                      "thread map, rows %d elements apart, %d CTA(s) of 128 threads per SM on %d SMs, 64 steps; "
                      "L2-resident tiles; clock64 per CTA, median over CTAs, median of 3 launches; SM clock %.0f MHz",
                      kPatternName[pattern], pitch, c, nsm, nvml.sm_mhz());
        std::fprintf(f, "ldg_kstep,%s,%d,%d,%s,cycles_per_kstep,%s\n", kPatternName[pattern], pitch, c, fmt(step, 1).c_str(),
                     csv_field(m).c_str());
        std::fprintf(f, "ldg_u16,%s,%d,%d,%s,sm_cycles_per_warp_inst,%s\n", kPatternName[pattern], pitch, c,
                     fmt(per_ldg, 3).c_str(), csv_field(m).c_str());
        std::fflush(f);
        std::printf("ldg %-8s pitch %d ctas/SM %d: %8.1f clk per K step, %6.3f SM clk per ld\n", kPatternName[pattern], pitch,
                    c, step, per_ldg);
      }
  for (int k8 : {0, 1}) {
    const int iters = 1024;
    std::vector<double> per;
    for (int rep = 0; rep < 4; ++rep) {
      mma_kernel<<<nsm, 256>>>(k8, iters, cycles, sink);
      CKLAUNCH();
      CK(cudaDeviceSynchronize());
      if (rep > 0) per.push_back(median_of(cycles, nsm));
    }
    const double flop = 8.0 * iters * 8 * (k8 ? 2048.0 : 4096.0);  // 8 warps x iters x 8 mma
    const double rate = flop / median(per);
    char m[400];
    std::snprintf(m, sizeof m,
                  "mma.sync.m16n8k%d bf16 (fp32 accumulate), 8 warps per SM x 8 independent accumulators x %d iterations, "
                  "one CTA per SM on %d SMs; clock64, median over CTAs, median of 3 launches; SM clock %.0f MHz",
                  k8 ? 8 : 16, iters, nsm, nvml.sm_mhz());
    std::fprintf(f, "mma_sync_m16n8k%d,bf16,0,1,%s,flop_per_sm_cycle,%s\n", k8 ? 8 : 16, fmt(rate, 1).c_str(), csv_field(m).c_str());
    std::printf("mma.sync m16n8k%d bf16: %.1f FLOP/clk/SM\n", k8 ? 8 : 16, rate);
  }
  std::fclose(f);
  std::printf("calib_ldg done (%s)\n", bad == 0 ? "checks passed" : "CHECKS FAILED");
  return bad == 0 ? 0 : 1;
}
