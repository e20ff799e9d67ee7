// Invariants over random small graphs: more bandwidth or more SMs never make the same graph
// slower, and identical inputs give identical results.
//
// The machine here has a narrow SM port (32 B/clk per direction: one SM cannot saturate HBM, as on real
// GPUs). With an unbounded port, fair sharing of HBM can make a run with more SMs finish up to
// a few % later (every CTA's last dependent load lands at the end: a Graham-type anomaly of
// shared-bandwidth schedules; docs/model.md). Flow completion times are rounded up to the next
// picosecond at every rate change, so comparisons allow 1 ns.
#include <gtest/gtest.h>

#include <random>

#include "sim/engine/simulator.h"
#include "tests/sim/engine/test_machine.h"

namespace tgsim {
namespace {

// A random DAG per template (edges only from lower to higher index), a random CTA count.
graph::TileGraph random_graph(std::uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int n = pick(2, 12);
  std::vector<graph::Node> nodes;
  std::vector<graph::Edge> edges;
  for (int i = 0; i < n; ++i) {
    const std::string id = "n" + std::to_string(i);
    switch (pick(0, 4)) {
      case 0: nodes.push_back(testing::load_node(id, pick(1, 64) * 16'384)); break;
      case 4: {  // a register-staged 2-byte load: the L1 pipe taken at issue
        auto l = testing::load_node(id, pick(1, 16) * 4'096);
        l.engine = graph::MemEngine::plain;
        l.access = 2;
        l.pitch_alignment = 1 << pick(1, 7);
        nodes.push_back(l);
        break;
      }
      case 1: nodes.push_back(testing::wgmma_node(id, pick(1, 8))); break;
      case 2: {
        auto s = testing::load_node(id, pick(1, 16) * 16'384);
        s.kind = graph::NodeKind::store;
        nodes.push_back(s);
        break;
      }
      default: nodes.push_back(testing::delay_node(id, pick(0, 2000))); break;
    }
    for (int j = 0; j < i; ++j) {
      if (pick(0, 3) == 0) edges.push_back({j, i, graph::EdgeKind::data});
    }
  }
  auto g = testing::one_kernel(testing::make_template(nodes, edges), pick(1, 40), pick(1, 200) * 1024);
  g.kernels[0].tensors.push_back(graph::Tensor{"T", Bytes{1 << 20}});
  return g;
}

Duration latency(const graph::TileGraph& g, const hw::GpuSpec& spec) { return engine::Simulator(g, spec).run().latency; }

hw::GpuSpec machine(int sms) {
  auto spec = testing::toy_gpu(sms);
  spec.sm.l2_bandwidth_per_sm = hw::BytesPerCycle{32};
  spec.sm.ldg_2b_cycles = Cycles{6};
  spec.sm.ldg_2b_aligned_pitch_cycles = Cycles{9};
  spec.sm.ldg_2b_pitch16_cycles = Cycles{7};
  return spec;
}

constexpr Duration kRounding{1000};

TEST(Properties, MoreHbmBandwidthNeverSlower) {
  for (std::uint32_t seed = 1; seed <= 150; ++seed) {
    const auto g = random_graph(seed);
    auto slow = machine(4);
    auto fast = slow;
    fast.hbm.bandwidth = slow.hbm.bandwidth * 2.0;
    EXPECT_LE(latency(g, fast), latency(g, slow) + kRounding) << "seed " << seed;
  }
}

TEST(Properties, MoreL2BandwidthNeverSlower) {
  for (std::uint32_t seed = 1; seed <= 150; ++seed) {
    const auto g = random_graph(seed);
    auto slow = machine(4);
    auto fast = slow;
    fast.l2.bandwidth = slow.l2.bandwidth * 3.0;
    EXPECT_LE(latency(g, fast), latency(g, slow) + kRounding) << "seed " << seed;
  }
}

TEST(Properties, MoreSmsNeverSlower) {
  for (std::uint32_t seed = 1; seed <= 150; ++seed) {
    const auto g = random_graph(seed);
    Duration prev = kNever;
    for (int sms : {1, 2, 3, 4, 6, 8}) {
      const Duration d = latency(g, machine(sms));
      EXPECT_LE(d, prev == kNever ? prev : prev + kRounding) << "seed " << seed << " sms " << sms;
      prev = d;
    }
  }
}

TEST(Properties, IdenticalInputsIdenticalResults) {
  for (std::uint32_t seed = 1; seed <= 30; ++seed) {
    const auto g = random_graph(seed);
    const auto a = engine::Simulator(g, testing::toy_gpu(3)).run();
    const auto b = engine::Simulator(g, testing::toy_gpu(3)).run();
    EXPECT_EQ(a.latency, b.latency);
    EXPECT_EQ(a.events, b.events);
    EXPECT_EQ(a.l2_hits, b.l2_hits);
  }
}

}  // namespace
}  // namespace tgsim
