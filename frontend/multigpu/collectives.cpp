#include "frontend/multigpu/collectives.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "frontend/nodes.h"
#include "frontend/template_builder.h"
#include "sim/units/error.h"

namespace tgsim::multigpu {
namespace {

// assumed: NCCL's usual channel count for rings and peer-to-peer on NVSwitch systems (not read
// from the measured runs); with 512 threads a channel's SM pushes 45.5 GB/s, so 16 channels
// are link-bound on every preset.
constexpr int kDefaultChannels = 16;
// NCCL Simple protocol: a 4 MiB buffer per channel and peer in NCCL_STEPS = 8 steps (NCCL
// source, src/include/device.h and NCCL_BUFFSIZE default).
constexpr std::int64_t kSimpleStep = 512 * 1024;

using frontend::delay_node;

graph::Node put_node(std::string id, int role, std::int64_t bytes, int peer, int threads = 0) {
  graph::Node n = frontend::memory_node(std::move(id), graph::NodeKind::remote_put, graph::MemEngine::plain, role,
                                        static_cast<double>(bytes), -1, {});
  n.peer = peer;
  n.threads = threads;
  return n;
}

graph::Kernel base_kernel(const CollectivePlan& plan, int gpu, std::string name) {
  graph::Kernel k;
  k.name = std::move(name);
  k.gpu = gpu;
  k.cta.threads = plan.threads;
  k.cta.registers_per_thread = 64;
  k.cta.shared_memory = Bytes{0};
  return k;
}

// Each channel's share of `bytes` in chunks of at most `chunk`.
std::vector<std::int64_t> chunks_of(std::int64_t bytes, int channels, std::int64_t chunk) {
  const std::int64_t share = (bytes + channels - 1) / channels;
  std::vector<std::int64_t> out;
  for (std::int64_t off = 0; off < share; off += chunk) out.push_back(std::min(chunk, share - off));
  if (out.empty()) out.push_back(0);
  return out;
}

graph::TileGraph lower_all_to_all(const CollectiveParams& p, const CollectivePlan& plan, const hw::GpuSpec& gpu,
                                  const hw::SystemSpec& sys) {
  graph::TileGraph g;
  g.name = fmt::format("all_to_all_{}x{}B", p.gpus, p.bytes);
  g.gpus = p.gpus;
  g.flags.push_back(graph::Flag{"arrived", graph::FlagScope::system});
  const std::vector<std::int64_t> chunks = chunks_of(p.bytes, plan.channels, plan.chunk_bytes);
  const double launch_cycles = to_seconds(sys.collective_overhead) * gpu.clock.boost.value;
  for (int gi = 0; gi < p.gpus; ++gi) {
    graph::Kernel k = base_kernel(plan, gi, fmt::format("nccl_sendrecv_gpu{}", gi));
    frontend::TemplateBuilder b("channel");
    const int role = b.role("channel", 0, plan.threads / 32);
    const int start = b.add(delay_node("nccl_launch", role, launch_cycles));
    // param 0: this channel's slot on its own GPU (gpu * channels + channel); the receiver's
    // slot is param 0 + (peer - gpu) * channels (a plain offset: each GPU has its own kernel).
    for (int o = 1; o < p.gpus; ++o) {
      const int dst = (gi + o) % p.gpus;
      for (std::size_t c = 0; c < chunks.size(); ++c) {
        const int put = b.add(put_node(fmt::format("put_p{}_c{}", o, c), role, chunks[c], o, plan.send_threads));
        const int sig = b.add(frontend::signal_node(
            fmt::format("ready_p{}_c{}", o, c), role,
            graph::FlagRef{0, graph::Coord{0, static_cast<std::int64_t>(dst - gi) * plan.channels}}));
        b.order(start, put);
        b.edge(put, sig);
      }
    }
    const auto expected = static_cast<std::int64_t>(chunks.size()) * (p.gpus - 1);
    const int wait = b.add(frontend::wait_node("received", role, graph::FlagRef{0, graph::Coord{0, 0}}, expected));
    b.order(start, wait);
    k.templates.push_back(b.take());
    graph::CtaGroup grp{0, plan.channels, 1, {}};
    for (int ch = 0; ch < plan.channels; ++ch) grp.params.push_back(static_cast<std::int64_t>(gi) * plan.channels + ch);
    k.grid.push_back(std::move(grp));
    g.kernels.push_back(std::move(k));
  }
  return g;
}

graph::TileGraph lower_ring_all_reduce(const CollectiveParams& p, const CollectivePlan& plan, const hw::GpuSpec& gpu,
                                       const hw::SystemSpec& sys) {
  graph::TileGraph g;
  g.name = fmt::format("all_reduce_ring_{}x{}B", p.gpus, p.bytes);
  g.gpus = p.gpus;
  g.flags.push_back(graph::Flag{"step", graph::FlagScope::system});
  const std::int64_t segment = (p.bytes + p.gpus - 1) / p.gpus;
  const std::vector<std::int64_t> chunks = chunks_of(segment, plan.channels, plan.chunk_bytes);
  const int steps = 2 * (p.gpus - 1);
  const auto per_channel = static_cast<std::int64_t>(chunks.size()) * steps;  // flag slots per channel
  const double launch_cycles = to_seconds(sys.collective_overhead) * gpu.clock.boost.value;
  for (int gi = 0; gi < p.gpus; ++gi) {
    graph::Kernel k = base_kernel(plan, gi, fmt::format("nccl_allreduce_ring_gpu{}", gi));
    frontend::TemplateBuilder b("channel");
    const int role = b.role("channel", 0, plan.threads / 32);
    const int start = b.add(delay_node("nccl_launch", role, launch_cycles));
    // Slots: ((gpu * channels + channel) * chunks + j) * steps + s; param 0 is this channel's
    // base on its own GPU, param 1 the same channel's base on the next GPU.
    for (std::size_t j = 0; j < chunks.size(); ++j) {
      int prev_wait = -1;
      for (int s = 0; s < steps; ++s) {
        const auto slot = static_cast<std::int64_t>(j) * steps + s;
        const int put = b.add(put_node(fmt::format("put_c{}_s{}", j, s), role, chunks[j], 1));
        const int sig = b.add(
            frontend::signal_node(fmt::format("sent_c{}_s{}", j, s), role, graph::FlagRef{0, graph::Coord{1, slot}}));
        const int wait = b.add(
            frontend::wait_node(fmt::format("recv_c{}_s{}", j, s), role, graph::FlagRef{0, graph::Coord{0, slot}}, 1));
        b.order(start, put);
        b.order(start, wait);
        if (prev_wait >= 0) b.edge(prev_wait, put);  // forward what came in (reduced) at the next step
        b.edge(put, sig);
        prev_wait = wait;
      }
    }
    k.templates.push_back(b.take());
    graph::CtaGroup grp{0, plan.channels, 2, {}};
    const int next = (gi + 1) % p.gpus;
    for (int ch = 0; ch < plan.channels; ++ch) {
      grp.params.push_back((static_cast<std::int64_t>(gi) * plan.channels + ch) * per_channel);
      grp.params.push_back((static_cast<std::int64_t>(next) * plan.channels + ch) * per_channel);
    }
    k.grid.push_back(std::move(grp));
    g.kernels.push_back(std::move(k));
  }
  return g;
}

}  // namespace

// NCCL's split of one send of `bytes` over channels on one node (src/enqueue.cc, addP2pToPlan and
// its caller, NCCL 2.28): at most the per-peer channels, halved while they times the ranks exceed
// the p2p channels; one channel per 1/8 step (64 KiB) of data; doubled while a channel's part
// exceeds 32 steps (16 MiB) and doubling stays within the per-peer channels.
int nccl_p2p_channels(std::int64_t bytes, int ranks, const hw::NcclSpec& n, std::int64_t step) {
  const int max_channels = n.p2p_channels_per_peer;
  int min_channels = max_channels;
  while (min_channels * ranks > n.p2p_channels && min_channels > 1) min_channels /= 2;
  const std::int64_t min_part = step / 8, max_part = step * 32;
  int channels = static_cast<int>(std::min<std::int64_t>(min_channels, (bytes + min_part - 1) / min_part));
  channels = std::max(channels, 1);
  std::int64_t part = std::max(min_part, (bytes + channels - 1) / channels);
  while (part > max_part && channels <= max_channels / 2) {
    channels *= 2;
    part = (bytes + channels - 1) / channels;
  }
  return channels;
}

// Threads of a p2p CTA that send to one peer: NCCL's SendRecv splits its warps per work into
// receivers and senders (src/device/sendrecv.h): above 4 warps, (w - 1) / 2 receive and one more send.
int nccl_send_threads(int threads) {
  const int warps = threads / 32;
  const int recv = warps <= 4 ? warps / 2 : (warps - 1) / 2;
  return 32 * (warps <= 4 ? recv : recv + 1);
}

std::string_view to_string(Collective c) { return c == Collective::all_to_all ? "all_to_all" : "all_reduce"; }

CollectivePlan plan_collective(const CollectiveParams& p, const hw::GpuSpec& gpu, const hw::SystemSpec& sys) {
  if (p.gpus < 2 || p.gpus > sys.gpu_count) {
    throw InputError(
        fmt::format("a collective over {} GPUs on system \"{}\" ({} GPUs)", p.gpus, sys.name, sys.gpu_count));
  }
  if (p.bytes <= 0) throw InputError("collective bytes must be positive");
  if (p.threads < 32 || p.threads % 32 != 0 || p.threads > gpu.sm.max_threads)
    throw InputError("bad threads per channel");
  CollectivePlan plan;
  plan.chunk_bytes = p.chunk_bytes > 0 ? p.chunk_bytes : kSimpleStep;
  const bool nccl_p2p = p.kind == Collective::all_to_all && sys.nccl.p2p_channels > 0;
  int channels = p.channels > 0 ? p.channels : kDefaultChannels;
  if (nccl_p2p && p.channels <= 0) channels = nccl_p2p_channels(p.bytes, p.gpus, sys.nccl, kSimpleStep);
  plan.channels = std::clamp(channels, 1, gpu.sm.count);
  plan.threads = nccl_p2p && p.threads_from_system ? sys.nccl.threads : p.threads;
  if (plan.threads > gpu.sm.max_threads) throw InputError("bad threads per channel");
  plan.send_threads = nccl_p2p ? nccl_send_threads(plan.threads) : 0;  // 0: the CTA's (all its threads push)
  return plan;
}

graph::TileGraph lower_collective(const CollectiveParams& p, const CollectivePlan& plan, const hw::GpuSpec& gpu,
                                  const hw::SystemSpec& sys) {
  return p.kind == Collective::all_to_all ? lower_all_to_all(p, plan, gpu, sys)
                                          : lower_ring_all_reduce(p, plan, gpu, sys);
}

}  // namespace tgsim::multigpu
