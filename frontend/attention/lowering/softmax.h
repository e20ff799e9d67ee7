// SIMT work of an attention kernel's online softmax and mainloop, in thread-instructions per KV
// block (a thread issues one per element it holds; a warp-instruction takes one issue slot).
//
// FlashAttention-2 (PyTorch's flash kernels) and cuDNN's sm90 kernel: counted from the kernels'
// SASS, `Instructions Executed` per instruction from Nsight Compute's source counters on the H200
// (tools/bench/run_ncu.sh attention -> traces/h200/attention_ncu_ops.csv, docs/attention.md),
// divided by the kernel's warp-blocks and split into a per-score and a per-output part across
// head dims 64/128/256 (the split reproduces each kernel's total within 4%):
//   FA2,   per score: FMUL 3.25, FADD 2, FSETP 1.1, FMNMX 1.1, F2FP 0.5      -> 8.0;  MUFU.EX2 1.0
//   cuDNN, per score: FMUL 1, FADD 2, FMNMX 1, F2FP 0.5 (+ FSETP/FSEL/FFMA)  -> 4.75; MUFU.EX2 1.0
//   both,  per output element: FMUL 1 (O rescale by exp(m_old - m_new))
//   per warp and KV block, everything else the mainloop issues (addressing, loop, cp.async/TMA
//   and barrier bookkeeping, register moves, FA2's spills): FA2 107-180 (d=256..128), cuDNN
//   consumer warps 116-145 -> 150 and 130;
//   causal diagonal blocks, FA2: FSEL, ISETP, IMAD, VIADD of the mask, ~4.2 per score -> 4.
//   Of cuDNN's per-block instructions, the uniform-datapath ones (UMOV, UIADD3, R2UR, UISETP:
//   wgmma descriptors and loop state, set up around each HGMMA) are 4 per wgmma instruction + 8:
//   56 per warp and block in the d=64 loop's SASS (attention_short_ncu_sass.csv.gz), 80 and 104
//   at d=128/256 by the opcode histograms (attention_ncu_ops.csv, producer's share included).
// The compiled kernels issue about twice the FP32 work the algorithm needs (FlashAttention-2
// paper, Algorithm 1: max, scale-subtract, sum, half a conversion = 3.5 per score).
// FlashAttention-3 (not measured here) takes cuDNN's counts: the same warp-specialised wgmma
// algorithm on the same architecture. cuDNN's sm80 decode kernel takes FlashAttention-2's (its
// lowering is FlashAttention-2's; it is memory-bound, so this matters little).
// No number here is fitted to a timing.
#pragma once

#include <algorithm>

#include "frontend/attention/schedule.h"
#include "sim/hw/gpu_spec.h"

namespace tgsim::attention {

struct SoftmaxCost {
  double fp32_per_score = 0;   // FP32/ALU-pipe instructions per score element
  double max_per_score = 0;    // of which the row max (FMNMX), before the exponentials
  double sfu_per_score = 0;    // MUFU.EX2 per score element
  double fp32_per_output = 0;  // O rescale per output element
  double mask_per_score = 0;   // extra per score of a block that needs the mask
  double per_block = 0;        // other instructions per thread and KV block
  // of which on the uniform datapath (wgmma kernels: descriptors and loop state), per wgmma
  // instruction of the block and per block
  double uniform_per_wgmma = 0;
  double uniform_per_block = 0;
};

// The epilogue per output element: multiply by 1/rowsum, convert (algorithm count).
inline constexpr double kEpiloguePerOutput = 2.0;

inline SoftmaxCost softmax_cost(Family f) {
  switch (f) {
    case Family::fa2:
    case Family::cudnn_sm80: return {8.0, 1.1, 1.0, 1.0, 4.0, 150.0};
    case Family::fa3:
    case Family::cudnn: return {4.75, 1.0, 1.0, 1.0, 2.0, 130.0, 4.0, 8.0};
  }
  return {};
}

// The row max as the dependent chain it is. In both mma.sync's and wgmma's accumulator layouts
// four threads share a row, each holding keys / 4 of its scores: keys / 4 - 1 dependent
// max.f32, then two butterfly shuffles, each followed by a max. Returns the chain's cycles
// beyond `issue_cycles` (the warp's max instructions, charged as pipe time), 0 when the spec
// has no shuffle latency.
inline double row_max_chain_cycles(double keys, const hw::GpuSpec& spec, double issue_cycles) {
  if (spec.simt.shuffle_latency.value <= 0) return 0.0;
  const double chain =
      (keys / 4 - 1) * spec.simt.latency.value + 2 * (spec.simt.shuffle_latency.value + spec.simt.latency.value);
  return std::max(0.0, chain - issue_cycles);
}

}  // namespace tgsim::attention
