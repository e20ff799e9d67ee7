// calib_attn: how an attention kernel's pieces compose on one SM, without global memory.
//
// What it measures: SM cycles per KV block of the consumer loops in attn_kernels.h, with their
// operands resident in shared memory:
//   wgmma (cuDNN sm90 / FlashAttention-3 without intra-warpgroup overlap): 1 or 2 consumer
//     warpgroups, head dim 64/128/256, softmax off (conversion only) or on, with and without the
//     named-barrier ping-pong on the section after the row max; and the PV GEMM alone as a stream
//     with P from registers (RS) or from shared memory (SS);
//   mma.sync (FlashAttention-2): 4 warps per CTA, 1 or 2 CTAs per SM, the tiles of PyTorch's
//     flash kernels (d=64: 128x128, d=128: 128x64, d=256: 64x64), softmax off or on, with the
//     operands resident or K and V copied each block with cp.async (from L2 or from HBM).
// Comparing a row with the tensor-core time of its GEMMs (wgmma: 4096 FLOP/clk/SM; mma.sync:
// 2730) and with the softmax-only difference says what the pieces cost together; the model's
// attention lowerings are checked against the same loops (tools/bench/attn_model_check.py).
// How: one CTA per SM (wgmma; 200 KiB of dynamic shared memory) or 1-2 per SM (mma.sync) on all
// SMs, shared memory filled with random bf16 values in [-0.25, 0.25); clock64 around the loop
// between barriers, %globaltimer alongside (their ratio is the SM's clock); the row is the median
// over CTAs of the median of 3 launches after a warm-up.
//
// Usage: calib_attn [calibration_attn.csv] [mma|extra|held]   (mma: only the FlashAttention-2 loops;
//        extra: the wgmma loops with 96 uniform-datapath or FP32 bookkeeping instructions per block;
//        held: the two-warpgroup loops without turns, with turns as compiled, with turns that hold)
#include <string>

#include "attn_kernels.h"

using namespace bench;

