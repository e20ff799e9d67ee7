#include "frontend/attention/kernel_names.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <regex>

#include <fmt/format.h>

namespace tgsim::attention {
namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

std::optional<int> to_int(std::string_view s) {
  const std::string t = trim(s);
  // cute::C<128> / cute::_128 / 128
  std::string digits;
  for (char c : t) {
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
    else if (!digits.empty()) break;
  }
  if (digits.empty() || digits.size() > 6) return std::nullopt;
  int v = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), v);
  return v;
}

std::vector<std::string> split_list(std::string_view names) {
  std::vector<std::string> out;
  std::size_t start = 0;
  int depth = 0;
  for (std::size_t i = 0; i <= names.size(); ++i) {
    const char c = i < names.size() ? names[i] : ';';
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (c == ';' && depth <= 0) {
      std::string t = trim(names.substr(start, i - start));
      if (!t.empty()) out.push_back(std::move(t));
      start = i + 1;
    }
  }
  return out;
}

// FlashAttention-2 traits <D, BM, BN, warps, Q_in_regs, share_QK, T, ...>.
bool read_fa2_traits(const std::string& name, std::size_t at, KernelNameResult& r) {
  const auto traits = name.find("Flash_fwd_kernel_traits<", at);
  if (traits == std::string::npos) return false;
  const auto args = template_args(name, traits + std::string_view("Flash_fwd_kernel_traits").size());
  if (args.size() < 4) return false;
  const auto d = to_int(args[0]), bm = to_int(args[1]), bn = to_int(args[2]), w = to_int(args[3]);
  if (!d || !bm || !bn || !w || *w <= 0) return false;
  r.head_dim = *d;
  r.schedule.block_m = *bm;
  r.schedule.block_n = *bn;
  r.schedule.warps = *w;
  if (args.size() > 4) r.schedule.q_in_registers = trim(args[4]) == "true";
  return true;
}

bool parse_fa2(const std::string& name, KernelNameResult& r) {
  const bool split = name.find("flash_fwd_splitkv_kernel<") != std::string::npos;
  const auto at = name.find(split ? "flash_fwd_splitkv_kernel<" : "flash_fwd_kernel<");
  if (!read_fa2_traits(name, at, r)) {
    r.reason = fmt::format("\"{}\": FlashAttention-2 kernel without readable Flash_fwd_kernel_traits<D, BM, BN, warps, ...>", name);
    return false;
  }
  r.schedule.family = Family::fa2;
  r.schedule.split_kernel = split;
  r.schedule.name = fmt::format("fa2{}_{}x{}_{}w_d{}", split ? "_splitkv" : "", r.schedule.block_m, r.schedule.block_n,
                                r.schedule.warps, r.head_dim);
  if (split) {
    r.schedule.splits = 0;  // a run-time argument: the library's heuristic (docs/attention.md)
    r.notes.push_back("split-KV kernel: the number of splits is a run-time argument, taken from FlashAttention-2's heuristic");
  }
  return true;
}

