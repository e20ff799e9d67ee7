#include "frontend/multigpu/sm_split.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>

#include "frontend/nodes.h"
#include "frontend/template_builder.h"
#include "sim/units/error.h"

namespace tgsim::multigpu {
namespace {

// How latency (L) and throughput (T) bounds combine for an mma.sync loop: (T^p + L^p)^(1/p).
// calibrated: p = 4 reproduces the 12 mma_loop rows (4/8/16 warps x 1/2/4/8 chains) of
// traces/h200x2/calibration_nvlink.csv with a mean error of 6.2% (a hard max: 8.9%).
constexpr double kOverlapExponent = 4.0;

// One CTA's work list, the key that groups CTAs into templates.
struct Work {
  std::vector<std::int64_t> chunks;
  std::int64_t tiles = 0;
  auto operator<=>(const Work&) const = default;
};

}  // namespace

int sm_split_ctas(const SmSplitParams& p, const hw::GpuSpec& gpu) { return p.ctas > 0 ? p.ctas : gpu.sm.count; }

void check_sm_split(const SmSplitParams& p, const hw::GpuSpec& gpu) {
  const int ctas = sm_split_ctas(p, gpu);
  if (p.comm_blocks < 0 || p.comm_blocks > ctas) {
    throw InputError(fmt::format("comm_blocks {} must be 0..{} (one CTA per SM)", p.comm_blocks, ctas));
  }
  if (p.bytes < 0 || p.tiles < 0) throw InputError("bytes and tiles must not be negative");
  if (p.bytes > 0 && p.comm_blocks == 0) throw InputError("bytes > 0 needs comm_blocks > 0");
  if (p.bytes > 0 && p.chunk_bytes <= 0) throw InputError("chunk_bytes must be positive");
  if (p.tiles > 0 && p.comm_blocks == ctas && !p.steal)
    throw InputError("tiles > 0 but every CTA communicates (no steal)");
  if (p.threads < 32 || p.threads % 32 != 0 || p.threads > gpu.sm.max_threads) {
    throw InputError(fmt::format("threads {} must be a multiple of 32 up to {}", p.threads, gpu.sm.max_threads));
  }
  if (p.mma_chains < 1 || p.mma_per_warp_per_tile < 1)
    throw InputError("mma_chains and mma_per_warp_per_tile must be >= 1");
  if (p.tiles > 0 && gpu.tensor.mma_sync_latency.value <= 0) {
    throw InputError(fmt::format("GPU \"{}\" has no tensor.mma_sync_latency (needed for mma.sync chains)", gpu.name));
  }
}

SmSplitPlan plan_sm_split(const SmSplitParams& p, const hw::GpuSpec& gpu) {
  check_sm_split(p, gpu);
  const int ctas = sm_split_ctas(p, gpu);
  SmSplitPlan plan;
  plan.chunks.resize(static_cast<std::size_t>(ctas));
  plan.tiles.assign(static_cast<std::size_t>(ctas), 0);
  if (p.bytes > 0) {
    const std::int64_t n = (p.bytes + p.chunk_bytes - 1) / p.chunk_bytes;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t size = std::min(p.chunk_bytes, p.bytes - i * p.chunk_bytes);
      plan.chunks[static_cast<std::size_t>(i % p.comm_blocks)].push_back(size);
    }
  }
  const int workers = ctas - p.comm_blocks;
  for (int w = 0; w < workers && p.tiles > 0; ++w) {
    plan.tiles[static_cast<std::size_t>(p.comm_blocks + w)] = p.tiles / workers + (w < p.tiles % workers ? 1 : 0);
  }
  return plan;
}

SmSplitPlan plan_steal(const SmSplitParams& p, const hw::GpuSpec& gpu, const std::vector<Duration>& copy_end,
                       Duration tile_time) {
  SmSplitPlan plan = plan_sm_split(p, gpu);
  const int ctas = sm_split_ctas(p, gpu);
  std::fill(plan.tiles.begin(), plan.tiles.end(), 0);
  // (free at, CTA): the counter hands the next tile to whoever asks first.
  using Slot = std::pair<std::int64_t, int>;
  std::priority_queue<Slot, std::vector<Slot>, std::greater<>> free_at;
  for (int cta = 0; cta < ctas; ++cta) {
    const bool comm = cta < p.comm_blocks;
    const std::size_t k = static_cast<std::size_t>(cta);
    free_at.push({comm ? (k < copy_end.size() ? copy_end[k].count() : 0) : 0, cta});
  }
  const std::int64_t step = std::max<std::int64_t>(1, tile_time.count());
  for (std::int64_t t = 0; t < p.tiles; ++t) {
    const auto [when, cta] = free_at.top();
    free_at.pop();
    ++plan.tiles[static_cast<std::size_t>(cta)];
    free_at.push({when + step, cta});
  }
  return plan;
}

