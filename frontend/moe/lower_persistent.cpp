// The persistent schedules (fixed-split, tile-overlap, dynamic): one kernel per GPU, one CTA per
// SM. CTAs [0, C) communicate, the others compute expert tiles (docs/moe.md).
//   Dispatch: each communication CTA pushes its share of the token chunks (512 KiB, per
//     destination expert, round robin over the C CTAs) and after each chunk signals, on the
//     destination, the arrival slot of every 128-row m-block the chunk overlaps (and a per-GPU
//     "all arrived" slot).
//   Compute: tiles in counter order (expert tiles, layer.h order) go to the worker an atomic tile
//     counter would give them to, replayed with estimated tile times (list scheduling; with
//     equal tiles that is round robin). A GEMM0 tile waits for its m-block's arrivals
//     (fixed-split: for all arrivals), a GEMM1 tile for its m-block's GEMM0 tiles.
//   Combine: per (expert, m-block) the rows go back to their source GPUs; tile-overlap and
//     dynamic wait for that m-block's GEMM1 tiles, fixed-split for all of them.
//   Dynamic: communication CTAs also take GEMM0 tiles once their dispatch is done (estimated
//     from bytes / min(r, link / C)), before their combine work, as long as they are back by
//     the stealing horizon (estimated compute end minus the combine's push time).
#include <fmt/format.h>

#include <algorithm>
#include <queue>

#include "frontend/moe/expert_tiles.h"
#include "frontend/moe/lower.h"
#include "frontend/nodes.h"
#include "sim/units/error.h"