namespace {

struct Ctx {
  CalibCsv* csv;
  int sms;
  long long* d_cyc;
  float* d_sink;
  unsigned long long* d_ns;
};

// Effective clock of the last launch: median over CTAs of cycles / ns.
double effective_mhz(const Ctx& c, int ctas) {
  std::vector<long long> cyc(ctas);
  std::vector<unsigned long long> ns(ctas);
  CK(cudaMemcpy(cyc.data(), c.d_cyc, ctas * sizeof(long long), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(ns.data(), c.d_ns, ctas * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  std::vector<double> r;
  for (int i = 0; i < ctas; ++i)
    if (ns[i] > 0) r.push_back(1e3 * (double)cyc[i] / (double)ns[i]);
  std::sort(r.begin(), r.end());
  return r.empty() ? 0.0 : r[r.size() / 2];
}

template <int D, int NWG, int SOFTMAX, bool PP, int MODE>
void run_wgmma(const Ctx& c) {
  auto k = attn_wgmma_kernel<D, NWG, SOFTMAX, PP, MODE>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, ATTN_SMEM));
  const int iters = 2000;
  const double cyc =
      median_cta_cycles([&] { k<<<c.sms, 128 * NWG, ATTN_SMEM>>>(iters, c.d_cyc, c.d_sink, c.d_ns); }, c.sms, c.d_cyc);
  const double mhz = effective_mhz(c, c.sms);
  const double per = cyc / iters;
  char q[96], m[700];
  if (MODE == 0 || MODE >= 3) {
    // tensor-core time per block at 4096 FLOP/clk/SM: S 64x128xD and PV 64xDx128 per warpgroup
    const double tensor = MODE == 3 ? 0.0 : NWG * 2.0 * (2.0 * 64 * 128 * D) / 4096.0;
    const char* mode = MODE == 3   ? "_nogemm"
                       : MODE == 4 ? "_wg0only"
                       : MODE == 5 ? "_xuniform"
                       : MODE == 6 ? "_xfp32"
                       : MODE == 7 ? "_held"
                                   : "";
    std::snprintf(q, sizeof q, "attn_wgmma_d%d_wg%d_softmax%d_pp%d%s", D, NWG, SOFTMAX, PP ? 1 : 0, mode);
    std::snprintf(m, sizeof m,
                  "SM cycles per KV block (128 keys) of %d consumer warpgroup(s) of 64 rows, head dim %d: S = %d x wgmma "
                  "m64n128k16 (SS), commit, wait 0; %s%s%s; PV = 8 x wgmma m64n%dk16 (RS, P from registers), commit, "
                  "wait 0%s; operands in shared memory; tensor-core time of the GEMMs %.0f clk; one CTA per SM on %d "
                  "SMs; clock64, median over CTAs of median of 3 launches; effective clock %.0f MHz "
                  "(tools/bench/calib_attn.cu)",
                  NWG, D, D / 16,
                  SOFTMAX == 1   ? "online softmax of 64 scores per thread"
                  : SOFTMAX == 2 ? "exponentials and row sum of 64 scores per thread"
                  : SOFTMAX == 3 ? "online softmax without the exponentials"
                                 : "bf16 conversion only",
                  MODE == 4 ? " (warpgroup 0 only; the others convert only)" : "",
                  PP ? " with named-barrier ping-pong after the row max" : "", D,
                  MODE == 3   ? "; MODE nogemm: no GEMMs, each score refreshed by one FFMA per block"
                  : MODE == 5 ? "; after the softmax a dependent chain of 96 integer operations on a warp-uniform value "
                                "(uniform datapath)"
                  : MODE == 6 ? "; after the softmax 96 FFMA per thread in 8 independent chains (FP32 pipe)"
                  : MODE == 7 ? "; ping-pong turns that hold (scores and P tied to the named barriers)"
                              : "",
                  tensor, c.sms,
                  mhz);
    std::printf("  wgmma d=%-3d wg%d softmax%d pp%d%s: %8.1f clk per block (GEMMs %5.0f, %.0f%%), %4.0f MHz\n", D,
                NWG, SOFTMAX, PP ? 1 : 0, mode, per, tensor, 100.0 * tensor / per, mhz);
  } else {
    const double tensor = NWG * 8.0 * (2.0 * 64 * D * 16) / 4096.0;
    std::snprintf(q, sizeof q, "attn_pv_%s_d%d_wg%d", MODE == 1 ? "rs" : "ss", D, NWG);
    std::snprintf(m, sizeof m,
                  "SM cycles per commit group of 8 x wgmma m64n%dk16 bf16 (A %s, B transposed from shared memory), "
                  "wait_group 1, %d warpgroup(s) per SM; tensor-core time %.0f clk; one CTA per SM on %d SMs; clock64, "
                  "median over CTAs of median of 3 launches; effective clock %.0f MHz (tools/bench/calib_attn.cu)",
                  D, MODE == 1 ? "from registers (RS)" : "from shared memory (SS)", NWG, tensor, c.sms, mhz);
    std::printf("  PV stream %s d=%-3d wg%d: %8.1f clk per group (tensor %5.0f, %.0f%%)\n", MODE == 1 ? "RS" : "SS", D,
                NWG, per, tensor, 100.0 * tensor / per);
  }
  c.csv->row(q, per, "cycles/block", m, 1);
}

template <int D, int ROWS, int KEYS, int SOFTMAX, int LOADS = 0, int EXTRA = 0>
void run_mma(const Ctx& c, int per_sm) {
  auto k = attn_mma_kernel<D, ROWS, KEYS, SOFTMAX, LOADS, EXTRA>;
  constexpr int SMEM = attn_mma_smem<D, ROWS, KEYS>();
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
  int fit = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, k, 128, SMEM));
  if (fit < per_sm) {
    std::printf("  mma d=%d %d CTAs/SM: only %d fit, skipped\n", D, per_sm, fit);
    return;
  }
  cudaFuncAttributes fa{};
  CK(cudaFuncGetAttributes(&fa, k));
  const int ctas = c.sms * per_sm, iters = LOADS == 2 ? 200 : 1000;
  constexpr long long TILE = (long long)KEYS * D * 2;
  const long long region = LOADS == 2 ? (long long)ctas * iters * 2 * TILE : (8ll << 20);
  uint8_t* kv = nullptr;
  if (LOADS > 0) {
    CK(cudaMalloc(&kv, region + 65536));
    CK(cudaMemset(kv, 0x3c, region + 65536));
  }
  const double cyc = median_cta_cycles([&] { k<<<ctas, 128, SMEM>>>(iters, c.d_cyc, c.d_sink, c.d_ns, kv, region); },
                                       ctas, c.d_cyc);
  if (kv) CK(cudaFree(kv));
  const double mhz = effective_mhz(c, ctas);
  const double per = cyc / iters;
  // tensor-core time of one CTA's block at the measured mma.sync rate (2730 FLOP/clk/SM)
  const double tensor = 2.0 * (2.0 * 4 * ROWS * KEYS * D) / 2730.0;
  char q[96], m[700];
  const char* loads = LOADS == 1   ? "_loads_l2"
                      : LOADS == 2 ? "_loads_hbm"
                      : LOADS == 3 ? "_loads_l2_nowait"
                      : LOADS == 4 ? "_loads_l2_1of16"
                                   : "";
  char fp32[24] = "";
  if (EXTRA > 0) std::snprintf(fp32, sizeof fp32, "fp32x%d_", EXTRA);
  std::snprintf(q, sizeof q, "attn_mma_%sd%d_%dx%d_ctas%d_softmax%d%s", fp32, D, 4 * ROWS, KEYS, per_sm, SOFTMAX, loads);
  std::snprintf(m, sizeof m,
                "cycles per KV block of each CTA (4 warps x %d rows, %d keys, head dim %d; %d CTAs per SM): per block "
                "__syncthreads, ldmatrix.x4 of Q and K + mma.sync m16n8k16 bf16 for S, %s%s, __syncthreads, "
                "ldmatrix.x4.trans of V + mma.sync for O; %s; one CTA's tensor time %.0f clk at "
                "2730 FLOP/clk/SM; %d registers/thread, %d B local memory; %d CTAs on %d SMs; clock64, median over "
                "CTAs of median of 3 launches; effective clock %.0f MHz (tools/bench/calib_attn.cu)",
                ROWS, KEYS, D, per_sm, SOFTMAX ? "online softmax" : "bf16 conversion only",
                EXTRA > 0 ? (" then " + std::to_string(EXTRA) + " FFMA per thread on 8 independent chains").c_str() : "",
                LOADS == 1   ? "K and V tiles copied each block with 16-byte cp.async (cg) from an L2-resident 8 MiB region, "
                               "in FlashAttention-2's order (V_j after K_j landed, K_j+1 after S_j and V_j landed)"
                : LOADS == 3 ? "K and V tiles copied each block from an L2-resident 8 MiB region, without the wait for V_j "
                               "between S_j and the softmax (K_j+1 issued there at once)"
                : LOADS == 4 ? "1/16 of each K and V tile copied each block from an L2-resident region, in "
                               "FlashAttention-2's order and waits"
                : LOADS == 2 ? "K and V tiles copied each block with 16-byte cp.async (cg) from a region of the CTA's own "
                               "(streamed from HBM), in FlashAttention-2's order"
                             : "operands in shared memory",
                tensor, fa.numRegs,
                (int)fa.localSizeBytes, ctas, c.sms, mhz);
  std::printf("  mma d=%-3d %dx%d %d CTA/SM softmax%d: %8.1f clk per block per CTA (tensor %5.0f per CTA), %d regs, "
              "%d B local, %4.0f MHz\n",
              D, 4 * ROWS, KEYS, per_sm, SOFTMAX, per, tensor, fa.numRegs, (int)fa.localSizeBytes, mhz);
  c.csv->row(q, per, "cycles/block", m, 1);
}

