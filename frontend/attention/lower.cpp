#include "frontend/attention/lower.h"

#include <algorithm>

#include <fmt/format.h>

#include "frontend/attention/lowering/lowering.h"
#include "sim/units/error.h"

namespace tgsim::attention {
namespace {

// Run-time decisions FlashAttention-2 makes from the problem (flash_api.cpp, mha_fwd): decode
// with GQA packs a KV group's query heads into the rows of one tile; the split-KV kernel's split
// count comes from its heuristic with 2 CTAs per SM as the slots to fill.
bool sync_mma_family(Family f) { return f == Family::fa2 || f == Family::cudnn_sm80; }

void resolve_runtime(const Problem& p, Schedule& s, const hw::GpuSpec& spec, std::vector<std::string>& notes) {
  if (sync_mma_family(s.family) && p.seq_q == 1 && p.heads > p.heads_kv && !s.pack_gqa) {
    s.pack_gqa = true;
    notes.push_back(fmt::format("decode with GQA: the {} query heads of each KV head are packed as the rows of one tile",
                                p.group()));
  }
  if (s.splits == 0) {
    Schedule probe = s;
    probe.splits = 1;
    const Tiling t = make_tiling(p, probe);
    const std::int64_t tiles = p.batch * t.heads * ((t.rows + 63) / 64);
    int n = fa2_split_heuristic(tiles, 2LL * spec.sm.count, t.n_blocks, 128);
    if (s.split_kernel && n < 2) n = 2;  // the split-KV kernel with a combine kernel after it ran split
    s.splits = n;
    notes.push_back(fmt::format("split-KV: {} splits (FlashAttention-2 heuristic: {} tiles, {} slots, {} KV blocks)", n,
                                tiles, 2 * spec.sm.count, t.n_blocks));
  }
  if (s.splits > 1) s.split_kernel = true;
}

}  // namespace

void check_problem(const Problem& p) {
  const auto positive = [](std::int64_t v, const char* name) {
    if (v <= 0) throw InputError(fmt::format("{} must be positive, got {}", name, v));
  };
  positive(p.batch, "batch");
  positive(p.heads, "heads");
  positive(p.heads_kv, "heads_kv");
  positive(p.seq_q, "seq_q");
  positive(p.seq_kv, "seq_kv");
  positive(p.head_dim, "head_dim");
  if (p.heads % p.heads_kv != 0)
    throw InputError(fmt::format("heads ({}) must be a multiple of heads_kv ({})", p.heads, p.heads_kv));
  if (p.head_dim % 8 != 0 || p.head_dim > 256)
    throw InputError(fmt::format("head_dim must be a multiple of 8 up to 256, got {}", p.head_dim));
  if (p.dtype != DType::fp16 && p.dtype != DType::bf16 && p.dtype != DType::fp8_e4m3 && p.dtype != DType::fp8_e5m2)
    throw InputError(fmt::format("attention dtype must be fp16, bf16 or fp8, got {}", to_string(p.dtype)));
}

LoweredAttention lower_attention(const Problem& p, const Schedule& schedule, const hw::GpuSpec& spec) {
  check_problem(p);
  LoweredAttention out;
  Schedule s = schedule;
  const bool sync = sync_mma_family(s.family);
  if (sync && (p.dtype == DType::fp8_e4m3 || p.dtype == DType::fp8_e5m2))
    throw InputError(fmt::format("schedule \"{}\" (mma.sync) has no fp8 path; use --family fa3 or cudnn", s.name));
  const int row_warps = s.warps_along_kv ? 1 : s.warps;
  if (sync && s.block_m % (16 * row_warps) != 0)
    throw InputError(fmt::format("schedule \"{}\": block_m {} is not a multiple of 16 x {} warps", s.name, s.block_m, row_warps));
  if (sync && s.warps_along_kv && s.block_n % (16 * s.warps) != 0)
    throw InputError(fmt::format("schedule \"{}\": block_n {} is not a multiple of 16 x {} warps", s.name, s.block_n, s.warps));
  if (!sync && s.block_m % (64 * s.consumer_warpgroups) != 0)
    throw InputError(fmt::format("schedule \"{}\": block_m {} is not a multiple of 64 x {} warpgroups", s.name, s.block_m,
                                 s.consumer_warpgroups));
  resolve_runtime(p, s, spec, out.notes);
  if (!sync && s.splits > 1)
    throw InputError(fmt::format("schedule \"{}\": split-KV is modelled for mma.sync kernels (fa2, cudnn_sm80) only", s.name));
  const Tiling t = make_tiling(p, s);
  auto& g = out.graph;
  g.name = fmt::format("attention_b{}_h{}_hkv{}_q{}_kv{}_d{}{}", p.batch, p.heads, p.heads_kv, p.seq_q, p.seq_kv,
                       p.head_dim, p.causal ? "_causal" : "");
  g.kernels.push_back(sync ? build_fa2_kernel(p, s, t, spec) : build_ws_kernel(p, s, t, spec));
  if (t.splits > 1) {
    g.kernels.push_back(build_combine_kernel(p, s, t, spec));
    g.kernels.back().after = {0};
  }
  out.schedule = s;
  return out;
}

}  // namespace tgsim::attention
