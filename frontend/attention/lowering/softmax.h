// SIMT work of FlashAttention's online softmax, in thread-instructions, counted from the
// algorithm (FlashAttention-2 paper, Algorithm 1; the compiled loops issue these per element):
//   per score element S[i][j] of a KV block:
//     FP32 pipe: running row max (FMNMX), scale and subtract the max (FFMA), row sum (FADD),
//                half a conversion of P to 16 bit (F2FP packs two)           -> 3.5
//     SFU:       exp2 (MUFU.EX2)                                              -> 1
//   per output element O[i][d] of a KV block: rescale by exp(m_old - m_new) (FMUL) -> 1
//   per score element of a block that needs the mask (causal diagonal, ragged KV end):
//     column index compare + select                                           -> 2
//   epilogue, per output element: multiply by 1/rowsum, convert                 -> 2
// No number here is fitted to a measurement.
#pragma once

namespace tgsim::attention {

inline constexpr double kSoftmaxFp32PerScore = 3.5;
inline constexpr double kSoftmaxSfuPerScore = 1.0;
inline constexpr double kRescalePerOutput = 1.0;
inline constexpr double kMaskPerScore = 2.0;
inline constexpr double kEpiloguePerOutput = 2.0;

}  // namespace tgsim::attention