// The softmax's parts alone (no GEMMs) and with one warpgroup's GEMMs only, 1-3 warpgroups.
void softmax_set(const Ctx& c) {
  run_wgmma<128, 1, 1, false, 3>(c);
  run_wgmma<128, 2, 1, false, 3>(c);
  run_wgmma<128, 1, 2, false, 3>(c);
  run_wgmma<128, 2, 2, false, 3>(c);
  run_wgmma<128, 1, 3, false, 3>(c);
  run_wgmma<128, 2, 3, false, 3>(c);
  run_wgmma<128, 2, 1, true, 3>(c);
  run_wgmma<64, 2, 1, false, 4>(c);
  run_wgmma<128, 2, 1, false, 4>(c);
  run_wgmma<256, 2, 1, false, 4>(c);
  run_wgmma<64, 3, 1, false, 0>(c);
  run_wgmma<64, 3, 0, false, 0>(c);
  run_wgmma<128, 2, 2, false, 0>(c);
  run_wgmma<128, 2, 3, false, 0>(c);
}

template <int D>
void wgmma_set(const Ctx& c) {
  run_wgmma<D, 1, 0, false, 0>(c);
  run_wgmma<D, 1, 1, false, 0>(c);
  run_wgmma<D, 2, 0, false, 0>(c);
  run_wgmma<D, 2, 1, false, 0>(c);
  run_wgmma<D, 2, 1, true, 0>(c);
  run_wgmma<D, 1, 0, false, 1>(c);
  run_wgmma<D, 2, 0, false, 1>(c);
  run_wgmma<D, 2, 0, false, 2>(c);
}

