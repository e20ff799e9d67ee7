// Instruction fetch (simt nodes on the `fetch` pipe, sm.instruction_fetch_cycles; calib_icache,
// docs/model.md), by hand on the toy GPU (1 cycle = 1000 ps; one warp per sub-partition; FP32
// work of `ops` per thread takes `ops` cycles).
#include <algorithm>

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

TEST(InstructionFetch, TakesIssueSlotsBeyondTheInstructionsOwn) {
  // 100 instructions at 2 cycles each, one of which the instruction's own node charges: the fetch
  // holds the issue timeline for 100 cycles, after or before 300 cycles of FP32 work: 400.
  const auto g = one_kernel(make_template({simt("fetch", 100, graph::SimtPipe::fetch),
                                           simt("fp32", 300, graph::SimtPipe::fp32)}, {}));
  EXPECT_EQ(simulate(g, fetching_gpu()).count(), 400'000);
  const auto alone = one_kernel(make_template({simt("fetch", 100, graph::SimtPipe::fetch)}, {}));
  EXPECT_EQ(simulate(alone, fetching_gpu()).count(), 100'000);
  EXPECT_EQ(simulate(alone, toy_gpu()).count(), 0);  // not modelled: free
  // The SFU issues beside the SIMT timeline: a fetch does not delay it.
  const auto ex2 = simulate(one_kernel(make_template({simt("ex2", 30, graph::SimtPipe::sfu)}, {})), fetching_gpu());
  const auto both = one_kernel(make_template({simt("fetch", 100, graph::SimtPipe::fetch),
                                              simt("ex2", 30, graph::SimtPipe::sfu)}, {}));
  EXPECT_EQ(simulate(both, fetching_gpu()), std::max(Duration{100'000}, ex2));
}

TEST(InstructionFetch, StreamsOnOneSubPartitionShareIt) {
  // Two fetch nodes of one CTA, or of two CTAs on one SM (their warps on the same sub-partitions),
  // take turns: 200 cycles; two CTAs on two SMs do not.
  const auto one_cta = one_kernel(make_template({simt("a", 100, graph::SimtPipe::fetch),
                                                 simt("b", 100, graph::SimtPipe::fetch)}, {}));
  EXPECT_EQ(simulate(one_cta, fetching_gpu()).count(), 200'000);
  const auto two = one_kernel(make_template({simt("a", 100, graph::SimtPipe::fetch)}, {}), 2);
  EXPECT_EQ(simulate(two, fetching_gpu(1)).count(), 200'000);
  EXPECT_EQ(simulate(two, fetching_gpu(2)).count(), 100'000);
}

TEST(InstructionFetch, ReproducesTheCalibration) {
  // calib_icache on the H200 spec's 2.1 cycles: straight-line code that issues one instruction per
  // cycle when cached runs at 2.1 cycles per instruction uncached, one warp per sub-partition
  // (measured 2.2-2.4), and at 4.2 each for two warps per sub-partition running different code
  // (measured 4.05-4.32).
  auto spec = toy_gpu(1);
  spec.sm.instruction_fetch_cycles = Cycles{2.1};
  const auto body = make_template({simt("ffma", 1000, graph::SimtPipe::fp32), simt("fetch", 1000, graph::SimtPipe::fetch)}, {});
  EXPECT_EQ(simulate(one_kernel(body), spec).count(), 2'100'000);
  EXPECT_EQ(simulate(one_kernel(body, 2), spec).count(), 4'200'000);
}

TEST(InstructionFetch, ReadsThePipeFromJson) {
  const auto g = graph::parse_tile_graph(nlohmann::json::parse(R"({
    "format": "tgsim-tile-graph/1", "name": "f",
    "kernels": [{"name": "k", "cta": {"threads": 128},
      "templates": [{"name": "t", "roles": [{"name": "w", "warps": 4}],
        "nodes": [{"id": "code", "kind": "simt", "pipe": "fetch", "ops": 100}], "edges": []}],
      "grid": [{"template": "t", "count": 1}]}]})"), "test.json");
  EXPECT_EQ(g.kernels[0].templates[0].nodes[0].pipe, graph::SimtPipe::fetch);
  EXPECT_EQ(simulate(g, fetching_gpu()).count(), 100'000);
}

}  // namespace
}  // namespace tgsim
