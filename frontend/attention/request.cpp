#include "frontend/attention/request.h"

#include <fmt/format.h>

#include "frontend/attention/kernel_names.h"
#include "frontend/attention/lower.h"
#include "sim/units/error.h"

namespace tgsim::attention {
namespace {

// FlashAttention-2 (run_mha_fwd_hdim*, sm80/sm90, no dropout): 128x128 tiles of 4 warps up to
// d=64, 128x64 of 4 warps up to d=128; above, 128x64 of 8 warps where one CTA can have
// 2·d·(128 + 2·64) B of shared memory but an SM not 4·d·(64 + 2·64) B (the A100), else 64x64 of 4
// warps, two CTAs per SM (the H100/H200: what PyTorch ran on the H200, attention_kernel_info.csv;
// flash-attn's csrc/flash_attn/src/flash_fwd_launch_template.h). The split-KV kernel: 64-row
// tiles, KV blocks of 256/128/64 keys (d <= 64 / <= 128 / above), 4 warps, split count from the
// heuristic (lower.cpp), used when it picks more than one split.
Schedule fa2_default(const Problem& p, const hw::GpuSpec& spec) {
  Schedule s;
  s.family = Family::fa2;
  Schedule split = s;
  split.block_m = 64;
  split.block_n = p.head_dim <= 64 ? 256 : p.head_dim <= 128 ? 128 : 64;
  split.warps = 4;
  split.splits = 0;
  split.split_kernel = false;
  const auto lowered = lower_attention(p, split, spec);
  if (lowered.schedule.splits > 1) {
    split.split_kernel = true;
    split.name = fmt::format("fa2_splitkv_64x{}_4w_d{}", split.block_n, p.head_dim);
    return split;
  }
  s.block_m = 128;
  s.block_n = p.head_dim <= 64 ? 128 : 64;
  s.warps = 4;
  if (p.head_dim > 128) {
    const double d = static_cast<double>(p.head_dim);
    const bool big_cta = static_cast<double>(spec.sm.shared_memory_per_cta.value) >= 2 * d * (128 + 2 * 64) &&
                         static_cast<double>(spec.sm.shared_memory.value) < 4 * d * (64 + 2 * 64);
    s.block_m = big_cta ? 128 : 64;
    s.warps = big_cta ? 8 : 4;
  }
  s.name = fmt::format("fa2_{}x{}_{}w_d{}", s.block_m, s.block_n, s.warps, p.head_dim);
  return s;
}

// FlashAttention-3 (hopper/flash_fwd_launch_template.h, run_mha_fwd_hdim*): d=64 192x128 with
// 3 consumer warpgroups; d=128 128x128 causal, 128x176 otherwise; d=256 128x80; 2 stages.
Schedule fa3_default(const Problem& p) {
  Schedule s;
  s.family = Family::fa3;
  s.stages = 2;
  if (p.head_dim <= 64) {
    s.block_m = 192;
    s.block_n = 128;
  } else if (p.head_dim <= 128) {
    s.block_m = 128;
    s.block_n = p.causal ? 128 : 176;
  } else {
    s.block_m = 128;
    s.block_n = 80;
  }
  s.consumer_warpgroups = s.block_m / 64;
  s.longest_first = true;
  s.name = fmt::format("fa3_{}x{}_d{}", s.block_m, s.block_n, p.head_dim);
  return s;
}

// cuDNN's sm90 flash forward as seen on H200 (sdpa_sm90_flash_fprop_wgmma_*_64x128x<d>_4x1x1):
// two consumer warpgroups of 64 rows, 128-key blocks (docs/attention.md).
Schedule cudnn_default(const Problem& p) {
  Schedule s;
  set_cudnn_sm90_structure(s);
  s.block_m = 128;
  s.block_n = 128;
  s.name = fmt::format("cudnn_sm90_128x128_d{}", p.head_dim);
  return s;
}

}  // namespace

std::optional<Family> parse_family(const std::string& name) {
  if (name == "fa2") return Family::fa2;
  if (name == "fa3") return Family::fa3;
  if (name == "cudnn") return Family::cudnn;
  if (name == "cudnn_sm80") return Family::cudnn_sm80;
  return std::nullopt;
}

Schedule default_schedule(const Problem& p, Family family, const hw::GpuSpec& spec) {
  switch (family) {
    case Family::fa3: return fa3_default(p);
    case Family::cudnn: return cudnn_default(p);
    case Family::cudnn_sm80: {
      Schedule s = fa2_default(p, spec);
      s.family = Family::cudnn_sm80;
      return s;
    }
    case Family::fa2: break;
  }
  return fa2_default(p, spec);
}

Resolved resolve(const Request& r, const hw::GpuSpec& spec) {
  check_problem(r.problem);
  Resolved out;
  out.problem = r.problem;
  if (!r.kernel.empty()) {
    auto parsed = parse_attention_kernel_names(r.kernel);
    if (!parsed.supported) throw InputError(fmt::format("unsupported kernel name: {}", parsed.reason));
    if (parsed.head_dim > 0 && parsed.head_dim < r.problem.head_dim)
      throw InputError(fmt::format("kernel is compiled for head_dim {}, the problem has {}", parsed.head_dim, r.problem.head_dim));
    if (parsed.head_dim > r.problem.head_dim) {
      out.notes.push_back(fmt::format("head_dim {} runs the kernel compiled for {} (padded)", r.problem.head_dim, parsed.head_dim));
      out.problem.head_dim = parsed.head_dim;
    }
    out.schedule = parsed.schedule;
    out.source = "kernel name";
    out.notes.insert(out.notes.end(), parsed.notes.begin(), parsed.notes.end());
    return out;
  }
  if (!r.schedule_file.empty()) {
    out.schedule = load_schedule_file(r.schedule_file);
    out.source = "schedule file";
    return out;
  }
  const Family f = r.family.value_or(Family::fa2);
  out.schedule = default_schedule(r.problem, f, spec);
  out.source = fmt::format("default rule ({})", to_string(f));
  return out;
}

}  // namespace tgsim::attention
