// Split-KV combine (FlashAttention-2's flash_fwd_splitkv_combine_kernel): for blocks of
// `rows_per_cta` query rows, read every split's log-sum-exp and fp32 partial output, rescale
// and sum them (exp on the SFU, one FMA per partial element), write O in the input type.
// 128 threads; rows per CTA: 4 when head_dim is a multiple of 128, 8 for multiples of 64, else 16.
// The partials are read in round trips, each after the previous one's accumulation: the
// FlashAttention-2 kernel's split loop (unrolled by 4) loads every split into the same registers,
// so one load at a time; cuDNN's lean_reduction_kernel issues 4 cp.async per trip, then waits
// (DEPBAR + barrier). Both read off the kernels' SASS (traces/h200/attention_ncu_ops.csv run).
// Set-up: before the loop each warp runs a long, mostly dependent instruction stream (index
// arithmetic with several 32-bit divisions, the LSE reduction), alone on its sub-partition (a
// combine CTA has 4 or 8 warps): issued one dependent instruction per simt.latency. Counted from
// the SASS with executed-instruction counts (Nsight Compute, traces/h200/attention_decode_ncu_*):
// FlashAttention-2's kernel runs 574 instructions per warp outside its split loop when built for
// up to 8 splits (kLogMaxSplits 3) and 663 for up to 32 (5): 545 + 3.7 x max splits; its loop 9
// per split (4 FFMA, LDS, LDG, 3 address adds: the FFMAs plus 5); cuDNN's lean_reduction_kernel 150 outside its
// loop.
#include <algorithm>

#include <fmt/format.h>

#include "frontend/attention/lowering/lowering.h"
#include "frontend/nodes.h"
#include "frontend/template_builder.h"

namespace tgsim::attention {
namespace {

using frontend::memory_node;
using frontend::simt_node;
using graph::MemEngine;
using graph::NodeKind;

int combine_rows(std::int64_t head_dim) { return head_dim % 128 == 0 ? 4 : head_dim % 64 == 0 ? 8 : 16; }

// FlashAttention-2 instantiates the combine for the next power of two of the split count
// (flash_api.cpp: kLogMaxSplits 1..7); cuDNN's reduction has one body.
double setup_instructions(Family f, int splits) {
  if (f == Family::cudnn_sm80) return 150.0;
  int max_splits = 2;
  while (max_splits < splits) max_splits *= 2;
  return 545.0 + 3.7 * max_splits;
}

}  // namespace

graph::Kernel build_combine_kernel(const Problem& p, const Schedule& s, const Tiling& t, const hw::GpuSpec& spec) {
  graph::Kernel k;
  k.name = "flash_fwd_splitkv_combine_kernel";
  declare_attention_tensors(k, p, t);
  const int rows = combine_rows(p.head_dim);
  const int threads = 128;
  k.cta.threads = threads;
  k.cta.registers_per_thread = 64;
  const double d = static_cast<double>(p.head_dim);
  k.cta.shared_memory = Bytes{static_cast<std::int64_t>(rows * d * 4 + t.splits * rows * 4.0)};

  frontend::TemplateBuilder b("combine");
  const int role = b.role("warps", 0, threads / 32);
  // the set-up's dependent stream: issue slots plus (simt.latency - 1) cycles per instruction
  const double setup_ops = setup_instructions(s.family, t.splits);
  auto setup_node = simt_node("setup", role, setup_ops, threads);
  setup_node.cycles = Cycles{setup_ops * std::max(0.0, spec.simt.latency.value - 1.0)};
  const int setup = b.add(std::move(setup_node));
  const int lse = b.add(memory_node("ldLSE", NodeKind::load, MemEngine::plain, role, t.splits * rows * 4.0, -1, {}));
  b.edge(setup, lse);
  const int scale = b.add(simt_node("lse", role, 2.0 * t.splits * rows / threads + 4, threads, graph::SimtPipe::sfu));
  b.edge(lse, scale);
  const int per_trip = s.family == Family::cudnn_sm80 ? 4 : 1;
  const double loop_extra = s.family == Family::cudnn_sm80 ? 0.0 : 5.0;  // LDS, LDG, address adds (fa2 SASS)
  int acc = scale;
  for (int first = 0; first < t.splits; first += per_trip) {
    const int last = std::min(t.splits, first + per_trip);
    const int group_acc =
        b.add(simt_node(fmt::format("accumulate_{}", first), role, (last - first) * (rows * d / threads + loop_extra), threads));
    for (int split = first; split < last; ++split) {
      const int ld = b.add(memory_node(fmt::format("ldOpartial_{}", split), NodeKind::load, MemEngine::plain, role,
                                       rows * d * 4.0, t_partial,
                                       {param(p_bh), param(p_m_block), graph::Coord{-1, split * t.blocks_per_split}}));
      b.edge(acc, ld);
      b.edge(ld, group_acc);
    }
    acc = group_acc;
  }
  const double e = dtype_bits(p.dtype) / 8.0;
  const int st = b.add(memory_node("stO", NodeKind::store, MemEngine::plain, role, rows * d * e, t_o,
                                   {param(p_bh), param(p_m_block), param(p_n_start)}));
  b.edge(acc, st);
  k.templates.push_back(b.take());

  // One CTA per `rows` consecutive rows of each (batch, head); params: (bh, -, m block of the
  // main kernel that wrote these rows, row block) so partial-output tiles match in L2.
  graph::CtaGroup g{0, 0, kParams, {}};
  const std::int64_t per_head = (t.rows + rows - 1) / rows;
  for (std::int64_t bh = 0; bh < p.batch * t.heads; ++bh) {
    for (std::int64_t r = 0; r < per_head; ++r) {
      ++g.count;
      g.params.insert(g.params.end(), {bh, 0, r * rows / s.block_m, r});
    }
  }
  k.grid.push_back(std::move(g));
  return k;
}

}  // namespace tgsim::attention
