// Hopper warp-specialised attention forward: FlashAttention-3 (Shah et al. 2024) and cuDNN's
// fused flash attention (sm90 wgmma kernels). One CTA per Q tile.
//   producer warp:    TMA-loads the Q tile once, then K_j and V_j into a `stages`-deep ring, each
//                     slot refilled once every consumer warpgroup released it;
//   consumer warpgroup w (block_m / warpgroups rows each), per KV block j:
//                     S_j = Q K_j^T (wgmma, SS), softmax_j (FP32 pipe + SFU exp2), O += P_j V_j
//                     (wgmma, P from registers).
//   intra-warpgroup overlap (FA3 Algorithm 2): S_j is issued before PV_{j-1}, so softmax_j runs
//                     on the SIMT pipes while PV_{j-1} runs on the tensor cores;
//   ping-pong (FA3): named barriers make the warpgroups take turns on the tensor cores, one's
//                     GEMMs while the other's softmax; or (cuDNN, pingpong_exp) on their
//                     exponentials, the other's GEMMs running meanwhile;
//   epilogue:         1/rowsum + conversion, staging in shared memory, TMA store of O.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "frontend/attention/lowering/lowering.h"
#include "frontend/attention/lowering/softmax.h"
#include "frontend/nodes.h"
#include "frontend/template_builder.h"
#include "sim/units/error.h"