// FlashAttention-3: CollectiveMainloopFwdSm90<stages, cluster tuple, tile tuple (BM, BN, D), ...>
// or the beta's compute_attn_ws<Flash_fwd_kernel_traits<D, BM, BN, warps, stages, Q_in_regs, cluster, T>>.
bool parse_fa3(const std::string& name, KernelNameResult& r) {
  r.schedule.family = Family::fa3;
  const auto ml = name.find("CollectiveMainloopFwdSm90<");
  if (ml != std::string::npos) {
    const auto args = template_args(name, ml + std::string_view("CollectiveMainloopFwdSm90").size());
    if (args.size() >= 3) {
      const auto stages = to_int(args[0]);
      const auto tile_open = args[2].find('<');
      const auto tile = tile_open == std::string::npos ? std::vector<std::string>{} : template_args(args[2], tile_open - 0);
      if (stages && tile.size() == 3 && to_int(tile[0]) && to_int(tile[1]) && to_int(tile[2])) {
        r.schedule.stages = *stages;
        r.schedule.block_m = *to_int(tile[0]);
        r.schedule.block_n = *to_int(tile[1]);
        r.head_dim = *to_int(tile[2]);
      }
    }
  } else if (const auto ws = name.find("compute_attn_ws<"); ws != std::string::npos && read_fa2_traits(name, ws, r)) {
    // beta traits: <D, BM, BN, warps, stages, ...>: re-read the stage count (5th argument)
    const auto t = name.find("Flash_fwd_kernel_traits<", ws);
    const auto args = template_args(name, t + std::string_view("Flash_fwd_kernel_traits").size());
    if (args.size() > 4 && to_int(args[4])) r.schedule.stages = *to_int(args[4]);
    r.schedule.q_in_registers = false;
  }
  if (r.head_dim == 0) {
    r.reason = fmt::format("\"{}\": FlashAttention-3 kernel without a readable tile shape", name);
    return false;
  }
  // Consumer warpgroups own 64 query rows each (hdim 64: 192 rows, 3 warpgroups).
  r.schedule.consumer_warpgroups = std::clamp(r.schedule.block_m / 64, 1, 3);
  r.schedule.longest_first = true;
  r.schedule.name = fmt::format("fa3_{}x{}_d{}_{}st", r.schedule.block_m, r.schedule.block_n, r.head_dim, r.schedule.stages);
  return true;
}

// cuDNN: "<prefix>sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_4x1x1[_cga1x1x1]_kernel0_0".
bool parse_cudnn(const std::string& name, KernelNameResult& r) {
  static const std::regex re(R"(sdpa_sm(\d+)_flash_fprop_(wgmma|wmma|mma)_([a-z0-9]+)_knob_(\d+)_(\d+)x(\d+)x(\d+)_(\d+)x(\d+)x(\d+))");
  std::smatch m;
  if (!std::regex_search(name, m, re)) {
    r.reason = fmt::format("\"{}\": cuDNN SDPA kernel name without the sm/flash_fprop/knob/<BM>x<BN>x<D>/<warps> fields", name);
    return false;
  }
  // Every field must be a sensible positive number (the regex only promises digits).
  int field[5] = {0, 0, 0, 0, 0};
  for (int i = 0; i < 5; ++i) {
    const auto v = to_int(std::string(m[static_cast<std::size_t>(5 + i)]));
    if (!v || *v <= 0 || *v > 4096) {
      r.reason = fmt::format("\"{}\": cuDNN SDPA tile/warp field \"{}\" is not a number in [1, 4096]", name,
                             std::string(m[static_cast<std::size_t>(5 + i)]));
      return false;
    }
    field[i] = *v;
  }
  r.schedule.block_m = field[0];
  r.schedule.block_n = field[1];
  r.head_dim = field[2];
  const int warps_m = field[3], warps_n = field[4];
  if (m[2] != "wgmma") {
    // sm80 code (mma.sync, cp.async): the FlashAttention-2 structure with warps_m x warps_n warps.
    r.schedule.family = Family::cudnn_sm80;
    r.schedule.warps = std::max(1, warps_m * warps_n);
    r.schedule.warps_along_kv = warps_n > 1;
    if (warps_m > 1 && warps_n > 1) {
      r.reason = fmt::format("\"{}\": warps split both rows and keys ({}x{}), not modelled", name, warps_m, warps_n);
      return false;
    }
    r.notes.push_back("cuDNN sm80 kernel: FlashAttention-2 structure (cp.async, mma.sync) assumed from the name's fields");
    r.schedule.name = fmt::format("cudnn_sm{}_{}x{}_d{}_{}x{}w_knob{}", std::string(m[1]), r.schedule.block_m,
                                  r.schedule.block_n, r.head_dim, warps_m, warps_n, std::string(m[4]));
    return true;
  }
  // <a>x<b>x<c>: the warps of one consumer warpgroup along M, N, K of its BM-row tile. The
  // kernels run 384 threads (a producer warpgroup and two consumer warpgroups), persistent on
  // every SM, with 168 registers and all the shared memory (profiler launch records,
  // traces/h200/attention_kernel_info.csv): two consumer warpgroups each holding a BM-row tile.
  // Modelled as one CTA of 2 x BM rows with the structure their SASS shows
  // (set_cudnn_sm90_structure) and as many K/V stages as shared memory holds.
  if (warps_m != 4 || r.schedule.block_m != 64) {
    r.reason = fmt::format("\"{}\": cuDNN sm90 tile {}x{} with {} warps along M is not modelled (known: 64 rows, 4 warps)",
                           name, r.schedule.block_m, r.schedule.block_n, warps_m);
    return false;
  }
  set_cudnn_sm90_structure(r.schedule);  // stages: as many as fit, at most 4 (warp_specialized.cpp)
  r.schedule.block_m = 2 * r.schedule.block_m;
  r.notes.push_back("cuDNN: producer + 2 consumer warpgroups (launch records); GEMMs waited for before the softmax, "
                    "warpgroups taking turns on their exponentials (the kernels' SASS)");
  r.schedule.name = fmt::format("cudnn_sm{}_{}x{}_d{}_knob{}", std::string(m[1]), r.schedule.block_m, r.schedule.block_n,
                                r.head_dim, std::string(m[4]));
  return true;
}

}  // namespace

