// Instruction fetch (simt nodes on the `fetch` pipe, sm.instruction_fetch_cycles; calib_icache,
// docs/model.md), by hand on the toy GPU (1 cycle = 1000 ps; one warp per sub-partition).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/engine/simulator.h"
#include "sim/graph/graph_json.h"
#include "tests/sim/engine/test_machine.h"

namespace tgsim {
namespace {

using testing::make_template;
using testing::one_kernel;
using testing::toy_gpu;

graph::Node simt(std::string id, double ops, graph::SimtPipe pipe) {
  graph::Node n;
  n.id = std::move(id);
  n.kind = graph::NodeKind::simt;
  n.ops = ops;
  n.threads = 128;
  n.pipe = pipe;
  return n;
}

Duration simulate(const graph::TileGraph& g, const hw::GpuSpec& spec) { return engine::Simulator(g, spec).run().latency; }

hw::GpuSpec fetching_gpu(int sms = 2) {
  auto spec = toy_gpu(sms);
  spec.sm.instruction_fetch_cycles = Cycles{2};
  return spec;
}

TEST(InstructionFetch, HoldsTheFetchPathNotTheSimtPipe) {
  // 100 instructions fetched at 2 cycles each: 200 cycles, beside 300 cycles of FP32 work.
  const auto g = one_kernel(make_template({simt("fetch", 100, graph::SimtPipe::fetch),
                                           simt("fp32", 300, graph::SimtPipe::fp32)}, {}));
  EXPECT_EQ(simulate(g, fetching_gpu()).count(), 300'000);
  const auto alone = one_kernel(make_template({simt("fetch", 100, graph::SimtPipe::fetch)}, {}));
  EXPECT_EQ(simulate(alone, fetching_gpu()).count(), 200'000);
  EXPECT_EQ(simulate(alone, toy_gpu()).count(), 0);  // not modelled: free
}

TEST(InstructionFetch, StreamsOnOneSubPartitionShareIt) {
  // Two fetch nodes of one CTA, or of two CTAs on one SM (their warps on the same sub-partitions),
  // take turns: 400 cycles; two CTAs on two SMs do not.
  const auto one_cta = one_kernel(make_template({simt("a", 100, graph::SimtPipe::fetch),
                                                 simt("b", 100, graph::SimtPipe::fetch)}, {}));
  EXPECT_EQ(simulate(one_cta, fetching_gpu()).count(), 400'000);
  const auto two = one_kernel(make_template({simt("a", 100, graph::SimtPipe::fetch)}, {}), 2);
  EXPECT_EQ(simulate(two, fetching_gpu(1)).count(), 400'000);
  EXPECT_EQ(simulate(two, fetching_gpu(2)).count(), 200'000);
}

TEST(InstructionFetch, ReadsThePipeFromJson) {
  const auto g = graph::parse_tile_graph(nlohmann::json::parse(R"({
    "format": "tgsim-tile-graph/1", "name": "f",
    "kernels": [{"name": "k", "cta": {"threads": 128},
      "templates": [{"name": "t", "roles": [{"name": "w", "warps": 4}],
        "nodes": [{"id": "code", "kind": "simt", "pipe": "fetch", "ops": 100}], "edges": []}],
      "grid": [{"template": "t", "count": 1}]}]})"), "test.json");
  EXPECT_EQ(g.kernels[0].templates[0].nodes[0].pipe, graph::SimtPipe::fetch);
  EXPECT_EQ(simulate(g, fetching_gpu()).count(), 200'000);
}

}  // namespace
}  // namespace tgsim
