// FlashAttention-2 forward (flash_fwd_kernel / flash_fwd_splitkv_kernel), as PyTorch's flash
// backend runs it on Ampere and Hopper. One CTA per Q tile; its `warps` warps split the tile's
// rows and each warp both loads and computes. Mainloop, per KV block j:
//   ldV_j  cp.async V_j into the single V buffer (once PV_{j-1} has read it and, in PyTorch's
//          kernels, once K_j and in the first iteration Q have landed: the loop waits for all
//          its copies before issuing it);
//   S_j    ldmatrix (Q rows + all of K_j, per warp), then mma.sync S = Q K_j^T;
//   ldK_j+1 cp.async the next K block into the single K buffer (after S_j, and V_j landed);
//   softmax_j on the FP32 pipe and the SFU (exp2), O rescale, after V_j landed (the kernel waits
//           for all its copies and syncs the CTA between S_j and the softmax);
//   PV_j   ldmatrix of V_j (every warp reads all of it), then mma.sync O += P V_j (P in registers).
// A warp issues in order, so within a CTA these steps follow each other; the SM overlaps them
// across its resident CTAs.
// Epilogue: 1/rowsum and conversion, staging through shared memory, 128-bit stores; the split-KV
// variant writes fp32 partial outputs and the log-sum-exp instead.
// Instruction fetch (PyTorch's kernels, fa2 family): the kernel unrolls its first `masking steps`
// iterations (1; causal: ceil(block_m / block_n), + 1 unless the lengths are tile multiples) and
// its epilogue as straight-line code run once per CTA, 64-86 KB of SASS in all, beyond the SM's
// fast instruction cache (calib_icache); a `fetch` node per such part holds the warps'
// sub-partitions' fetch path for its instructions (sm.instruction_fetch_cycles each), and the
// part cannot end before it. The loop body (about 20 KB) is taken as cached.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "frontend/attention/lowering/lowering.h"
#include "frontend/attention/lowering/softmax.h"
#include "frontend/nodes.h"
#include "frontend/template_builder.h"