double sm_split_tile_cycles(const SmSplitParams& p, const hw::GpuSpec& gpu) {
  const int sps = gpu.sm.sub_partitions;
  const int warps = p.threads / 32;
  const int warps_per_sp = (warps + sps - 1) / sps;
  const auto fam = gpu.tensor.flops_per_cycle.find(TensorInst::mma_sync);
  const double rate =
      fam == gpu.tensor.flops_per_cycle.end() || !fam->second.count(p.dtype) ? 0 : fam->second.at(p.dtype);
  if (rate <= 0) throw InputError(fmt::format("GPU \"{}\" has no mma.sync path for {}", gpu.name, to_string(p.dtype)));
  const double per_mma = 2.0 * 16 * 8 * 16;
  const double mma = p.mma_per_warp_per_tile;
  const double throughput = mma * warps_per_sp * per_mma / (rate / sps);
  const double latency = mma * gpu.tensor.mma_sync_latency.value / p.mma_chains;
  return std::pow(std::pow(throughput, kOverlapExponent) + std::pow(latency, kOverlapExponent), 1.0 / kOverlapExponent);
}

hw::GpuSpec sm_split_gpu(const hw::GpuSpec& gpu) {
  hw::GpuSpec s = gpu;
  if (gpu.clock.mma_sync_loop.value > 0) {
    s.clock.model = "constant";
    s.clock.boost = gpu.clock.mma_sync_loop;
  }
  return s;
}

double take_tile_cycles(const hw::GpuSpec& gpu) { return gpu.l2.hit_latency.value; }
double take_chunk_cycles(const hw::GpuSpec& gpu) { return gpu.l2.hit_latency.value + gpu.hbm.latency.value; }

graph::TileGraph lower_sm_split(const SmSplitParams& p, const SmSplitPlan& plan, const hw::GpuSpec& gpu,
                                const hw::SystemSpec& sys) {
  check_sm_split(p, gpu);
  graph::TileGraph g;
  g.name = fmt::format("sm_split_c{}_x{}_t{}{}", p.comm_blocks, p.bytes, p.tiles, p.steal ? "_steal" : "");
  g.gpus = 2;
  graph::Kernel k;
  k.name = "sm_split_kernel";
  k.gpu = 0;
  k.cta.threads = p.threads;
  k.cta.registers_per_thread = 64;
  k.cta.shared_memory = Bytes{120 * 1024};  // as the measured kernel: forces one CTA per SM
  const double tile_cycles = p.tiles > 0 ? sm_split_tile_cycles(p, gpu) : 0;
  std::map<Work, int> templates;
  const auto template_for = [&](const Work& w) {
    if (auto it = templates.find(w); it != templates.end()) return it->second;
    frontend::TemplateBuilder b(fmt::format("{}chunks_{}tiles_{}", w.chunks.size(), w.tiles, templates.size()));
    const int role = b.role("cta", 0, p.threads / 32);
    // Chunks: the loop takes a chunk, streams it (posted remote stores), takes the next; the
    // fence then waits until the last stores are visible at the peer.
    int prev = -1;
    for (std::size_t i = 0; i < w.chunks.size(); ++i) {
      const int take = b.add(frontend::delay_node(fmt::format("take_chunk{}", i), role, take_chunk_cycles(gpu)));
      graph::Node put = frontend::memory_node(fmt::format("put{}", i), graph::NodeKind::remote_put,
                                              graph::MemEngine::plain, role, static_cast<double>(w.chunks[i]), -1, {});
      put.peer = 1;
      const int put_index = b.add(std::move(put));
      b.order(prev, take);
      b.order(take, put_index);
      prev = put_index;
    }
    const int fence =
        w.chunks.empty() ? -1 : b.add(frontend::delay_node("fence", role, to_seconds(sys.nvlink.latency) * gpu.clock.boost.value));
    b.order(prev, fence);
    // Tiles: the tensor pipe's share (mma node) and the tile's issue time (delay node: the
    // latency/throughput model) run side by side; the tile chain ends when both have.
    int prev_mma = fence, prev_issue = fence;
    for (std::int64_t t = 0; t < w.tiles; ++t) {
      const int m = b.add(frontend::mma_node(fmt::format("mma{}", t), role, TensorInst::mma_sync, p.dtype, {16, 8, 16},
                                             p.mma_per_warp_per_tile));
      const int d = b.add(frontend::delay_node(fmt::format("issue{}", t), role, take_tile_cycles(gpu) + tile_cycles));
      b.order(prev_mma, m);
      b.order(prev_issue, d);
      prev_mma = m;
      prev_issue = d;
    }
    if (w.tiles > 0) {
      const int e = b.add(frontend::delay_node("tiles_done", role, 0));
      b.order(prev_mma, e);
      b.order(prev_issue, e);
    }
    if (b.size() == 0) b.add(frontend::delay_node("idle", role, 0));
    k.templates.push_back(b.take());
    const int index = static_cast<int>(k.templates.size() - 1);
    templates.emplace(w, index);
    return index;
  };
  for (std::size_t cta = 0; cta < plan.tiles.size(); ++cta) {
    const int t = template_for(Work{plan.chunks[cta], plan.tiles[cta]});
    if (!k.grid.empty() && k.grid.back().template_index == t) {
      ++k.grid.back().count;
    } else {
      k.grid.push_back(graph::CtaGroup{t, 1, 0, {}});
    }
  }
  g.kernels.push_back(std::move(k));
  return g;
}

}  // namespace tgsim::multigpu