namespace tgsim::moe {
namespace {

enum Flags { kArrive, kGemm0, kGemm1, kGemm1All, kReturned, kDispatchAll };

struct Chunk {
  int dst = 0, local = 0;
  std::int64_t row0 = 0, rows = 0;  // in the destination expert's rows (sources in order)
};

struct Piece {
  int src = 0;
  std::int64_t rows = 0;
};
struct CombineItem {
  int local = 0;
  std::int64_t mb = 0;
  std::vector<Piece> pieces;
};

struct Layout {
  const MoeLayer& l;
  std::int64_t max_mb = 1;
  std::int64_t chunk_rows = 1;
  std::int64_t arrive_slot(int dst, int local, std::int64_t mb) const {
    return (static_cast<std::int64_t>(dst) * l.experts_per_gpu() + local) * max_mb + mb;
  }
  std::int64_t expert_slot(int local, std::int64_t mb) const { return local * max_mb + mb; }
  std::int64_t row_base(int src, int expert) const {
    std::int64_t b = 0;
    for (int s = 0; s < src; ++s) b += l.tokens(s, expert);
    return b;
  }
};

std::vector<Chunk> dispatch_chunks(const Layout& lay, int src) {
  std::vector<Chunk> out;
  const MoeLayer& l = lay.l;
  for (int e = 0; e < l.experts_per_gpu(); ++e) {
    for (int o = 1; o < l.gpus; ++o) {
      const int dst = (src + o) % l.gpus;
      const int ge = l.global_expert(dst, e);
      const std::int64_t n = l.tokens(src, ge), base = lay.row_base(src, ge);
      for (std::int64_t r = 0; r < n; r += lay.chunk_rows) out.push_back({dst, e, base + r, std::min(lay.chunk_rows, n - r)});
    }
  }
  return out;
}

std::vector<CombineItem> combine_items(const Layout& lay, int g) {
  std::vector<CombineItem> out;
  const MoeLayer& l = lay.l;
  for (int e = 0; e < l.experts_per_gpu(); ++e) {
    const int ge = l.global_expert(g, e);
    const std::int64_t rows = l.expert_rows(ge);
    for (std::int64_t mb = 0; mb * kTileM < rows; ++mb) {
      CombineItem item{e, mb, {}};
      const std::int64_t a = mb * kTileM, b = std::min(rows, a + kTileM);
      for (int s = 0; s < l.gpus; ++s) {
        const std::int64_t lo = std::max(a, lay.row_base(s, ge)), hi = std::min(b, lay.row_base(s, ge) + l.tokens(s, ge));
        if (s != g && hi > lo) item.pieces.push_back({s, hi - lo});
      }
      out.push_back(std::move(item));
    }
  }
  return out;
}

// Assignment of tiles to CTAs (the counter replayed by estimated times).
std::vector<std::vector<ExpertTile>> assign_tiles(const MoeLayer& l, int g, int sms, int c, bool steal,
                                                  const std::vector<double>& comm_free, double tensor_rate,
                                                  double horizon) {
  std::vector<std::vector<ExpertTile>> work(static_cast<std::size_t>(sms));
  using Slot = std::pair<double, int>;
  std::priority_queue<Slot, std::vector<Slot>, std::greater<>> compute, comm;
  for (int cta = c; cta < sms; ++cta) compute.push({0.0, cta});
  for (int cta = 0; cta < c && steal; ++cta) comm.push({comm_free[static_cast<std::size_t>(cta)], cta});
  for (const ExpertTile& t : tile_order(l, g)) {
    const double dt = tile_flops(l, t) / tensor_rate;
    auto* q = &compute;
    if (t.gemm == 0 && !comm.empty() && comm.top() < compute.top() && comm.top().first + dt <= horizon) q = &comm;
    const auto [when, cta] = q->top();
    q->pop();
    work[static_cast<std::size_t>(cta)].push_back(t);
    q->push({when + dt, cta});
  }
  return work;
}

graph::Node signal(std::string id, int role, int flag, std::int64_t slot) {
  return frontend::signal_node(std::move(id), role, graph::FlagRef{flag, graph::Coord{-1, slot}});
}
graph::Node wait(std::string id, int role, int flag, std::int64_t slot, std::int64_t value) {
  return frontend::wait_node(std::move(id), role, graph::FlagRef{flag, graph::Coord{-1, slot}}, value);
}

struct GpuPlan {
  std::vector<Chunk> chunks;                         // this GPU's dispatch
  std::vector<CombineItem> combine;                  // this GPU's combine
  std::vector<std::vector<std::int64_t>> arrivals;   // [local][mb]: remote chunks into the m-block
  std::int64_t arrivals_all = 0;
  std::int64_t returns = 0;                          // combine pieces coming back to this GPU
};

std::vector<GpuPlan> plan_gpus(const Layout& lay) {
  const MoeLayer& l = lay.l;
  std::vector<GpuPlan> plans(static_cast<std::size_t>(l.gpus));
  for (int g = 0; g < l.gpus; ++g) {
    auto& p = plans[static_cast<std::size_t>(g)];
    p.chunks = dispatch_chunks(lay, g);
    p.combine = combine_items(lay, g);
    p.arrivals.resize(static_cast<std::size_t>(l.experts_per_gpu()));
    for (int e = 0; e < l.experts_per_gpu(); ++e)
      p.arrivals[static_cast<std::size_t>(e)].assign(static_cast<std::size_t>(m_blocks(l, g, e)), 0);
  }
  for (const auto& p : plans) {
    for (const Chunk& ch : p.chunks) {
      auto& dst = plans[static_cast<std::size_t>(ch.dst)];
      ++dst.arrivals_all;
      for (std::int64_t mb = ch.row0 / kTileM; mb * kTileM < ch.row0 + ch.rows; ++mb)
        ++dst.arrivals[static_cast<std::size_t>(ch.local)][static_cast<std::size_t>(mb)];
    }
    for (const CombineItem& it : p.combine) {
      for (const Piece& pc : it.pieces) ++plans[static_cast<std::size_t>(pc.src)].returns;
    }
  }
  return plans;
}

// Builds the CTA templates of one GPU's persistent kernel.
struct GpuKernelBuilder {
  const Layout& lay;
  const GpuPlan& p;
  int g = 0;
  int c = 0;             // communication CTAs
  bool per_tile = true;  // tile-overlap / dynamic: m-block and tile flags; fixed-split: all-or-nothing
  std::int64_t gemm1_tiles = 0;

  const MoeLayer& l() const { return lay.l; }

  int put(frontend::TemplateBuilder& b, std::string id, int role, std::int64_t rows, int target) const {
    graph::Node n = frontend::memory_node(std::move(id), graph::NodeKind::remote_put, graph::MemEngine::plain, role,
                                          static_cast<double>(rows * l().bytes_per_token()), -1, {});
    n.peer = (target - g + l().gpus) % l().gpus;
    return b.add(std::move(n));
  }