// Per-block bookkeeping next to the softmax: 96 uniform-datapath integer operations or 96 FFMAs
// per thread (what cuDNN's kernels issue beside the softmax: 76 of their 130 per block are uniform).
void extra_set(const Ctx& c) {
  run_wgmma<64, 2, 1, false, 0>(c);
  run_wgmma<64, 2, 1, false, 5>(c);
  run_wgmma<64, 2, 1, false, 6>(c);
  run_wgmma<64, 1, 1, false, 5>(c);
  run_wgmma<64, 1, 1, false, 6>(c);
  run_wgmma<128, 2, 1, false, 0>(c);
  run_wgmma<128, 2, 1, false, 5>(c);
  run_wgmma<128, 2, 1, false, 6>(c);
  run_wgmma<128, 2, 1, true, 5>(c);
  run_wgmma<128, 2, 1, true, 6>(c);
}

// Ping-pong loops whose turns hold (MODE 7), beside the same loops as compiled (pp1) and without
// turns (pp0), at each head dim.
void held_set(const Ctx& c) {
  run_wgmma<64, 2, 1, false, 0>(c);
  run_wgmma<64, 2, 1, true, 0>(c);
  run_wgmma<64, 2, 1, true, 7>(c);
  run_wgmma<128, 2, 1, false, 0>(c);
  run_wgmma<128, 2, 1, true, 0>(c);
  run_wgmma<128, 2, 1, true, 7>(c);
  run_wgmma<256, 2, 1, false, 0>(c);
  run_wgmma<256, 2, 1, true, 0>(c);
  run_wgmma<256, 2, 1, true, 7>(c);
}

template <int D, int ROWS, int KEYS>
void mma_set(const Ctx& c) {
  for (int per_sm : {1, 2}) {
    run_mma<D, ROWS, KEYS, 0>(c, per_sm);
    run_mma<D, ROWS, KEYS, 1>(c, per_sm);
    run_mma<D, ROWS, KEYS, 1, 1>(c, per_sm);
    run_mma<D, ROWS, KEYS, 1, 2>(c, per_sm);
  }
  run_mma<D, ROWS, KEYS, 0, 1>(c, 2);
  run_mma<D, ROWS, KEYS, 1, 3>(c, 2);
  run_mma<D, ROWS, KEYS, 1, 4>(c, 2);
}

// What more FP32 instructions cost FlashAttention-2's d=128 loop at 2 CTAs per SM, resident and
// with copies (the kernel issues 790 SIMT instructions per thread and block, the loop 432).
void fp32_set(const Ctx& c) {
  run_mma<128, 32, 64, 1, 0>(c, 2);
  run_mma<128, 32, 64, 1, 1>(c, 2);
  run_mma<128, 32, 64, 1, 0, 128>(c, 2);
  run_mma<128, 32, 64, 1, 1, 128>(c, 2);
  run_mma<128, 32, 64, 1, 0, 256>(c, 2);
  run_mma<128, 32, 64, 1, 1, 256>(c, 2);
  run_mma<128, 32, 64, 1, 0, 384>(c, 2);
  run_mma<128, 32, 64, 1, 1, 384>(c, 2);
  run_mma<128, 32, 64, 1, 1, 384>(c, 1);
}

}  // namespace

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "calibration_attn.csv";
  const bool mma_only = argc > 2 && std::string(argv[2]) == "mma";
  const bool extra_only = argc > 2 && std::string(argv[2]) == "extra";
  const bool held_only = argc > 2 && std::string(argv[2]) == "held";
  const bool fp32_only = argc > 2 && std::string(argv[2]) == "fp32";
  Ctx c{};
  c.sms = open_device0();
  CalibCsv csv(out);
  c.csv = &csv;
  CK(cudaMalloc(&c.d_cyc, 4 * c.sms * sizeof(long long)));
  CK(cudaMalloc(&c.d_ns, 4 * c.sms * sizeof(unsigned long long)));
  CK(cudaMalloc(&c.d_sink, 4096 * sizeof(float)));
  std::printf("attention consumer loops (operands in shared memory)\n");
  if (held_only) {
    held_set(c);
    std::printf("calib_attn done\n");
    return 0;
  }
  if (fp32_only) {
    fp32_set(c);
    std::printf("calib_attn done\n");
    return 0;
  }
  if (extra_only) {
    extra_set(c);
    std::printf("calib_attn done\n");
    return 0;
  }
  if (!mma_only) {
    wgmma_set<64>(c);
    wgmma_set<128>(c);
    wgmma_set<256>(c);
    softmax_set(c);
  }
  mma_set<64, 32, 128>(c);
  mma_set<128, 32, 64>(c);
  mma_set<256, 16, 64>(c);
  std::printf("calib_attn done\n");
  return 0;
}
