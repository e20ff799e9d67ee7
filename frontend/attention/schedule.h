// An attention kernel's schedule as data: which kernel family, its tile sizes and pipelining,
// how the KV length is split. Families (docs/attention.md):
//   fa2   FlashAttention-2 (what PyTorch's flash backend runs on Ampere and Hopper): every warp
//         loads (cp.async) and computes (mma.sync); warps split the Q tile's rows;
//   fa3   FlashAttention-3 (Hopper): a TMA producer warp and 2-3 consumer warpgroups issuing
//         wgmma, ping-pong between warpgroups and softmax/GEMM overlap inside one;
//   cudnn cuDNN's fused flash attention on Hopper (wgmma, TMA, warp-specialised), from the
//         fields its kernel name carries;
//   cudnn_sm80  cuDNN's mma.sync flash kernel (sm80 code; cuDNN runs it for decode on Hopper):
//         the FlashAttention-2 structure, warps possibly splitting the KV block instead of rows.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tgsim::attention {

enum class Family { fa2, fa3, cudnn, cudnn_sm80 };

std::string_view to_string(Family f);

struct Schedule {
  std::string name;
  Family family = Family::fa2;
  int block_m = 128;  // query rows per CTA tile
  int block_n = 64;   // keys per KV block (one mainloop iteration)
  int warps = 4;      // fa2, cudnn_sm80: warps per CTA (they split block_m, or block_n below)
  bool warps_along_kv = false;  // fa2, cudnn_sm80: warps split the KV block; partial O reduced at the end
  int consumer_warpgroups = 2;  // fa3/cudnn: warpgroups issuing wgmma (they split block_m)
  int stages = 2;               // fa3/cudnn: K/V pipeline stages in shared memory
  bool intra_warpgroup_overlap = true;  // fa3: softmax of block j overlaps the GEMMs of j+1 / j-1
  bool pingpong = true;                 // fa3: named barriers alternate the warpgroups' GEMMs
  // With pingpong: the warpgroups take turns on their exponentials instead (cuDNN's sm90 kernels:
  // BAR.SYNC before and BAR.ARV after the exp section of the softmax, in their SASS).
  bool pingpong_exp = false;
  bool q_in_registers = false;          // fa2: Q fragments kept in registers (else re-read via ldmatrix)
  // Split-KV (flash-decoding): the KV length is cut into `splits` pieces run by separate CTAs,
  // then a combine kernel merges the partial outputs. 0: the library's heuristic decides.
  int splits = 1;
  bool split_kernel = false;  // the split-KV kernel variant (writes fp32 partials + LSE)
  // Decode with GQA (seq_q == 1): the query heads of one KV group become the rows of one tile
  // (FlashAttention-2's "seqlen_q / ngroups swap").
  bool pack_gqa = false;
  // CTA launch order of the m blocks: false = blockIdx order (m block fastest, as FA2 launches);
  // true = causal tiles with the most KV blocks first (FA3's scheduler).
  bool longest_first = false;
  // fa3/cudnn: persistent CTAs (as many as fit on the GPU at once) that take the tiles in launch
  // order, each the next one when it is free (FA3's tile schedulers; cuDNN's sm90 kernels launch
  // one CTA per SM). The producer loads the next tile's Q and K/V while the consumers finish the
  // current tile, so a tile's start-up and epilogue overlap its neighbours'.
  bool persistent = false;
};

// cuDNN's sm90 flash forward structure (kernels seen on the H200, their SASS in the Nsight
// Compute run, docs/attention.md): a producer and two consumer warpgroups of block_m / 2 rows,
// 4 K/V stages, no intra-warpgroup overlap (each GEMM group is waited for before the softmax:
// WARPGROUP.DEPBAR after S and after PV), the warpgroups taking turns on their exponentials.
void set_cudnn_sm90_structure(Schedule& s);

nlohmann::json to_json(const Schedule& s);
// Reads a schedule file's object; `where` names the file for errors (InputError with JSON paths).
Schedule schedule_from_json(const nlohmann::json& j, const std::string& where);
Schedule load_schedule_file(const std::string& path);

}  // namespace tgsim::attention