  // Dispatch: this CTA's chunks, each announced to the m-blocks it fills. Returns the last put.
  int dispatch(frontend::TemplateBuilder& b, int cta, int role) const {
    int prev = -1;
    for (std::size_t i = static_cast<std::size_t>(cta); i < p.chunks.size(); i += static_cast<std::size_t>(c)) {
      const Chunk& ch = p.chunks[i];
      const int pi = put(b, fmt::format("dispatch{}", i), role, ch.rows, ch.dst);
      b.order(prev, pi);
      prev = pi;
      for (std::int64_t mb = ch.row0 / kTileM; mb * kTileM < ch.row0 + ch.rows; ++mb)
        b.edge(pi, b.add(signal(fmt::format("arrive{}_{}", i, mb), role, kArrive, lay.arrive_slot(ch.dst, ch.local, mb))));
      b.edge(pi, b.add(signal(fmt::format("arrive_all{}", i), role, kDispatchAll, ch.dst)));
    }
    return prev;
  }

  // The wait a tile's loads need (-1: none). `wait_all` keeps fixed-split's single wait.
  int tile_gate(frontend::TemplateBuilder& b, TileRoles roles, const ExpertTile& t, const std::string& sfx,
                int& wait_all) const {
    if (t.gemm == 1)
      return b.add(wait("gemm0_" + sfx, roles.producer, kGemm0, lay.expert_slot(t.local, t.mb), n_blocks(l(), 0)));
    if (!per_tile) {
      if (wait_all < 0 && p.arrivals_all > 0)
        wait_all = b.add(wait("tokens_all", roles.producer, kDispatchAll, g, p.arrivals_all));
      return wait_all;
    }
    const std::int64_t need = p.arrivals[static_cast<std::size_t>(t.local)][static_cast<std::size_t>(t.mb)];
    return need > 0 ? b.add(wait("tokens_" + sfx, roles.producer, kArrive, lay.arrive_slot(g, t.local, t.mb), need))
                    : -1;
  }

  // This CTA's tiles, after `after` (a stealing CTA's dispatch). Returns the last store.
  int tiles(frontend::TemplateBuilder& b, TileRoles roles, const std::vector<ExpertTile>& work, int after) const {
    const TileNodes* prev = nullptr;
    TileNodes last;
    int wait_all = -1;
    int end = after;
    for (const ExpertTile& t : work) {
      const std::string sfx = fmt::format("g{}e{}m{}n{}", t.gemm, t.local, t.mb, t.nb);
      int gate = tile_gate(b, roles, t, sfx, wait_all);
      if (gate >= 0) b.order(after, gate);
      if (gate < 0 && prev == nullptr) gate = after;
      last = add_tile(b, roles, l(), t, graph::Coord{-1, t.mb}, graph::Coord{-1, t.nb}, prev, gate);
      prev = &last;
      const int flag = t.gemm == 0 ? kGemm0 : kGemm1;
      b.edge(last.store, b.add(signal("done_" + sfx, roles.consumer, flag, lay.expert_slot(t.local, t.mb))));
      if (t.gemm == 1) b.edge(last.store, b.add(signal("all_" + sfx, roles.consumer, kGemm1All, 0)));
      end = last.store;
    }
    return end;
  }

  // Combine: results back to the tokens' source GPUs; CTA 0 then waits for this GPU's own.
  void combine(frontend::TemplateBuilder& b, int cta, int role, int after) const {
    int prev = after;
    if (!per_tile && gemm1_tiles > 0) {
      const int w = b.add(wait("gemm1_all", role, kGemm1All, 0, gemm1_tiles));
      b.order(prev, w);
      prev = w;
    }
    for (std::size_t i = static_cast<std::size_t>(cta); i < p.combine.size(); i += static_cast<std::size_t>(c)) {
      const CombineItem& it = p.combine[i];
      if (it.pieces.empty()) continue;
      int gate = prev;
      if (per_tile) {
        gate = b.add(wait(fmt::format("tile{}", i), role, kGemm1, lay.expert_slot(it.local, it.mb), n_blocks(l(), 1)));
        b.order(prev, gate);
      }
      for (const Piece& pc : it.pieces) {
        const int pi = put(b, fmt::format("combine{}_{}", i, pc.src), role, pc.rows, pc.src);
        b.order(gate, pi);
        b.order(prev, pi);
        b.edge(pi, b.add(signal(fmt::format("returned{}_{}", i, pc.src), role, kReturned, pc.src)));
        prev = pi;
      }
    }
    if (cta == 0 && p.returns > 0) b.order(prev, b.add(wait("all_returned", role, kReturned, g, p.returns)));
  }