namespace tgsim::attention {
namespace {

using frontend::memory_node;
using frontend::mma_node;
using frontend::simt_node;
using frontend::smem_node;
using graph::MemEngine;
using graph::NodeKind;
using graph::SimtPipe;

struct Consumer {
  int role = 0;
  // Per KV block, over all of the CTA's tiles (a persistent CTA walks several).
  std::vector<int> s, pv, max, softmax, exp;
  int staging = -1, store = -1;  // the last tile's epilogue: O staged in shared memory, its store
  // The last GEMM of the warpgroup's turn j on the tensor cores: S_j and, with intra-warpgroup
  // overlap, PV_{j-1} issued right after it (j, j-1 within one tile: first is the tile's first).
  int last_gemm(std::size_t j, std::size_t first, bool overlap) const { return overlap && j > first ? pv[j - 1] : s[j]; }
};

// One CTA's tiles (one, or a persistent CTA's sequence) as one template.
graph::CtaTemplate build_template(const Problem& p, const Schedule& s, const std::vector<TemplateShape>& shapes,
                                  double max_chain_cycles) {
  frontend::TemplateBuilder b("tile");
  const int wgs = s.consumer_warpgroups;
  const int producer = b.role("producer", 0, 1);
  const double e = dtype_bits(p.dtype) / 8.0;
  const double d = static_cast<double>(p.head_dim);
  const double bn = s.block_n;
  const double wg_rows = static_cast<double>(s.block_m) / wgs;
  const int k_inst = frontend::mma_k(p.dtype);
  const int pv_n = static_cast<int>(std::min(d, 256.0));
  const auto s_count = static_cast<std::int64_t>(std::ceil(wg_rows / 64) * std::ceil(d / k_inst));
  const auto pv_count = static_cast<std::int64_t>(std::ceil(wg_rows / 64) * std::ceil(d / pv_n) * std::ceil(bn / k_inst));
  const double scores = wg_rows * bn / 128, outputs = wg_rows * d / 128;  // per consumer thread
  const SoftmaxCost cost = softmax_cost(s.family);
  // Of the per-block instructions, those on the uniform datapath (softmax.h): the `book` nodes.
  const double uniform =
      std::min(cost.per_block, cost.uniform_per_wgmma * static_cast<double>(s_count + pv_count) + cost.uniform_per_block);
  const auto stages = static_cast<std::size_t>(s.stages);

  std::vector<Consumer> cons(static_cast<std::size_t>(wgs));
  for (int w = 0; w < wgs; ++w) cons[static_cast<std::size_t>(w)].role = b.role(fmt::format("consumer{}", w), 4 * (w + 1), 4);
  std::vector<int> ld_k, ld_v;  // every K/V block the CTA loads, in ring order
  int prev_tile_end = -1;       // the previous tile's last exp section / GEMM turn (ping-pong chains)
  for (std::size_t tile = 0; tile < shapes.size(); ++tile) {
    const TemplateShape& shape = shapes[tile];
    const int t = static_cast<int>(tile);
    const std::string pre = shapes.size() > 1 ? fmt::format("t{}_", tile) : "";
    const double valid_rows = static_cast<double>(shape.rows);
    const std::size_t first = ld_k.size();  // the tile's first block in the CTA's ring order
    const std::size_t n = first + static_cast<std::size_t>(shape.n_iters);

    const int ld_q = b.add(memory_node(pre + "ldQ", NodeKind::load, MemEngine::tma, producer, valid_rows * d * e, t_q,
                                       {param(p_bh, 0, t), param(p_m_block, 0, t), {}}));
    // One Q buffer: a persistent CTA's next Q is loaded once every warpgroup has released it,
    // which cuDNN's consumers do after their tile's last PV GEMM (the SASS: the Q-empty mbarrier
    // arrive follows the block loop's last WARPGROUP.DEPBAR, before the epilogue).
    for (const auto& c : cons) {
      if (tile > 0) b.order(first > 0 ? c.pv[first - 1] : c.staging, ld_q);
    }
    for (std::size_t j = first; j < n; ++j) {
      const auto jj = static_cast<std::int64_t>(j - first);
      // The ragged last block's box reads only the keys that exist (TMA zero-fills the rest).
      const double keys = shape.kv_tail > 0 && jj == shape.n_iters - 1 ? static_cast<double>(shape.kv_tail) : bn;
      ld_k.push_back(b.add(memory_node(fmt::format("{}ldK_{}", pre, jj), NodeKind::load, MemEngine::tma, producer,
                                       keys * d * e, t_k, {param(p_bkv, 0, t), param(p_n_start, jj, t), {}})));
      ld_v.push_back(b.add(memory_node(fmt::format("{}ldV_{}", pre, jj), NodeKind::load, MemEngine::tma, producer,
                                       keys * d * e, t_v, {param(p_bkv, 0, t), param(p_n_start, jj, t), {}})));
    }
    for (int w = 0; w < wgs; ++w) {
      auto& c = cons[static_cast<std::size_t>(w)];
      for (std::size_t j = first; j < n; ++j) {
        const auto jj = static_cast<std::int64_t>(j - first);
        const bool masked = jj >= shape.n_iters - shape.masked;
        c.s.push_back(b.add(mma_node(fmt::format("{}S{}_{}", pre, w, jj), c.role, TensorInst::wgmma, p.dtype,
                                     {64, static_cast<int>(bn), k_inst}, s_count)));
        // Row max, then the rest of the SIMT work, then the exponentials (the row sum needs them):
        // one warp's instructions in order (softmax.h).
        const double fp32 = scores * (cost.fp32_per_score - cost.max_per_score + (masked ? cost.mask_per_score : 0.0)) +
                            outputs * cost.fp32_per_output + cost.per_block - uniform;
        graph::Node max_node = simt_node(fmt::format("{}max{}_{}", pre, w, jj), c.role, scores * cost.max_per_score, 128);
        max_node.cycles = Cycles{max_chain_cycles};
        const int mx = b.add(max_node);
        if (uniform > 0) {
          // Issued between the GEMM instructions (the SASS: descriptor moves around each HGMMA),
          // before the warp waits for S_j.
          const int book = b.add(simt_node(fmt::format("{}book{}_{}", pre, w, jj), c.role, uniform, 128, SimtPipe::uniform));
          if (j > first) b.order(s.intra_warpgroup_overlap ? c.exp[j - 1] : c.pv[j - 1], book);
          b.order(book, mx);
        }
        const int smx = b.add(simt_node(fmt::format("{}softmax{}_{}", pre, w, jj), c.role, fp32, 128));
        const int exp =
            b.add(simt_node(fmt::format("{}exp{}_{}", pre, w, jj), c.role, scores * cost.sfu_per_score, 128, SimtPipe::sfu));
        c.max.push_back(mx);
        c.softmax.push_back(smx);
        c.exp.push_back(exp);
        c.pv.push_back(b.add(mma_node(fmt::format("{}PV{}_{}", pre, w, jj), c.role, TensorInst::wgmma, p.dtype,
                                      {64, pv_n, k_inst}, pv_count)));
        b.edge(ld_k[j], c.s[j]);
        if (j == first) {
          b.edge(ld_q, c.s[j]);
          b.order(c.staging, c.s[j]);  // the warpgroup's previous tile's epilogue comes first
        }
        b.edge(c.s[j], mx);
        b.edge(mx, smx);
        b.edge(smx, exp);
        if (j > first) b.order(c.exp[j - 1], mx);  // running row max and sum
        b.edge(exp, c.pv[j]);
        b.edge(ld_v[j], c.pv[j]);
        if (j > first) {
          b.order(c.pv[j - 1], c.pv[j]);  // same O accumulators
          if (s.intra_warpgroup_overlap) {
            b.order(c.s[j], c.pv[j - 1]);  // S_j is issued first, PV_{j-1} overlaps softmax_j
            b.order(c.exp[j - 1], c.s[j]);
          } else {
            b.order(c.pv[j - 1], c.s[j]);
          }
        }
      }
    }
    // Ping-pong on the exponentials (cuDNN): warpgroup w+1's exp section (the softmax after the
    // row max, and the exponentials) of block j after warpgroup w's; warpgroup 0's of j+1 after
    // the last warpgroup's of j (and of a persistent CTA's next tile after its previous tile's).
    if (s.pingpong && s.pingpong_exp && wgs > 1) {
      for (std::size_t j = first; j < n; ++j) {
        for (int w = 1; w < wgs; ++w) {
          b.order(cons[static_cast<std::size_t>(w - 1)].exp[j], cons[static_cast<std::size_t>(w)].softmax[j]);
        }
        b.order(j == first ? prev_tile_end : cons.back().exp[j - 1], cons.front().softmax[j]);
      }
      if (n > first) prev_tile_end = cons.back().exp[n - 1];
    }
    // Ping-pong on the GEMMs (FA3): warpgroup w+1's GEMMs of block j after warpgroup w's;
    // warpgroup 0's GEMMs of j+1 after the last warpgroup's of j.
    if (s.pingpong && !s.pingpong_exp && wgs > 1) {
      for (std::size_t j = first; j < n; ++j) {
        for (int w = 1; w < wgs; ++w) {
          const auto& prev = cons[static_cast<std::size_t>(w - 1)];
          const auto& cur = cons[static_cast<std::size_t>(w)];
          b.order(prev.last_gemm(j, first, s.intra_warpgroup_overlap), cur.s[j]);
        }
        b.order(j == first ? prev_tile_end : cons.back().last_gemm(j - 1, first, s.intra_warpgroup_overlap),
                cons.front().s[j]);
      }
      if (n > first) prev_tile_end = cons.back().last_gemm(n - 1, first, s.intra_warpgroup_overlap);
    }
    // Stage release: the producer refills slot (j mod stages) once every warpgroup is done with
    // it (the ring runs on across a persistent CTA's tiles).
    for (std::size_t j = std::max(first, stages); j < n; ++j) {
      for (const auto& c : cons) {
        b.order(c.s[j - stages], ld_k[j]);
        b.order(c.pv[j - stages], ld_v[j]);
      }
    }
    // Epilogue per warpgroup.
    int prev_store = -1;
    for (int w = 0; w < wgs; ++w) {
      auto& c = cons[static_cast<std::size_t>(w)];
      const double rows = std::clamp(valid_rows - w * wg_rows, 0.0, wg_rows);
      const int cvt = b.add(simt_node(fmt::format("{}epilogue{}", pre, w), c.role, outputs * kEpiloguePerOutput, 128));
      b.edge(n > first ? c.pv.back() : ld_q, cvt);
      if (n == first) b.order(c.staging, cvt);
      const int stage = b.add(smem_node(fmt::format("{}stsmO{}", pre, w), c.role, rows * d * e));
      b.edge(cvt, stage);
      b.order(c.store, stage);  // the staging buffer is free once the previous tile's store read it
      const int st = s.split_kernel
                         ? b.add(memory_node(fmt::format("{}stOpartial{}", pre, w), NodeKind::store, MemEngine::tma, c.role,
                                             rows * d * 4.0 + rows * 4.0, t_partial,
                                             {param(p_bh, 0, t), param(p_m_block, w, t), param(p_n_start, 0, t)}))
                         : b.add(memory_node(fmt::format("{}stO{}", pre, w), NodeKind::store, MemEngine::tma, c.role,
                                             rows * d * e, t_o, {param(p_bh, 0, t), param(p_m_block, 0, t), graph::Coord{-1, w}}));
      b.edge(stage, st);
      b.order(prev_store, st);
      prev_store = st;
      c.staging = stage;
      c.store = st;
    }
  }
  return b.take();
}

}  // namespace

graph::Kernel build_ws_kernel(const Problem& p, const Schedule& s, const Tiling& t, const hw::GpuSpec& spec) {
  if (spec.arch == "ampere")
    throw InputError(fmt::format("schedule \"{}\" is Hopper warp-specialised (TMA + wgmma), which {} cannot run", s.name, spec.name));
  if (p.head_dim > 256) throw InputError(fmt::format("head_dim {} > 256 is not supported by {}", p.head_dim, s.name));
  graph::Kernel k;
  k.name = s.name.empty() ? "attention_sm90_ws" : s.name;
  declare_attention_tensors(k, p, t);
  const double e = dtype_bits(p.dtype) / 8.0;
  k.cta.threads = 128 * (1 + s.consumer_warpgroups);
  k.cta.registers_per_thread = 65536 / k.cta.threads / 8 * 8;  // setmaxnreg: the CTA takes the register file
  // cuDNN's stage count is not in its name: as many as fit, up to the schedule's.
  Schedule fitted = s;
  const auto smem_for = [&](int stages) {
    return (s.block_m + 2.0 * stages * s.block_n) * static_cast<double>(p.head_dim) * e + 1024;
  };
  if (s.family == Family::cudnn) {
    while (fitted.stages > 1 && smem_for(fitted.stages) > static_cast<double>(spec.sm.shared_memory_per_cta.value)) --fitted.stages;
  }
  k.cta.shared_memory = Bytes{static_cast<std::int64_t>(smem_for(fitted.stages))};
  if (k.cta.shared_memory > spec.sm.shared_memory_per_cta)
    throw InputError(fmt::format("schedule \"{}\": {} B of shared memory per CTA, {} allows {}", s.name,
                                 k.cta.shared_memory.value, spec.name, spec.sm.shared_memory_per_cta.value));
  const double scores = static_cast<double>(fitted.block_m) / fitted.consumer_warpgroups * fitted.block_n / 128;
  const double max_chain = row_max_chain_cycles(fitted.block_n, spec, scores * softmax_cost(fitted.family).max_per_score);
  const auto work = cta_work(p, fitted, t);
  if (fitted.persistent) {
    // One CTA per SM (the register file above holds one; cuDNN's launch records: grid = 132).
    const auto ctas = static_cast<std::int64_t>(spec.sm.count);
    fill_persistent_grid(k, persistent_assignment(work, ctas),
                         [&](const std::vector<TemplateShape>& shapes) { return build_template(p, fitted, shapes, max_chain); });
  } else {
    fill_attention_grid(k, work, [&](const TemplateShape& shape) {
      return build_template(p, fitted, std::vector<TemplateShape>{shape}, max_chain);
    });
  }
  return k;
}

}  // namespace tgsim::attention
