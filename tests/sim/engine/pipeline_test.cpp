// A TMA producer / wgmma consumer pipeline with S shared-memory stages over K iterations:
//   load_i -> mma_i (full barrier), mma_i -> load_{i+S} (empty barrier: the stage is released).
// Load alone: 100,000 B = 100 ns + 500 ns DRAM latency; mma_i: `mmas` x 128 ns. The SM's port
// streams its loads in issue order, so load k of a burst is done at (k+1) x 100 + 500 ns.
#include <gtest/gtest.h>

#include "sim/engine/simulator.h"
#include "tests/sim/engine/test_machine.h"

namespace tgsim {
namespace {

graph::TileGraph pipeline(int stages, int iterations, int mmas) {
  std::vector<graph::Node> nodes;
  std::vector<graph::Edge> edges;
  for (int i = 0; i < iterations; ++i) {
    nodes.push_back(testing::load_node("ld" + std::to_string(i), 100'000));
    nodes.push_back(testing::wgmma_node("mma" + std::to_string(i), mmas));
    edges.push_back({2 * i, 2 * i + 1, graph::EdgeKind::data});
    if (i > 0) edges.push_back({2 * i - 1, 2 * i + 1, graph::EdgeKind::order});  // accumulator chain
    if (i + stages < iterations) edges.push_back({2 * i + 1, 2 * (i + stages), graph::EdgeKind::order});
  }
  return testing::one_kernel(testing::make_template(nodes, edges));
}

Duration run(const graph::TileGraph& g) { return engine::Simulator(g, testing::toy_gpu()).run().latency; }

TEST(Pipeline, OneStageSerialisesLoadAndCompute) {
  // Each iteration: load (600 ns) then 8 wgmma (1024 ns).
  EXPECT_EQ(run(pipeline(1, 16, 8)).count(), 16 * (600'000 + 1'024'000));
}

TEST(Pipeline, TwoStagesHideLoadsBehindCompute) {
  // Load 0 done at 600 ns, load 1 at 700 ns; then compute-bound: 16 x 1024 ns.
  EXPECT_EQ(run(pipeline(2, 16, 8)).count(), 600'000 + 16 * 1'024'000);
}

TEST(Pipeline, FourStagesComputeBoundSteadyState) {
  // The first load is done at 600 ns; the rest arrive while wgmma runs: 16 x 1024 ns back to back.
  EXPECT_EQ(run(pipeline(4, 16, 8)).count(), 600'000 + 16 * 1'024'000);
}

TEST(Pipeline, FourStagesLatencyBound) {
  // mma 128 ns: loads 0-3 arrive at 600..900 ns; each group of 4 iterations starts one
  // load+mma round trip (600 + 128 ns) after the previous one: mma15 starts at
  // 600 + 3*728 + 3*128 ns and takes 128 ns.
  EXPECT_EQ(run(pipeline(4, 16, 1)).count(), (600 + 3 * 728 + 3 * 128 + 128) * 1000);
}

TEST(Pipeline, MoreStagesNeverSlower) {
  Duration prev = kNever;
  for (int s = 1; s <= 6; ++s) {
    const Duration d = run(pipeline(s, 24, 2));
    EXPECT_LE(d, prev) << "stages " << s;
    prev = d;
  }
}

}  // namespace
}  // namespace tgsim