  graph::CtaTemplate cta_template(int cta, const std::vector<ExpertTile>& work) const {
    frontend::TemplateBuilder b(fmt::format("cta{}", cta));
    const TileRoles roles{b.role("producer", 0, 1), b.role("consumer", 4, 8)};
    if (cta < c) {
      const int role = b.role("comm", 0, kCtaThreads / 32);
      combine(b, cta, role, tiles(b, roles, work, dispatch(b, cta, role)));
    } else {
      tiles(b, roles, work, -1);
    }
    if (b.size() == 0) {  // a CTA with no work (few tokens): it starts and ends
      graph::Node idle;
      idle.id = "idle";
      idle.kind = graph::NodeKind::delay;
      idle.role = roles.producer;
      b.add(std::move(idle));
    }
    return b.take();
  }
};

// Stealing horizon: the communication CTAs must be back for the combine, which cannot end
// before the compute does: estimated compute end (tile time over the compute CTAs) minus the
// time to push this GPU's combine bytes with C CTAs.
double steal_horizon(const MoeLayer& l, const GpuPlan& p, int g, int sms, int c, double push, double link,
                     double tensor) {
  double tile_time = 0, combine_bytes = 0;
  for (const ExpertTile& t : tile_order(l, g)) tile_time += tile_flops(l, t) / tensor;
  for (const CombineItem& it : p.combine)
    for (const Piece& pc : it.pieces) combine_bytes += static_cast<double>(pc.rows * l.bytes_per_token());
  return tile_time / (sms - c) - combine_bytes / std::min(c * push, link);
}

}  // namespace

graph::TileGraph lower_persistent(const MoeLayer& l, const MoeSchedule& s, const std::vector<int>& comm_sms,
                                  const hw::GpuSpec& gpu, const hw::SystemSpec& sys, std::vector<std::int64_t>& stolen) {
  Layout lay{l};
  for (int g = 0; g < l.gpus; ++g) {
    for (int e = 0; e < l.experts_per_gpu(); ++e) lay.max_mb = std::max(lay.max_mb, m_blocks(l, g, e));
  }
  lay.chunk_rows = std::max<std::int64_t>(1, kChunkBytes / l.bytes_per_token());
  const std::vector<GpuPlan> plans = plan_gpus(lay);
  graph::TileGraph graph;
  graph.name = fmt::format("moe_{}_{}", l.shape.model, to_string(s));
  graph.gpus = l.gpus;
  // Order matches enum Flags.
  graph.flags = {{"arrived", graph::FlagScope::system},        {"gemm0_done", graph::FlagScope::gpu},
                 {"gemm1_done", graph::FlagScope::gpu},        {"gemm1_all_done", graph::FlagScope::gpu},
                 {"returned", graph::FlagScope::system},       {"dispatch_all", graph::FlagScope::system}};
  const int sms = gpu.sm.count;
  const double push = sm_push_rate(sys, kCtaThreads), link = link_rate(sys), tensor = sm_tensor_rate(gpu);
  stolen.assign(static_cast<std::size_t>(l.gpus), 0);
  for (int g = 0; g < l.gpus; ++g) {
    const auto& p = plans[static_cast<std::size_t>(g)];
    const int c = comm_sms[static_cast<std::size_t>(g)];
    if (c < 1 || c >= sms) throw InputError(fmt::format("--schedule: C = {} must be 1..{} (SMs - 1)", c, sms - 1));
    std::vector<double> comm_free(static_cast<std::size_t>(c), 0.0);
    for (std::size_t i = 0; i < p.chunks.size(); ++i)
      comm_free[i % static_cast<std::size_t>(c)] +=
          static_cast<double>(p.chunks[i].rows * l.bytes_per_token()) / std::min(push, link / c);
    const auto work = assign_tiles(l, g, sms, c, s.steal, comm_free, tensor,
                                   steal_horizon(l, p, g, sms, c, push, link, tensor));
    GpuKernelBuilder kb{lay, p, g, c, s.kind != ScheduleKind::fixed_split, 0};
    for (const auto& w : work)
      for (const auto& t : w) kb.gemm1_tiles += t.gemm;
    for (int cta = 0; cta < c; ++cta) stolen[static_cast<std::size_t>(g)] += static_cast<std::int64_t>(work[static_cast<std::size_t>(cta)].size());
    graph::Kernel k;
    k.name = fmt::format("moe_{}_gpu{}", to_string(s), g);
    k.gpu = g;
    set_cta_resources(k);
    declare_tensors(k, l, g);
    for (int cta = 0; cta < sms; ++cta) {
      k.templates.push_back(kb.cta_template(cta, work[static_cast<std::size_t>(cta)]));
      k.grid.push_back(graph::CtaGroup{cta, 1, 0, {}});
    }
    graph.kernels.push_back(std::move(k));
  }
  return graph;
}

}  // namespace tgsim::moe
