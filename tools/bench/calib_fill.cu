// calib_fill: what cp.async copies into one CTA's shared memory cost a co-resident CTA's
// ldmatrix and mma.sync work on the same SM (FlashAttention-2 and CUTLASS 2.x GEMMs run two
// CTAs per SM, each copying its next K/V or A/B tiles while the other computes).
//
// What it measures (fill_kernels.h): on every SM one victim CTA (4 warps) runs a fixed loop of
// ldmatrix.x4 (ldsm), of mma.sync from registers (mma), or FlashAttention-2's pipelined
// ldmatrix + mma.sync step (ldsm_mma), while a copier CTA on the same SM copies 32 KiB rounds
// with 16-byte cp.async.cg from an L2-resident region (l2; l2x2: two rounds in flight; l2_4b,
// l2_8b: 4- or 8-byte copies; l2_4b_swz, l2_8b_swz: the same into swizzled 128-byte rows with
// bank conflicts, as CUTLASS's align2 kernels; l2_tma: TMA bulk copies), from HBM (hbm), or does
// nothing (none);
// a victim of FP32 FMAs (fma) checks the SIMT pipe. Rows: the victim's SM cycles per iteration
// (median over SMs of the median of 3 launches), and the copier's shared-memory fill rate in
// bytes per SM cycle while the victim ran (idle victim: the copier alone).
// How: grid = 2 x SMs CTAs of 128 threads, 100 KiB of dynamic shared memory each (two fit per
// SM, three do not); the first CTA on an SM (%smid ticket) is the victim, the second the copier;
// the victim starts once its copier has arrived and flags the copier to stop when done.
//
// Usage: calib_fill [calibration_fill.csv]
#include <string>
#include <vector>

#include "fill_kernels.h"

using namespace bench;

