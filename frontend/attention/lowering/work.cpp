#include "frontend/attention/lowering/work.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <tuple>
#include <utility>

#include <fmt/format.h>

namespace tgsim::attention {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

Tiling make_tiling(const Problem& p, const Schedule& s) {
  Tiling t;
  t.heads = s.pack_gqa ? p.heads_kv : p.heads;
  t.rows = s.pack_gqa ? p.seq_q * p.group() : p.seq_q;
  t.heads_per_kv = s.pack_gqa ? 1 : p.group();
  t.m_blocks = ceil_div(t.rows, s.block_m);
  t.n_blocks = ceil_div(p.seq_kv, s.block_n);
  t.splits = std::max(1, s.splits);
  t.blocks_per_split = ceil_div(t.n_blocks, t.splits);
  return t;
}

std::vector<CtaWork> cta_work(const Problem& p, const Schedule& s, const Tiling& t) {
  const std::int64_t bm = s.block_m, bn = s.block_n;
  const std::int64_t offset = p.causal_offset();  // row i sees keys <= i + offset
  // Query position of a kernel row: packed GQA rows are (head in group, position) pairs.
  const auto position = [&](std::int64_t row) { return s.pack_gqa ? row % p.seq_q : row; };
  std::vector<CtaWork> out;
  out.reserve(static_cast<std::size_t>(p.batch * t.heads * t.m_blocks * t.splits));
  const bool ragged_kv = p.seq_kv % bn != 0;
  auto make = [&](std::int64_t b, std::int64_t h, std::int64_t m, std::int64_t split) {
    CtaWork w;
    w.bh = b * t.heads + h;
    w.bkv = b * (s.pack_gqa ? t.heads : p.heads_kv) + (s.pack_gqa ? h : h / std::max<std::int64_t>(1, t.heads_per_kv));
    w.m_block = m;
    w.rows = std::min(bm, t.rows - m * bm);
    std::int64_t n_end = t.n_blocks, n_full = t.n_blocks - (ragged_kv ? 1 : 0);
    if (p.causal) {
      // Last row of the tile sees keys < pos + offset + 1; its first row sees < pos0 + offset + 1.
      const std::int64_t last = s.pack_gqa ? p.seq_q - 1 : position(m * bm + w.rows - 1);
      const std::int64_t first = s.pack_gqa ? 0 : position(m * bm);
      n_end = std::clamp<std::int64_t>(ceil_div(std::max<std::int64_t>(0, last + offset + 1), bn), 0, t.n_blocks);
      n_full = std::clamp<std::int64_t>(std::max<std::int64_t>(0, first + offset + 1) / bn, 0, n_end);
      if (ragged_kv && n_end == t.n_blocks) n_full = std::min(n_full, t.n_blocks - 1);
    }
    const std::int64_t lo = split * t.blocks_per_split;
    const std::int64_t hi = std::min(n_end, lo + t.blocks_per_split);
    w.n_start = lo;
    w.n_iters = std::max<std::int64_t>(0, hi - lo);
    w.masked = std::max<std::int64_t>(0, hi - std::max(lo, n_full));
    w.masked = std::min(w.masked, w.n_iters);
    if (ragged_kv && w.n_iters > 0 && hi == t.n_blocks) w.kv_tail = p.seq_kv - (t.n_blocks - 1) * bn;
    return w;
  };
  // Launch order: blockIdx.x = m block (fastest), then the split; FlashAttention-2 launches
  // grid(m_blocks, batch, heads), its split-KV kernel grid(m_blocks, splits, batch * heads).
  const bool split_grid = s.split_kernel;  // grid z = batch * heads + head
  for (std::int64_t outer = 0; outer < (split_grid ? p.batch : t.heads); ++outer) {
    for (std::int64_t inner = 0; inner < (split_grid ? t.heads : p.batch); ++inner) {
      const std::int64_t b = split_grid ? outer : inner, h = split_grid ? inner : outer;
      for (int split = 0; split < t.splits; ++split) {
        for (std::int64_t i = 0; i < t.m_blocks; ++i) {
          const std::int64_t m = s.longest_first && p.causal ? t.m_blocks - 1 - i : i;
          out.push_back(make(b, h, m, split));
        }
      }
    }
  }
  return out;
}

void fill_attention_grid(graph::Kernel& k, const std::vector<CtaWork>& work, const ShapeBuilder& build) {
  // A CTA per tile: the persistent grid's builder with one tile per CTA.
  std::vector<std::vector<CtaWork>> ctas;
  ctas.reserve(work.size());
  for (const auto& w : work) ctas.push_back({w});
  fill_persistent_grid(k, ctas, [&](const std::vector<TemplateShape>& shapes) { return build(shapes.front()); });
}

std::vector<std::vector<CtaWork>> persistent_assignment(const std::vector<CtaWork>& work, std::int64_t ctas) {
  const auto tiles = std::max<std::int64_t>(1, static_cast<std::int64_t>(work.size()));
  const auto n = static_cast<std::size_t>(std::clamp<std::int64_t>(ctas, 1, tiles));
  std::vector<std::vector<CtaWork>> out(n);
  // (time the CTA is free, CTA): the smallest first.
  using Slot = std::pair<std::int64_t, std::size_t>;
  std::priority_queue<Slot, std::vector<Slot>, std::greater<>> free_at;
  for (std::size_t c = 0; c < n; ++c) free_at.emplace(0, c);
  for (const auto& w : work) {
    auto [t, c] = free_at.top();
    free_at.pop();
    out[c].push_back(w);
    free_at.emplace(t + w.n_iters + 1, c);
  }
  return out;
}

void fill_persistent_grid(graph::Kernel& k, const std::vector<std::vector<CtaWork>>& ctas, const SequenceBuilder& build) {
  std::map<std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>>, int> index_of;
  for (const auto& tiles : ctas) {
    std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>> key;
    std::vector<TemplateShape> shapes;
    for (const auto& w : tiles) {
      key.emplace_back(w.n_iters, w.masked, w.rows, w.kv_tail);
      shapes.push_back(TemplateShape{w.n_iters, w.masked, w.rows, w.kv_tail});
    }
    auto [it, inserted] = index_of.try_emplace(key, static_cast<int>(k.templates.size()));
    if (inserted) {
      k.templates.push_back(build(shapes));
      const auto& w = tiles.front();
      k.templates.back().name = tiles.size() == 1 ? fmt::format("kv{}_masked{}_rows{}{}", w.n_iters, w.masked, w.rows,
                                                                w.kv_tail > 0 ? fmt::format("_tail{}", w.kv_tail) : "")
                                                  : fmt::format("persistent{}_{}tiles", it->second, tiles.size());
    }
    const int width = kParams * static_cast<int>(tiles.size());
    if (k.grid.empty() || k.grid.back().template_index != it->second) {
      k.grid.push_back(graph::CtaGroup{it->second, 0, width, {}});
    }
    auto& g = k.grid.back();
    ++g.count;
    for (const auto& w : tiles) g.params.insert(g.params.end(), {w.bh, w.bkv, w.m_block, w.n_start});
  }
}

void declare_attention_tensors(graph::Kernel& k, const Problem& p, const Tiling& t) {
  const double e = dtype_bits(p.dtype) / 8.0;
  const auto bytes = [](double x) { return Bytes{static_cast<std::int64_t>(x)}; };
  const double q = static_cast<double>(p.batch * p.heads * p.seq_q * p.head_dim);
  const double kv = static_cast<double>(p.batch * p.heads_kv * p.seq_kv * p.head_dim);
  k.tensors = {{"Q", bytes(q * e)},
               {"K", bytes(kv * e)},
               {"V", bytes(kv * e)},
               {"O", bytes(q * e)},
               {"O_partial", bytes(t.splits > 1 ? q * 4.0 * t.splits : 0)}};
}

int fa2_split_heuristic(std::int64_t tiles, std::int64_t slots, std::int64_t n_blocks, int max_splits) {
  if (static_cast<double>(tiles) >= 0.8 * static_cast<double>(slots)) return 1;
  const int most = static_cast<int>(std::min<std::int64_t>({max_splits, slots, n_blocks}));
  const auto eligible = [&](int n) { return n == 1 || ceil_div(n_blocks, n) != ceil_div(n_blocks, n - 1); };
  std::vector<double> efficiency(static_cast<std::size_t>(std::max(0, most)), 0.0);
  double best = 0;
  for (int n = 1; n <= most; ++n) {
    if (!eligible(n)) continue;
    const double waves = static_cast<double>(tiles * n) / static_cast<double>(slots);
    efficiency[static_cast<std::size_t>(n - 1)] = waves / std::ceil(waves);
    best = std::max(best, efficiency[static_cast<std::size_t>(n - 1)]);
  }
  for (int n = 1; n <= most; ++n) {
    if (eligible(n) && efficiency[static_cast<std::size_t>(n - 1)] >= 0.85 * best) return n;
  }
  return 1;
}

}  // namespace tgsim::attention
