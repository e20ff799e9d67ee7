// Multi-GPU transfers on the toy GPU (1 GHz) and a toy system with round numbers: NVLink
// 100 GB/s per direction (0.1 byte/ps), SM stores capped at 25 GB/s with enough threads,
// 1 us NVLink latency, 2 us cross-GPU signal, no launch overheads. Hand-computed answers and the
// invariants of docs/multigpu.md.
#include <gtest/gtest.h>

#include "sim/engine/simulator.h"
#include "sim/units/error.h"
#include "tests/sim/engine/test_machine.h"

namespace tgsim {
namespace {

using testing::make_template;
using testing::toy_gpu;

hw::SystemSpec toy_system(int gpus = 2) {
  hw::SystemSpec s;
  s.name = "toy";
  s.gpu = "toy";
  s.gpu_count = gpus;
  s.nvlink.bandwidth = BytesPerSecond{100e9};
  s.nvlink.sm_efficiency = 1.0;
  s.nvlink.latency = Duration{1'000'000};
  s.nvlink.sm_store = {BytesPerSecond{25e9}, Duration{1'000'000}};  // 64 B x 512 threads / 1 us = 32.8 GB/s > cap
  s.nvlink.sm_load = {BytesPerSecond{20e9}, Duration{1'000'000}};
  s.nvlink.sm_bytes_in_flight_per_thread = Bytes{64};
  s.copy_engines = {1, BytesPerSecond{50e9}, Duration{3'000'000}};
  s.signal_latency = Duration{2'000'000};
  return s;
}

graph::Node put(std::string id, std::int64_t bytes, int peer = 1, graph::NodeKind kind = graph::NodeKind::remote_put,
                graph::MemEngine engine = graph::MemEngine::plain) {
  graph::Node n;
  n.id = std::move(id);
  n.kind = kind;
  n.engine = engine;
  n.bytes = Bytes{bytes};
  n.peer = peer;
  return n;
}

// One kernel per listed GPU, each with `ctas` CTAs of 512 threads running `t`.
graph::TileGraph on_gpus(const graph::CtaTemplate& t, std::vector<int> gpus, int total_gpus, std::int64_t ctas = 1) {
  graph::TileGraph g;
  g.name = "mgpu";
  g.gpus = total_gpus;
  for (int gpu : gpus) {
    graph::Kernel k;
    k.name = "k" + std::to_string(gpu);
    k.gpu = gpu;
    k.cta.threads = 512;
    k.cta.shared_memory = Bytes{1024};
    graph::CtaTemplate tt = t;
    tt.roles[0].warps = 16;
    k.templates.push_back(tt);
    k.grid.push_back(graph::CtaGroup{0, ctas, 0, {}});
    g.kernels.push_back(std::move(k));
  }
  return g;
}

Duration run(const graph::TileGraph& g, const hw::SystemSpec& sys, int sms = 8) {
  engine::SimOptions o;
  o.system = &sys;
  return engine::Simulator(g, toy_gpu(sms), o).run().latency;
}

TEST(MultiGpu, OnePutRunsAtTheSmCap) {
  // 1,000,000 B at 25 GB/s = 40 us; a put retires with its last byte.
  const auto g = on_gpus(make_template({put("p", 1'000'000)}, {}), {0}, 2);
  EXPECT_EQ(run(g, toy_system()).count(), 40'000'000);
}

TEST(MultiGpu, FewThreadsLimitTheRateByLittlesLaw) {
  // 128 threads x 64 B in flight / 1 us round trip = 8.192 GB/s < 25 GB/s cap.
  graph::TileGraph g = on_gpus(make_template({put("p", 8'192'000)}, {}), {0}, 2);
  g.kernels[0].cta.threads = 128;
  g.kernels[0].templates[0].roles[0].warps = 4;
  EXPECT_EQ(run(g, toy_system()).count(), 1'000'000'000);
}

TEST(MultiGpu, GetPaysTheLatencyAfterItsLastByte) {
  // 1,000,000 B at 20 GB/s = 50 us, + 1 us NVLink latency.
  const auto g = on_gpus(make_template({put("g", 1'000'000, 1, graph::NodeKind::remote_get)}, {}), {0}, 2);
  EXPECT_EQ(run(g, toy_system()).count(), 51'000'000);
}

TEST(MultiGpu, SmsShareTheEgressLink) {
  // 8 CTAs (8 SMs) x 1 MB: 8 x 25 GB/s > 100 GB/s, so the link binds: 8 MB / 100 GB/s = 80 us.
  const auto g = on_gpus(make_template({put("p", 1'000'000)}, {}), {0}, 2, 8);
  EXPECT_EQ(run(g, toy_system()).count(), 80'000'000);
}

TEST(MultiGpu, ThreePeersShareOneGpusEgress) {
  // GPU 0 pushes 1 MB to each of GPUs 1, 2, 3 from three SMs: 3 MB through its egress at
  // 100 GB/s = 30 us, although each destination's ingress carries only 1 MB.
  graph::CtaTemplate t = make_template({put("p1", 1'000'000, 1)}, {});
  graph::TileGraph g = on_gpus(t, {0}, 4, 3);
  g.kernels[0].templates.clear();
  for (int peer = 1; peer <= 3; ++peer) {
    graph::CtaTemplate tp = make_template({put("p", 1'000'000, peer)}, {});
    tp.roles[0].warps = 16;
    g.kernels[0].templates.push_back(tp);
  }
  g.kernels[0].grid = {{0, 1, 0, {}}, {1, 1, 0, {}}, {2, 1, 0, {}}};
  // Each SM alone would take 40 us at its 25 GB/s cap; shared egress: 3 x 25 = 75 < 100, so
  // the cap binds: 40 us. With a 50 GB/s link the egress binds: 3 MB / 50 GB/s = 60 us.
  EXPECT_EQ(run(g, toy_system(4)).count(), 40'000'000);
  hw::SystemSpec slow = toy_system(4);
  slow.nvlink.bandwidth = BytesPerSecond{50e9};
  EXPECT_EQ(run(g, slow).count(), 60'000'000);
}

TEST(MultiGpu, TwoSendersShareOneIngress) {
  // GPUs 1 and 2 both push 4 CTAs x 1 MB to GPU 0 (peer 2 and 1 of 3): 8 MB into GPU 0's
  // ingress at 100 GB/s = 80 us.
  graph::TileGraph g = on_gpus(make_template({put("p", 1'000'000, 2)}, {}), {1}, 3, 4);
  graph::TileGraph g2 = on_gpus(make_template({put("p", 1'000'000, 1)}, {}), {2}, 3, 4);
  g.kernels.push_back(g2.kernels[0]);
  EXPECT_EQ(run(g, toy_system(3)).count(), 80'000'000);
}

TEST(MultiGpu, CopyEngineRunsAtItsOwnRateAfterItsSetUp) {
  // 1,000,000 B at 50 GB/s = 20 us, + 3 us set-up.
  const auto g = on_gpus(
      make_template({put("ce", 1'000'000, 1, graph::NodeKind::remote_put, graph::MemEngine::copy_engine)}, {}), {0}, 2);
  EXPECT_EQ(run(g, toy_system()).count(), 23'000'000);
}

TEST(MultiGpu, SmEfficiencyScalesWhatTheLinkDelivers) {
  // 8 SMs saturate the link; at 80% efficiency they deliver 80 GB/s: 8 MB in 100 us.
  hw::SystemSpec sys = toy_system();
  sys.nvlink.sm_efficiency = 0.8;
  const auto g = on_gpus(make_template({put("p", 1'000'000)}, {}), {0}, 2, 8);
  EXPECT_NEAR(static_cast<double>(run(g, sys).count()), 100'000'000, 1);  // flow ends round up to 1 ps
}

TEST(MultiGpu, SystemSignalWakesTheOtherGpuAfterTheSignalLatency) {
  // GPU 0: put 1 MB (40 us) then signal; GPU 1 waits for it: 40 us + 2 us signal latency.
  graph::TileGraph g;
  g.name = "signal";
  g.gpus = 2;
  g.flags.push_back(graph::Flag{"done", graph::FlagScope::system});
  graph::Node sig;
  sig.id = "sig";
  sig.kind = graph::NodeKind::signal;
  sig.flag = graph::FlagRef{0, {}};
  graph::Node wait = sig;
  wait.id = "wait";
  wait.kind = graph::NodeKind::wait;
  g.kernels = on_gpus(make_template({put("p", 1'000'000), sig}, {{0, 1, graph::EdgeKind::order}}), {0}, 2).kernels;
  g.kernels.push_back(on_gpus(make_template({wait}, {}), {1}, 2).kernels[0]);
  EXPECT_EQ(run(g, toy_system()).count(), 42'000'000);
}

TEST(MultiGpu, GraphsOnSeveralGpusNeedASystem) {
  const auto g = on_gpus(make_template({put("p", 1000)}, {}), {0}, 2);
  EXPECT_THROW(engine::Simulator(g, toy_gpu(), {}), InputError);
  const auto three = on_gpus(make_template({put("p", 1000)}, {}), {0}, 3);
  engine::SimOptions o;
  const hw::SystemSpec two = toy_system(2);
  o.system = &two;
  EXPECT_THROW(engine::Simulator(three, toy_gpu(), o), InputError);
}

TEST(MultiGpu, OneGpuGraphIsUnchangedByASystem) {
  graph::TileGraph g = testing::one_kernel(make_template({testing::load_node("ld", 1'000'000)}, {}));
  const hw::SystemSpec sys = toy_system();
  engine::SimOptions o;
  o.system = &sys;
  EXPECT_EQ(engine::Simulator(g, toy_gpu(), o).run().latency, engine::Simulator(g, toy_gpu()).run().latency);
}

TEST(MultiGpu, MoreNvlinkBandwidthIsNeverSlower) {
  const auto g = on_gpus(make_template({put("a", 3'000'000), put("b", 1'000'000, 1, graph::NodeKind::remote_get)}, {}),
                         {0, 1}, 2, 6);
  Duration prev = Duration::max() - Duration{1};
  for (double gbps : {20.0, 50.0, 100.0, 200.0, 400.0}) {
    hw::SystemSpec sys = toy_system();
    sys.nvlink.bandwidth = BytesPerSecond{gbps * 1e9};
    const Duration t = run(g, sys);
    EXPECT_LE(t, prev + Duration{1}) << gbps;  // flow ends round up to the next ps
    prev = t;
  }
}

TEST(MultiGpu, MoreCopyingSmsAreNeverSlowerForAPureCopy) {
  // 24 MB split over c CTAs (one per SM).
  Duration prev = Duration::max() - Duration{1};
  for (int c : {1, 2, 3, 4, 6, 8}) {
    const auto g = on_gpus(make_template({put("p", 24'000'000 / c)}, {}), {0}, 2, c);
    const Duration t = run(g, toy_system());
    EXPECT_LE(t, prev + Duration{1}) << c;  // flow ends round up to the next ps
    prev = t;
  }
}

}  // namespace
}  // namespace tgsim
