// tgsim_speed: how fast the simulator replays tile graphs (README "Speed").
//   1. a synthetic graph of >= 1,000,000 node executions: 2,048 CTAs of a 512-node template mixing
//      compute (wgmma, SIMT), shared-memory moves and L2-resident loads, on the H100 preset;
//   2. the 8192x8192x8192 bf16 GEMM with a 128x256 Hopper schedule (the GEMM issue's target).
// Prints node executions per second for each, best of 3 runs, on one thread.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "frontend/gemm/lower.h"
#include "frontend/template_builder.h"
#include "sim/engine/simulator.h"
#include "sim/hw/spec_json.h"

namespace {

using namespace tgsim;

graph::TileGraph synthetic(int ctas, int iterations) {
  frontend::TemplateBuilder b("synthetic");
  const int role = b.role("warps", 0, 8);
  int prev = -1;
  for (int i = 0; i < iterations; ++i) {
    graph::Node ld;
    ld.id = "ld" + std::to_string(i);
    ld.kind = graph::NodeKind::load;
    ld.role = role;
    ld.bytes = Bytes{16384};
    ld.tile.tensor = 0;
    ld.tile.coords = {graph::Coord{-1, i % 8}, {}, {}};  // 8 tiles: L2 hits after the first wave
    graph::Node mma;
    mma.id = "mma" + std::to_string(i);
    mma.kind = graph::NodeKind::mma;
    mma.role = role;
    mma.shape = {64, 128, 16};
    mma.count = 4;
    graph::Node simt;
    simt.id = "simt" + std::to_string(i);
    simt.kind = graph::NodeKind::simt;
    simt.role = role;
    simt.ops = 8;
    graph::Node sm;
    sm.id = "smem" + std::to_string(i);
    sm.kind = graph::NodeKind::smem;
    sm.role = role;
    sm.bytes = Bytes{4096};
    const int a = b.add(ld), c = b.add(mma), d = b.add(simt), e = b.add(sm);
    b.edge(a, c);
    b.edge(c, d);
    b.edge(d, e);
    if (prev >= 0) b.order(prev, c);
    prev = c;
  }
  graph::TileGraph g;
  g.name = "synthetic";
  graph::Kernel k;
  k.name = "synthetic";
  k.cta.threads = 256;
  k.cta.registers_per_thread = 64;
  k.cta.shared_memory = Bytes{48 * 1024};
  k.tensors.push_back(graph::Tensor{"T", Bytes{8 * 16384}});
  k.templates.push_back(b.take());
  k.grid.push_back(graph::CtaGroup{0, ctas, 0, {}});
  g.kernels.push_back(std::move(k));
  return g;
}

void measure(const char* what, const graph::TileGraph& g, const hw::GpuSpec& spec) {
  double best = 1e30;
  std::int64_t nodes = 0;
  double latency_us = 0;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    engine::Simulator sim(g, spec);
    const auto r = sim.run();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
    nodes = r.node_executions;
    latency_us = to_us(r.latency);
  }
  std::printf("%-44s %9lld node executions  %7.3f s  %6.2f M nodes/s  (simulated latency %.1f us)\n", what,
              static_cast<long long>(nodes), best, static_cast<double>(nodes) / best * 1e-6, latency_us);
}

}  // namespace

int main() {
  const hw::GpuSpec h100 = hw::load_gpu_preset("h100", TGSIM_DEFAULT_CONFIG_DIR);
  measure("synthetic: 2048 CTAs x 512 nodes", synthetic(2048, 128), h100);
  gemm::Problem p{8192, 8192, 8192, 1, DType::bf16, DType::bf16, DType::bf16};
  gemm::Schedule s;
  s.tile = {128, 256, 64};
  s.stages = 4;
  s.cluster = {2, 1};
  s.persistent = true;
  s.name = "gemm_128x256x64_4stage_2x1";
  const auto t0 = std::chrono::steady_clock::now();
  const auto lowered = gemm::lower_gemm(p, s, h100);
  const double lower_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("lowering 8192^3 GEMM to a tile graph: %.3f s\n", lower_s);
  measure("gemm 8192^3 bf16, 128x256 Hopper schedule", lowered.graph, h100);
  return 0;
}
