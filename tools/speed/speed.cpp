// tgsim_speed: how fast the simulator replays tile graphs (README "Speed").
//   1. a synthetic graph of >= 1,000,000 node executions: 2,048 CTAs of a 512-node template mixing
//      compute (wgmma, SIMT), shared-memory moves and L2-resident loads, on the H100 preset;
//   2. the 8192x8192x8192 bf16 GEMM with a 128x256 Hopper schedule (the GEMM issue's target);
//   3. the same GEMM on the H200 through engine::simulate (all power-clock-model passes).
// Prints node executions per second for each, best of 3 runs, on one thread, and a fingerprint of
// the result (exact latency, event count, L2 hits, utilisations, critical path) so that engine
// optimisations can be checked to leave results unchanged.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "frontend/gemm/lower.h"
#include "frontend/template_builder.h"
#include "sim/engine/simulate.h"
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

// Every number of a Result that the reports print, at full precision.
void print_fingerprint(const engine::Result& r) {
  std::printf("  latency %lld ps, %lld events, %lld nodes, L2 %lld hits %lld misses\n",
              static_cast<long long>(r.latency.count()), static_cast<long long>(r.events),
              static_cast<long long>(r.node_executions), static_cast<long long>(r.l2_hits),
              static_cast<long long>(r.l2_misses));
  for (const auto& k : r.kernels) {
    std::printf("  kernel %s: %lld..%lld ps, tensor %.17g\n", k.name.c_str(), static_cast<long long>(k.start.count()),
                static_cast<long long>(k.end.count()), k.tensor_utilisation);
  }
  for (const auto& s : r.resources) {
    std::printf("  %s: busy %lld ps, utilisation %.17g, amount %.17g\n", s.name.c_str(),
                static_cast<long long>(s.busy.count()), s.utilisation, s.amount);
  }
  for (const auto& c : r.critical_path) {
    std::printf("  critical: %s %lld ps\n", c.what.c_str(), static_cast<long long>(c.time.count()));
  }
}

// `run` simulates once and returns the Result.
template <typename Run>
void measure(const char* what, const Run& run, bool fingerprint) {
  double best = 1e30;
  engine::Result r;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    r = run();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
  }
  std::printf("%-44s %9lld node executions  %7.3f s  %6.2f M nodes/s  (simulated latency %.1f us)\n", what,
              static_cast<long long>(r.node_executions), best, static_cast<double>(r.node_executions) / best * 1e-6,
              to_us(r.latency));
  if (fingerprint) print_fingerprint(r);
}

}  // namespace

// Usage: tgsim_speed [--fingerprint] [synthetic|gemm|simulate] (default: all benchmarks).
int main(int argc, char** argv) {
  bool fingerprint = false;
  const char* only = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--fingerprint") == 0) {
      fingerprint = true;
    } else {
      only = argv[i];
    }
  }
  const auto wanted = [&](const char* name) { return only == nullptr || std::strcmp(only, name) == 0; };
  const hw::GpuSpec h100 = hw::load_gpu_preset("h100", TGSIM_DEFAULT_CONFIG_DIR);
  if (wanted("synthetic")) {
    const graph::TileGraph g = synthetic(2048, 128);
    measure("synthetic: 2048 CTAs x 512 nodes", [&] { return engine::Simulator(g, h100).run(); }, fingerprint);
  }
  if (!wanted("gemm") && !wanted("simulate")) return 0;
  gemm::Problem p{8192, 8192, 8192, 1, DType::bf16, DType::bf16, DType::bf16};
  gemm::Schedule s;
  s.tile = {128, 256, 64};
  s.stages = 4;
  s.cluster = {2, 1};
  s.persistent = true;
  s.name = "gemm_128x256x64_4stage_2x1";
  if (wanted("gemm")) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto lowered = gemm::lower_gemm(p, s, h100);
    const double lower_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("lowering 8192^3 GEMM to a tile graph: %.3f s\n", lower_s);
    measure("gemm 8192^3 bf16, 128x256 Hopper schedule", [&] { return engine::Simulator(lowered.graph, h100).run(); },
            fingerprint);
  }
  if (wanted("simulate")) {
    // The whole prediction on a GPU with a power-limited clock: engine::simulate replays the
    // graph once per clock-model pass (the time is for all passes; nodes are one pass's).
    const hw::GpuSpec h200 = hw::load_gpu_preset("h200", TGSIM_DEFAULT_CONFIG_DIR);
    const auto lowered = gemm::lower_gemm(p, s, h200);
    measure("gemm 8192^3 on H200, engine::simulate", [&] { return engine::simulate(lowered.graph, h200); },
            fingerprint);
  }
  return 0;
}