std::vector<std::string> template_args(std::string_view text, std::size_t open_pos) {
  std::vector<std::string> out;
  const auto open = text.find('<', open_pos);
  if (open == std::string_view::npos) return out;
  int depth = 0;
  std::size_t start = open + 1;
  for (std::size_t i = open; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<' || c == '(') {
      ++depth;
    } else if (c == '>' || c == ')') {
      if (--depth == 0) {
        out.push_back(trim(text.substr(start, i - start)));
        return out;
      }
    } else if (c == ',' && depth == 1) {
      out.push_back(trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  return {};  // unbalanced
}

KernelNameResult parse_attention_kernel_names(std::string_view names) {
  KernelNameResult r;
  r.kernels = split_list(names);
  if (r.kernels.empty()) {
    r.reason = "empty kernel name";
    return r;
  }
  bool main_found = false;
  for (const auto& k : r.kernels) {
    if (k.find("flash_fwd_splitkv_combine_kernel") != std::string::npos || k.find("lean_reduction_kernel") != std::string::npos) {
      r.has_combine = true;
      continue;
    }
    const bool is_fa2 = k.find("flash_fwd_kernel<") != std::string::npos || k.find("flash_fwd_splitkv_kernel<") != std::string::npos;
    const bool is_fa3 = k.find("FlashAttnFwdSm90") != std::string::npos || k.find("compute_attn_ws<") != std::string::npos;
    const bool is_cudnn = k.find("sdpa_") != std::string::npos && k.find("flash_fprop") != std::string::npos;
    if (!is_fa2 && !is_fa3 && !is_cudnn) {
      r.reason = fmt::format("\"{}\": not a FlashAttention-2/3 or cuDNN SDPA forward kernel (docs/kernel-names.md)", k);
      return r;
    }
    if (main_found) {
      r.reason = fmt::format("more than one attention kernel in \"{}\"", std::string(names));
      return r;
    }
    main_found = true;
    const bool ok = is_fa3 ? parse_fa3(k, r) : is_fa2 ? parse_fa2(k, r) : parse_cudnn(k, r);
    if (!ok) return r;
  }
  if (!main_found) {
    r.reason = "only a split-KV combine kernel: the attention kernel itself is missing";
    return r;
  }
  if (r.has_combine && r.schedule.family == Family::cudnn_sm80) {
    r.schedule.split_kernel = true;  // cuDNN's split-KV decode: partials merged by lean_reduction_kernel
    r.schedule.splits = 0;
    r.notes.push_back("cuDNN split-KV: the split count is not in the names; FlashAttention-2's heuristic is used");
  }
  if (r.has_combine && !r.schedule.split_kernel) {
    r.reason = "a split-KV combine kernel after a kernel that is not the split-KV variant";
    return r;
  }
  if (r.schedule.split_kernel && !r.has_combine) r.schedule.splits = 1;  // ran unsplit (no combine)
  r.supported = true;
  return r;
}

}  // namespace tgsim::attention
