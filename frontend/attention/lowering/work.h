// How an attention problem is cut into CTA work: Q tiles of block_m rows per (batch, head),
// each walking its KV blocks (all of them, the causal prefix, or one split's share), in the
// order the kernel launches them. Shared by every attention lowering.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "frontend/attention/problem.h"
#include "frontend/attention/schedule.h"
#include "sim/graph/tile_graph.h"

namespace tgsim::attention {

// Per-CTA integer parameters (CtaGroup::params), in this order.
enum Param { p_bh = 0, p_bkv = 1, p_m_block = 2, p_n_start = 3, kParams = 4 };

// Tensor indices every attention kernel declares (Kernel::tensors order).
enum TensorIndex { t_q = 0, t_k = 1, t_v = 2, t_o = 3, t_partial = 4 };

struct Tiling {
  std::int64_t heads = 0;          // heads as the kernel sees them (KV heads when GQA rows are packed)
  std::int64_t rows = 0;           // query rows per head as the kernel sees them
  std::int64_t m_blocks = 0;
  std::int64_t n_blocks = 0;       // KV blocks of the whole KV length
  int splits = 1;
  std::int64_t blocks_per_split = 0;
  std::int64_t heads_per_kv = 1;   // query heads (as the kernel sees them) per KV head
};

Tiling make_tiling(const Problem& p, const Schedule& s);

// What one CTA does; CTAs with equal (n_iters, masked, rows) share a template.
struct CtaWork {
  std::int64_t bh = 0, bkv = 0, m_block = 0, n_start = 0;
  std::int64_t n_iters = 0;  // KV blocks visited
  std::int64_t masked = 0;   // of which the last `masked` need the causal / bounds mask
  std::int64_t rows = 0;     // valid query rows of the tile (the last tile may be partial)
  // Keys of the ragged last KV block when the CTA visits it (seq_kv not a multiple of block_n),
  // else 0: its K/V copies move only these rows (cp.async predicates the others off, TMA
  // zero-fills a box's out-of-range rows without reading them).
  std::int64_t kv_tail = 0;
};

// Every CTA in launch order.
std::vector<CtaWork> cta_work(const Problem& p, const Schedule& s, const Tiling& t);

struct TemplateShape {
  std::int64_t n_iters = 0, masked = 0, rows = 0;
  std::int64_t kv_tail = 0;  // CtaWork::kv_tail: the last visited block (the lowering's last j) holds this many keys
};
using ShapeBuilder = std::function<graph::CtaTemplate(const TemplateShape&)>;

// Builds one template per distinct shape and the grid (CtaGroups with kParams params each).
void fill_attention_grid(graph::Kernel& k, const std::vector<CtaWork>& work, const ShapeBuilder& build);

// Persistent kernels: the tiles (in launch order) handed to `ctas` CTAs, each tile to the CTA that
// is free first, as a tile scheduler's atomic counter does (cuDNN's sm90 kernels: one ATOMG.ADD per
// tile); a tile's time is estimated as its KV blocks + 1 (ties: the lowest CTA). Equal tiles go
// round robin.
std::vector<std::vector<CtaWork>> persistent_assignment(const std::vector<CtaWork>& work, std::int64_t ctas);

using SequenceBuilder = std::function<graph::CtaTemplate(const std::vector<TemplateShape>&)>;
// One template per distinct sequence of tile shapes; a CTA's tile i reads params i * kParams ...
void fill_persistent_grid(graph::Kernel& k, const std::vector<std::vector<CtaWork>>& ctas, const SequenceBuilder& build);

void declare_attention_tensors(graph::Kernel& k, const Problem& p, const Tiling& t);

// Tile `tile`'s param p (persistent CTAs hold kParams params per tile).
inline graph::Coord param(Param p, std::int64_t offset = 0, int tile = 0) { return graph::Coord{tile * kParams + p, offset}; }

// FlashAttention-2's split-KV heuristic (flash_api.cpp, num_splits_heuristic): 1 when the
// (batch x heads x m-block) tiles nearly fill `slots` (0.8x); else the smallest split count whose
// wave efficiency is within 85% of the best, among counts that change the blocks per split.
int fa2_split_heuristic(std::int64_t tiles, std::int64_t slots, std::int64_t n_blocks, int max_splits);

}  // namespace tgsim::attention
