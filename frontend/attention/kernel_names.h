// Import of attention schedules from kernel names (torch.profiler / nsys / CUPTI): the grammars,
// with real examples, are in docs/kernel-names.md ("Attention").
//   FlashAttention-2   flash_fwd_kernel<Flash_fwd_kernel_traits<D, BM, BN, warps, Q_in_regs, share_QK, T, ...>, ...>
//                      flash_fwd_splitkv_kernel<traits...> [+ flash_fwd_splitkv_combine_kernel<traits, BM, log_splits, even_K>]
//                      (also under namespaces pytorch_flash:: / flash::)
//   FlashAttention-3   device_kernel<...FlashAttnFwdSm90<CollectiveMainloopFwdSm90<stages, cluster<...>, tile<BM, BN, D>, ...
//                      compute_attn_ws<Flash_fwd_kernel_traits<D, BM, BN, warps, stages, Q_in_regs, cluster, T>, ...> (beta)
//   cuDNN              ..._sdpa_sm90_flash_fprop_wgmma_<type>_knob_<k>_<BM>x<BN>x<D>_<a>x<b>x<c>[_cga<x>x<y>x<z>]_kernel...
// A name is decoded or reported unsupported with the reason; nothing is guessed silently.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontend/attention/schedule.h"

namespace tgsim::attention {

struct KernelNameResult {
  bool supported = false;
  std::string reason;
  Schedule schedule;
  int head_dim = 0;       // head dimension the kernel was compiled for (0: not in the name)
  bool has_combine = false;  // a split-KV combine kernel follows
  std::vector<std::string> kernels;
  std::vector<std::string> notes;
};

// One name or a ';'-separated list (the measurement CSV's `kernel` column).
KernelNameResult parse_attention_kernel_names(std::string_view names);

// Top-level template arguments of the first `<...>` after `pos` (nested <> and () respected).
std::vector<std::string> template_args(std::string_view text, std::size_t open_pos);

}  // namespace tgsim::attention
