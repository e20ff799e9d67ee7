// How much of a sub-partition's issue (SIMT) timeline an mma.sync takes
// (tensor.mma_sync_issue_fraction; docs/model.md), by hand on the toy GPU (1 cycle = 1000 ps;
// mma.sync bf16 at 2048 FLOP/clk/SM: one m16n8k16 per warp is 8 cycles of its sub-partition).
#include <gtest/gtest.h>

#include "sim/engine/simulator.h"
#include "tests/sim/engine/test_machine.h"

namespace tgsim {
namespace {

using testing::delay_node;
using testing::one_kernel;
using testing::toy_gpu;

// Warps 0-3 issue 100 mma.sync each at 0 (800 cycles of every sub-partition's tensor core);
// warps 4-7 start `ops` FP32 instructions per thread at cycle 4 (one cycle each per sub-partition).
graph::TileGraph mma_beside_simt(double ops) {
  graph::CtaTemplate t = testing::two_warpgroups("mma_warps", "simt_warps");
  graph::Node wait = delay_node("wait", 4);
  wait.role = 1;
  t.nodes = {testing::mma_sync_node("mma", 100), wait, testing::simt_node("softmax", ops, 1)};
  t.edges = {{1, 2}};
  return one_kernel(std::move(t), 1, 1024, 256);
}

Duration simulate(const graph::TileGraph& g, const hw::GpuSpec& spec) { return engine::Simulator(g, spec).run().latency; }

TEST(MmaSyncIssue, WholeFractionMakesTheSimtWorkWaitForTheMma) {
  // Hopper (1): the FP32 work waits until the MMAs end at 800, then takes its 300 cycles.
  EXPECT_EQ(simulate(mma_beside_simt(300), toy_gpu()).count(), 1'100'000);
}

TEST(MmaSyncIssue, ShareOfTheTimeOnlyPushesTheSimtWorkBack) {
  auto spec = toy_gpu();
  spec.tensor.mma_sync_issue_fraction = 0.125;  // one issue slot per 8-cycle m16n8k16
  // The MMAs take 100 of the issue timeline's cycles: the FP32 work runs 100-400, inside them.
  EXPECT_EQ(simulate(mma_beside_simt(300), spec).count(), 800'000);
  // 900 cycles of FP32 work run 100-1000 and outlast the MMAs.
  EXPECT_EQ(simulate(mma_beside_simt(900), spec).count(), 1'000'000);
}

TEST(MmaSyncIssue, NeverFasterThanTheMmasOrTheSimtWorkAlone) {
  for (const double f : {0.125, 0.5, 1.0}) {
    auto spec = toy_gpu();
    spec.tensor.mma_sync_issue_fraction = f;
    for (const double ops : {100.0, 700.0, 2000.0}) {
      const auto t = simulate(mma_beside_simt(ops), spec).count();
      EXPECT_GE(t, 800'000) << f << " " << ops;
      EXPECT_GE(t, static_cast<std::int64_t>((4 + ops) * 1000)) << f << " " << ops;
      EXPECT_LE(t, static_cast<std::int64_t>((800 + ops) * 1000 + 4000)) << f << " " << ops;
    }
  }
}

}  // namespace
}  // namespace tgsim
