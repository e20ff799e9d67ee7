// The sequential schedule: per GPU, on one stream, an all-to-all kernel (dispatch), a grouped
// GEMM0 kernel (one CTA per tile, activation in its epilogue), a grouped GEMM1 kernel and an
// all-to-all kernel (combine). The all-to-alls are frontend/multigpu/collectives' all_to_all
// with per-pair sizes: 16 channels push 1/16 of every pair in 512 KiB chunks, each followed
// by a system-scope signal; the kernel ends when everything addressed to its GPU has arrived.
#include <fmt/format.h>

#include <algorithm>

#include "frontend/moe/expert_tiles.h"
#include "frontend/moe/lower.h"
#include "frontend/nodes.h"

namespace tgsim::moe {
namespace {

std::vector<std::int64_t> channel_chunks(std::int64_t bytes) {
  std::vector<std::int64_t> out;
  const std::int64_t share = (bytes + kA2aChannels - 1) / kA2aChannels;
  for (std::int64_t off = 0; off < share; off += kChunkBytes) out.push_back(std::min(kChunkBytes, share - off));
  return out;
}

using frontend::delay_node;

// bytes_to[d]: what GPU g sends to GPU d; flag slot d counts chunks arriving at d.
graph::Kernel all_to_all(const std::string& name, int g, int flag, const std::vector<std::int64_t>& bytes_to,
                         std::int64_t expected, const hw::GpuSpec& gpu, const hw::SystemSpec& sys) {
  graph::Kernel k;
  k.name = name;
  k.gpu = g;
  k.cta.threads = kA2aThreads;
  k.cta.registers_per_thread = 64;
  frontend::TemplateBuilder b("channel");
  const int role = b.role("channel", 0, kA2aThreads / 32);
  const int start = b.add(delay_node("nccl_launch", role, to_seconds(sys.collective_overhead) * gpu.clock.boost.value));
  const int gpus = static_cast<int>(bytes_to.size());
  for (int o = 1; o < gpus; ++o) {
    const int dst = (g + o) % gpus;
    const auto chunks = channel_chunks(bytes_to[static_cast<std::size_t>(dst)]);
    for (std::size_t c = 0; c < chunks.size(); ++c) {
      graph::Node put = frontend::memory_node(fmt::format("put_d{}_c{}", dst, c), graph::NodeKind::remote_put,
                                              graph::MemEngine::plain, role, static_cast<double>(chunks[c]), -1, {});
      put.peer = o;
      const int p = b.add(std::move(put));
      const int s = b.add(frontend::signal_node(fmt::format("ready_d{}_c{}", dst, c), role,
                                                graph::FlagRef{flag, graph::Coord{-1, dst}}));
      b.order(start, p);
      b.edge(p, s);
    }
  }
  if (expected > 0) {
    const int w = b.add(frontend::wait_node("received", role, graph::FlagRef{flag, graph::Coord{-1, g}}, expected));
    b.order(start, w);
  }
  k.templates.push_back(b.take());
  k.grid.push_back(graph::CtaGroup{0, kA2aChannels, 0, {}});
  return k;
}

graph::Kernel grouped_gemm(const MoeLayer& l, int g, int gemm) {
  graph::Kernel k;
  k.name = fmt::format("moe_grouped_gemm{}_gpu{}", gemm, g);
  k.gpu = g;
  set_cta_resources(k);
  declare_tensors(k, l, g);
  for (int e = 0; e < l.experts_per_gpu(); ++e) {
    const std::int64_t mbs = m_blocks(l, g, e), nbs = n_blocks(l, gemm);
    if (mbs == 0) continue;
    frontend::TemplateBuilder b(fmt::format("expert{}_tile", l.global_expert(g, e)));
    const TileRoles roles{b.role("producer", 0, 1), b.role("consumer", 4, 8)};
    add_tile(b, roles, l, ExpertTile{gemm, e, 0, 0}, graph::Coord{0, 0}, graph::Coord{1, 0}, nullptr, -1);
    k.templates.push_back(b.take());
    graph::CtaGroup grp{static_cast<int>(k.templates.size() - 1), mbs * nbs, 2, {}};
    for (const auto& [mb, nb] : raster(mbs, nbs)) {
      grp.params.push_back(mb);
      grp.params.push_back(nb);
    }
    k.grid.push_back(std::move(grp));
  }
  if (k.grid.empty()) {  // no tokens for this GPU's experts: an empty launch
    frontend::TemplateBuilder b("idle");
    const int r = b.role("cta", 0, 1);
    b.add(delay_node("idle", r, 0));
    k.templates.push_back(b.take());
    k.grid.push_back(graph::CtaGroup{0, 1, 0, {}});
  }
  return k;
}

std::int64_t chunk_count(std::int64_t bytes) {
  return bytes > 0 ? kA2aChannels * static_cast<std::int64_t>(channel_chunks(bytes).size()) : 0;
}

}  // namespace

graph::TileGraph lower_sequential(const MoeLayer& l, const hw::GpuSpec& gpu, const hw::SystemSpec& sys) {
  graph::TileGraph g;
  g.name = fmt::format("moe_{}_sequential", l.shape.model);
  g.gpus = l.gpus;
  g.flags.push_back(graph::Flag{"dispatch_arrived", graph::FlagScope::system});
  g.flags.push_back(graph::Flag{"combine_arrived", graph::FlagScope::system});
  for (int gi = 0; gi < l.gpus; ++gi) {
    std::vector<std::int64_t> dispatch(static_cast<std::size_t>(l.gpus), 0), combine = dispatch;
    std::int64_t expect_dispatch = 0, expect_combine = 0;
    for (int o = 0; o < l.gpus; ++o) {
      if (o == gi) continue;
      dispatch[static_cast<std::size_t>(o)] = l.pair_bytes(gi, o);
      combine[static_cast<std::size_t>(o)] = l.pair_bytes(o, gi);  // results of o's tokens go back to o
      expect_dispatch += chunk_count(l.pair_bytes(o, gi));
      expect_combine += chunk_count(l.pair_bytes(gi, o));
    }
    const int first = static_cast<int>(g.kernels.size());
    g.kernels.push_back(
        all_to_all(fmt::format("moe_dispatch_a2a_gpu{}", gi), gi, 0, dispatch, expect_dispatch, gpu, sys));
    g.kernels.push_back(grouped_gemm(l, gi, 0));
    g.kernels.push_back(grouped_gemm(l, gi, 1));
    g.kernels.push_back(all_to_all(fmt::format("moe_combine_a2a_gpu{}", gi), gi, 1, combine, expect_combine, gpu, sys));
    for (int i = 1; i < 4; ++i) g.kernels[static_cast<std::size_t>(first + i)].after = {first + i - 1};
  }
  return g;
}

}  // namespace tgsim::moe