namespace tgsim::attention {
namespace {

using frontend::memory_node;
using frontend::mma_node;
using frontend::simt_node;
using frontend::smem_node;
using graph::MemEngine;
using graph::NodeKind;
using graph::SimtPipe;

graph::CtaTemplate build_template(const Problem& p, const Schedule& s, const TemplateShape& shape,
                                  double max_chain_cycles, std::int64_t peeled) {
  frontend::TemplateBuilder b("tile");
  const int warps = s.warps;
  const int threads = 32 * warps;
  const int role = b.role("warps", 0, warps);
  const double e = dtype_bits(p.dtype) / 8.0;
  const double d = static_cast<double>(p.head_dim);
  const double bm = s.block_m, bn = s.block_n;
  const double rows = static_cast<double>(shape.rows);
  const int k_inst = frontend::mma_k(p.dtype);
  // Warps split the tile's rows (FlashAttention-2) or its keys (cuDNN's 1xN warp layouts).
  const double warp_rows = s.warps_along_kv ? bm : bm / warps;
  const double warp_keys = s.warps_along_kv ? bn / warps : bn;
  const auto s_mma = static_cast<std::int64_t>(std::ceil(warp_rows / 16) * std::ceil(warp_keys / 8) * std::ceil(d / k_inst));
  const auto pv_mma = static_cast<std::int64_t>(std::ceil(warp_rows / 16) * std::ceil(d / 8) * std::ceil(warp_keys / k_inst));
  const double kv_tile = bn * d * e;
  // Bytes of K_j / V_j: the ragged last block (the lowering's last j) copies only its keys.
  const auto kv_bytes = [&](std::int64_t j) {
    return shape.kv_tail > 0 && j == shape.n_iters - 1 ? static_cast<double>(shape.kv_tail) * d * e : kv_tile;
  };
  // ldmatrix traffic: each warp reads the K and V rows of its keys and the Q rows of its rows.
  const double lds_q = s.q_in_registers ? 0.0 : warps * warp_rows * d * e;
  const double lds_k = warps * warp_keys * d * e + lds_q;
  const double lds_v = warps * warp_keys * d * e;
  const double scores = bm * bn / threads;   // per thread
  const double outputs = bm * d / threads;   // per thread
  const SoftmaxCost cost = softmax_cost(s.family);

  const int ld_q = b.add(memory_node("ldQ", NodeKind::load, MemEngine::cp_async, role, rows * d * e, t_q,
                                     {param(p_bh), param(p_m_block), {}}));
  // Warp instructions of one iteration, for the instruction fetch of the unrolled ones: SIMT and
  // SFU work, the MMAs, ldmatrix.x4 (512 B per warp instruction) and the 16-byte cp.async.
  const auto iteration_instructions = [&](bool masked) {
    return scores * (cost.fp32_per_score + cost.sfu_per_score + (masked ? cost.mask_per_score : 0.0)) +
           outputs * cost.fp32_per_output + cost.per_block + static_cast<double>(s_mma + pv_mma) +
           (lds_k + lds_v) / warps / 512.0 + 2.0 * kv_tile / (threads * 16.0);
  };
  int prev_k_load = -1, prev_pv = -1, prev_softmax = -1, prev_exp = -1;
  if (shape.n_iters > 0) {
    prev_k_load = b.add(memory_node("ldK_0", NodeKind::load, MemEngine::cp_async, role, kv_bytes(0), t_k,
                                    {param(p_bkv), param(p_n_start), {}}));
  }
  for (std::int64_t j = 0; j < shape.n_iters; ++j) {
    const bool masked = j >= shape.n_iters - shape.masked;
    const int ld_v = b.add(memory_node(fmt::format("ldV_{}", j), NodeKind::load, MemEngine::cp_async, role, kv_bytes(j), t_v,
                                       {param(p_bkv), param(p_n_start, j), {}}));
    b.order(prev_pv, ld_v);
    if (s.family == Family::fa2) {
      // flash_fwd_kernel.h issues V_j after cp_async_wait<0>() + __syncthreads() at the top of the
      // iteration: once K_j (and, in the first one, Q) has landed, so V_j's load overlaps only S_j.
      b.edge(prev_k_load, ld_v);
      if (j == 0) b.edge(ld_q, ld_v);
    }
    // Each warp's instruction stream is in order: its MMAs wait for the fragments ldmatrix brought.
    const int lsk = b.add(smem_node(fmt::format("ldsmK_{}", j), role, lds_k));
    const int sm = b.add(mma_node(fmt::format("S_{}", j), role, TensorInst::mma_sync, p.dtype, {16, 8, k_inst}, s_mma));
    b.edge(prev_k_load, lsk);
    if (j == 0) b.edge(ld_q, lsk);
    b.order(prev_pv, lsk);
    b.edge(lsk, sm);
    if (j + 1 < shape.n_iters) {
      const int ld_k = b.add(memory_node(fmt::format("ldK_{}", j + 1), NodeKind::load, MemEngine::cp_async, role, kv_bytes(j + 1),
                                         t_k, {param(p_bkv), param(p_n_start, j + 1), {}}));
      b.order(sm, ld_k);
      b.order(lsk, ld_k);
      b.order(ld_v, ld_k);  // cp.async.wait_all before issuing it
      prev_k_load = ld_k;
    }
    // The exponentials need the row max and the row sum needs them: one warp's SIMT and SFU
    // work follow each other (other warps fill the gaps).
    const double fp32 = scores * (cost.fp32_per_score + (masked ? cost.mask_per_score : 0.0)) +
                        outputs * cost.fp32_per_output + cost.per_block;
    // The row max's dependent chain stalls the warp after it issued the max instructions.
    graph::Node softmax = simt_node(fmt::format("softmax_{}", j), role, fp32, threads);
    softmax.cycles = Cycles{max_chain_cycles};
    const int smx = b.add(softmax);
    const int exp = b.add(simt_node(fmt::format("exp_{}", j), role, scores * cost.sfu_per_score, threads, SimtPipe::sfu));
    b.edge(sm, smx);
    // cp.async.wait_all + __syncthreads after S_j: the softmax starts once V_j has landed
    // (flash_fwd_kernel's main loop), not only the PV ldmatrix.
    b.edge(ld_v, smx);
    b.edge(smx, exp);
    b.order(prev_softmax, smx);  // running max / sum of the rows
    b.order(prev_exp, smx);
    const int lsv = b.add(smem_node(fmt::format("ldsmV_{}", j), role, lds_v));
    const int pv = b.add(mma_node(fmt::format("PV_{}", j), role, TensorInst::mma_sync, p.dtype, {16, 8, k_inst}, pv_mma));
    b.edge(ld_v, lsv);
    b.edge(exp, lsv);
    b.edge(lsv, pv);
    // The unrolled iterations are the kernel's first, which walks the KV blocks from the last one
    // (the diagonal and ragged blocks, the lowering's last j).
    if (j >= shape.n_iters - peeled) {
      const int fetch = b.add(simt_node(fmt::format("fetch_{}", j), role, iteration_instructions(masked), threads,
                                        SimtPipe::fetch));
      b.order(prev_pv, fetch);
      b.order(fetch, pv);
    }
    prev_pv = pv;
    prev_softmax = smx;
    prev_exp = exp;
  }
  // Epilogue (warps that split the keys first sum their partial O through shared memory).
  int before = prev_pv;
  if (s.warps_along_kv && warps > 1) {
    const int red_smem = b.add(smem_node("reduceO_smem", role, 2.0 * warps * bm * d * 4.0));
    b.edge(prev_pv, red_smem);
    const int red = b.add(simt_node("reduceO", role, warps * bm * d / threads, threads));
    b.edge(red_smem, red);
    before = red;
  }
  const int cvt = b.add(simt_node("epilogue", role, outputs * kEpiloguePerOutput, threads));
  b.edge(before, cvt);
  b.edge(ld_q, cvt);
  int fetch_epilogue = -1;
  if (peeled > 0) {  // the epilogue is straight-line code too: conversion, staging, stores
    const double stores = 2.0 * rows * d * (s.split_kernel ? 4.0 : e) / (threads * 16.0);
    fetch_epilogue = b.add(simt_node("fetch_epilogue", role, outputs * kEpiloguePerOutput + stores, threads, SimtPipe::fetch));
    b.order(before, fetch_epilogue);
  }
  if (s.split_kernel) {
    const int st = b.add(memory_node("stOpartial", NodeKind::store, MemEngine::plain, role, rows * d * 4.0 + rows * 4.0,
                                     t_partial, {param(p_bh), param(p_m_block), param(p_n_start)}));
    b.edge(cvt, st);
    b.order(fetch_epilogue, st);
  } else {
    const int stage = b.add(smem_node("stsmO", role, 2.0 * rows * d * e));
    b.edge(cvt, stage);
    const int st = b.add(memory_node("stO", NodeKind::store, MemEngine::plain, role, rows * d * e, t_o,
                                     {param(p_bh), param(p_m_block), {}}));
    b.edge(stage, st);
    b.order(fetch_epilogue, st);
  }
  return b.take();
}

}  // namespace

graph::Kernel build_fa2_kernel(const Problem& p, const Schedule& s, const Tiling& t, const hw::GpuSpec& spec) {
  graph::Kernel k;
  k.name = s.name.empty() ? "flash_fwd_kernel" : s.name;
  declare_attention_tensors(k, p, t);
  const double e = dtype_bits(p.dtype) / 8.0;
  const int threads = 32 * s.warps;
  k.cta.threads = threads;
  // Registers: the O and S accumulators (fp32) plus addressing and softmax state; FlashAttention-2
  // kernels sit near the 255 limit (O 128 + S 64 per thread for 128x64 tiles of d=128, 4 warps).
  const double acc = (static_cast<double>(s.block_m) * static_cast<double>(p.head_dim) * (s.warps_along_kv ? s.warps : 1) +
                      static_cast<double>(s.block_m) * s.block_n) / threads;
  k.cta.registers_per_thread = std::min(255, static_cast<int>(std::ceil((acc + 40) / 8) * 8));
  const double smem = (static_cast<double>(s.block_m) + 2.0 * s.block_n) * static_cast<double>(p.head_dim) * e;
  k.cta.shared_memory = Bytes{static_cast<std::int64_t>(smem)};
  // The row max chain over a warp's keys (all of the block's, or its share when warps split them).
  const double warp_keys = s.warps_along_kv ? static_cast<double>(s.block_n) / s.warps : s.block_n;
  const double scores = static_cast<double>(s.block_m) * s.block_n / threads;
  const double max_chain = row_max_chain_cycles(warp_keys, spec, scores * softmax_cost(s.family).max_per_score);
  // FlashAttention-2's unrolled masking steps (flash_fwd_kernel.h: n_masking_steps); only PyTorch's
  // kernels (fa2) were profiled for their code (traces/h200/attention_short_ncu_sass.csv.gz).
  std::int64_t peeled = 0;
  if (s.family == Family::fa2 && spec.sm.instruction_fetch_cycles.value > 0) {
    const bool even_mn = t.rows % s.block_m == 0 && p.seq_kv % s.block_n == 0 && p.head_dim <= 128;
    peeled = !p.causal ? 1 : (s.block_m + s.block_n - 1) / s.block_n + (even_mn ? 0 : 1);
  }
  fill_attention_grid(k, cta_work(p, s, t),
                      [&](const TemplateShape& shape) { return build_template(p, s, shape, max_chain, peeled); });
  return k;
}

}  // namespace tgsim::attention