namespace {

const char* kVictim[] = {"ldsm", "mma", "ldsm_mma", "idle", "fma"};
const char* kCopy[] = {"none", "l2", "hbm", "l2x2", "l2_4b", "l2_8b", "l2_tma", "l2_4b_swz", "l2_8b_swz"};
// Work per warp and iteration, for the method text.
const char* kVictimWork[] = {"8 ldmatrix.x4 (4 KiB)", "16 mma.sync m16n8k16 bf16 from registers",
                             "6 ldmatrix.x4 + 16 mma.sync m16n8k16 bf16, next step's loads before this step's MMAs",
                             "a 1000 ns sleep", "32 fma.rn.f32 on 8 independent chains"};

struct Bufs {
  int sms = 0;
  int* tickets = nullptr;
  int* done = nullptr;
  long long* vcyc = nullptr;
  long long* cbytes = nullptr;
  long long* ccyc = nullptr;
  uint8_t* l2src = nullptr;
  uint8_t* hbmsrc = nullptr;
  float* sink = nullptr;
};

template <int VICTIM, int COPY>
void run(CalibCsv& csv, const Bufs& b, int iters) {
  auto k = pair_kernel<VICTIM, COPY>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, FILL_SMEM));
  int fit = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, k, 128, FILL_SMEM));
  if (fit != 2) {
    std::printf("  %s/%s: %d CTAs fit per SM (need exactly 2), skipped\n", kVictim[VICTIM], kCopy[COPY], fit);
    return;
  }
  const int slots = 256;  // %smid can exceed the SM count on some parts; 256 covers it
  std::vector<double> victim, rate;
  std::vector<long long> vc(slots), cb(slots), cc(slots);
  for (int rep = 0; rep < 4; ++rep) {
    CK(cudaMemset(b.tickets, 0, slots * sizeof(int)));
    CK(cudaMemset(b.done, 0, slots * sizeof(int)));
    CK(cudaMemset(b.vcyc, 0, slots * sizeof(long long)));
    CK(cudaMemset(b.cbytes, 0, slots * sizeof(long long)));
    CK(cudaMemset(b.ccyc, 0, slots * sizeof(long long)));
    k<<<2 * b.sms, 128, FILL_SMEM>>>(iters, b.tickets, b.done, b.vcyc, b.cbytes, b.ccyc,
                                     COPY == 2 ? b.hbmsrc : b.l2src, b.sink);
    CKLAUNCH();
    CK(cudaDeviceSynchronize());
    if (rep == 0) continue;  // warm-up
    CK(cudaMemcpy(vc.data(), b.vcyc, slots * sizeof(long long), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(cb.data(), b.cbytes, slots * sizeof(long long), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(cc.data(), b.ccyc, slots * sizeof(long long), cudaMemcpyDeviceToHost));
    std::vector<double> v, r;
    for (int s = 0; s < slots; ++s) {
      if (vc[s] > 0) v.push_back((double)vc[s] / iters);
      if (cc[s] > 0 && cb[s] > 0) r.push_back((double)cb[s] / (double)cc[s]);
    }
    if (!v.empty()) victim.push_back(median(v));
    if (!r.empty()) rate.push_back(median(r));
  }
  const std::string tag = std::string("fill_") + kVictim[VICTIM] + "_copy_" + kCopy[COPY];
  char m[640];
  std::snprintf(m, sizeof m,
                "victim CTA (4 warps; per warp and iteration %s) with a copier CTA on the same SM copying 32 KiB rounds "
                "of cp.async %s (16-byte cp.async.cg unless said); 2 CTAs per SM on %d SMs (%%smid tickets); clock64; median over SMs of the "
                "median of 3 launches (tools/bench/calib_fill.cu)",
                kVictimWork[VICTIM],
                COPY == 0   ? "(none: it waits)"
                : COPY == 1 ? "from a 4 MiB L2-resident region"
                : COPY == 2 ? "from HBM (64 MiB per copier)"
                : COPY == 3 ? "from a 4 MiB L2-resident region, two rounds in flight"
                : COPY == 4 ? "from a 4 MiB L2-resident region, 4 bytes per lane (cp.async.ca 4)"
                : COPY == 5 ? "from a 4 MiB L2-resident region, 8 bytes per lane (cp.async.ca 8)"
                : COPY == 7 ? "from a 4 MiB L2-resident region, 4 bytes per lane into swizzled 128-byte rows (lane l row l; 8 lanes per bank)"
                : COPY == 8 ? "from a 4 MiB L2-resident region, 8 bytes per lane into swizzled 128-byte rows (lane l row l)"
                            : "from a 4 MiB L2-resident region with TMA bulk copies (4 x 8 KiB per round)",
                b.sms);
  if (VICTIM != 3 && !victim.empty()) csv.row(tag + "_victim", median(victim), "cycles/iter", m, 1);
  if (COPY != 0 && !rate.empty()) csv.row(tag + "_fill", median(rate), "B/clk/SM", m, 2);
}

template <int VICTIM>
void run_victim(CalibCsv& csv, const Bufs& b, int iters) {
  run<VICTIM, 0>(csv, b, iters);
  run<VICTIM, 1>(csv, b, iters);
  run<VICTIM, 2>(csv, b, iters);
  run<VICTIM, 3>(csv, b, iters);
  run<VICTIM, 4>(csv, b, iters);
  run<VICTIM, 5>(csv, b, iters);
  run<VICTIM, 6>(csv, b, iters);
  run<VICTIM, 7>(csv, b, iters);
  run<VICTIM, 8>(csv, b, iters);
}

}  // namespace

int main(int argc, char** argv) {
  Bufs b;
  b.sms = open_device0();
  CalibCsv csv(argc > 1 ? argv[1] : nullptr);
  const int slots = 256;
  CK(cudaMalloc(&b.tickets, slots * sizeof(int)));
  CK(cudaMalloc(&b.done, slots * sizeof(int)));
  CK(cudaMalloc(&b.vcyc, slots * sizeof(long long)));
  CK(cudaMalloc(&b.cbytes, slots * sizeof(long long)));
  CK(cudaMalloc(&b.ccyc, slots * sizeof(long long)));
  CK(cudaMalloc(&b.sink, 1024 * sizeof(float)));
  CK(cudaMalloc(&b.l2src, 2 * FILL_L2_REGION + 65536));
  CK(cudaMemset(b.l2src, 0x3c, 2 * FILL_L2_REGION + 65536));
  const size_t hbm = (size_t)FILL_HBM_REGION * slots;
  CK(cudaMalloc(&b.hbmsrc, hbm));
  CK(cudaMemset(b.hbmsrc, 0x3c, hbm));
  std::printf("calib_fill: victim cycles per iteration, copier fill rate\n");
  run_victim<0>(csv, b, 20000);
  run_victim<1>(csv, b, 20000);
  run_victim<2>(csv, b, 20000);
  run_victim<3>(csv, b, 2000);
  run_victim<4>(csv, b, 20000);
  CK(cudaFree(b.hbmsrc));
  CK(cudaFree(b.l2src));
  return 0;
}
