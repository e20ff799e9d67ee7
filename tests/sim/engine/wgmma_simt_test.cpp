// SIMT work slowed while a wgmma runs on the SM (simt.rate_during_wgmma; calib_attn, docs/model.md),
// by hand on the toy GPU (1 cycle = 1000 ps; 8 x m64n256k16 = 1024 cycles of tensor work).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/graph/graph_json.h"

#include "sim/engine/simulator.h"
#include "tests/sim/engine/test_machine.h"

namespace tgsim {
namespace {

using testing::delay_node;
using testing::toy_gpu;
using testing::wgmma_node;

// Warpgroup 1 issues the wgmma at 0; warpgroup 0 starts `ops` FP32 instructions per thread at
// cycle 4 (one warp per sub-partition: `ops` cycles of its SIMT pipe at full rate).
graph::TileGraph overlap_graph(double ops) {
  graph::CtaTemplate t = testing::two_warpgroups();
  graph::Node mma = wgmma_node("mma", 8);
  mma.role = 1;
  graph::Node wait = delay_node("wait", 4);
  graph::Node simt;
  simt.id = "softmax";
  simt.kind = graph::NodeKind::simt;
  simt.ops = ops;
  simt.threads = 128;
  t.nodes = {mma, wait, simt};
  t.edges = {{1, 2}};
  graph::TileGraph g;
  g.name = "overlap";
  graph::Kernel k;
  k.name = "k";
  k.cta.threads = 256;
  k.cta.shared_memory = Bytes{1024};
  k.templates.push_back(std::move(t));
  k.grid.push_back(graph::CtaGroup{0, 1, 0, {}});
  g.kernels.push_back(std::move(k));
  return g;
}

Duration simulate(const graph::TileGraph& g, const hw::GpuSpec& spec) { return engine::Simulator(g, spec).run().latency; }

TEST(WgmmaSlowsSimt, FullRateHidesTheSoftmaxBehindTheWgmma) {
  EXPECT_EQ(simulate(overlap_graph(300), toy_gpu()).count(), 1'024'000);
}

TEST(WgmmaSlowsSimt, SimtInsideTheWgmmaRunsAtTheRateAndTheRestAtFullSpeed) {
  auto spec = toy_gpu();
  spec.simt.rate_during_wgmma = 0.25;
  // From 4 to 1024 the 300 cycles of work progress at 0.25: 255 done; the other 45 after it.
  EXPECT_EQ(simulate(overlap_graph(300), spec).count(), 1'069'000);
  // 100 cycles of work fit inside the wgmma at 0.25 (400 cycles, ending at 404): hidden.
  EXPECT_EQ(simulate(overlap_graph(100), spec).count(), 1'024'000);
}

TEST(WgmmaSlowsSimt, SimtWithoutAWgmmaIsNotSlowed) {
  auto spec = toy_gpu();
  spec.simt.rate_during_wgmma = 0.25;
  graph::TileGraph g = overlap_graph(300);
  g.kernels[0].templates[0].nodes[0] = delay_node("no_mma", 1);
  g.kernels[0].templates[0].nodes[0].role = 1;
  EXPECT_EQ(simulate(g, spec).count(), 304'000);
}

// Uniform-datapath instructions take their issue slots but not the vector register file: a
// running wgmma does not slow them (one warp instruction per sub-partition and cycle).
TEST(WgmmaSlowsSimt, UniformWorkIsNotSlowed) {
  auto spec = toy_gpu();
  spec.simt.rate_during_wgmma = 0.25;
  graph::TileGraph g = overlap_graph(300);
  g.kernels[0].templates[0].nodes[2].pipe = graph::SimtPipe::uniform;
  // 300 cycles from cycle 4, inside the 1024 of the wgmma: hidden, where FP32 work ends at 1069.
  EXPECT_EQ(simulate(g, spec).count(), 1'024'000);
  g = overlap_graph(1500);
  g.kernels[0].templates[0].nodes[2].pipe = graph::SimtPipe::uniform;
  EXPECT_EQ(simulate(g, spec).count(), 1'504'000);
}

TEST(WgmmaSlowsSimt, ReadsAndWritesTheUniformPipe) {
  const auto g = graph::parse_tile_graph(nlohmann::json::parse(R"({
    "format": "tgsim-tile-graph/1", "name": "u",
    "kernels": [{"name": "k", "cta": {"threads": 128},
      "templates": [{"name": "t", "roles": [{"name": "w", "warps": 4}],
        "nodes": [{"id": "desc", "kind": "simt", "pipe": "uniform", "ops": 56}], "edges": []}],
      "grid": [{"template": "t", "count": 1}]}]})"), "test.json");
  EXPECT_EQ(g.kernels[0].templates[0].nodes[0].pipe, graph::SimtPipe::uniform);
  EXPECT_EQ(graph::to_json(g)["kernels"][0]["templates"][0]["nodes"][0]["pipe"], "uniform");
  EXPECT_EQ(simulate(g, toy_gpu()).count(), 56'000);  // one warp per sub-partition: 56 issue slots
}

}  // namespace
}  // namespace tgsim
