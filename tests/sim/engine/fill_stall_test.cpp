// cp.async fills stall the SM's compute pipes (sm.cp_async_fill_stall_cycles per warp instruction;
// calib_fill, docs/model.md), by hand on the toy GPU (1 cycle = 1000 ps; 8 x m64n256k16 = 1024
// cycles of tensor work).
#include <gtest/gtest.h>

#include "sim/engine/simulator.h"
#include "tests/sim/engine/test_machine.h"

namespace tgsim {
namespace {

using testing::toy_gpu;
using testing::wgmma_node;

// Warpgroup 0 runs two wgmma nodes back to back (0-1024, then 1024-2048); warpgroup 1 copies
// `bytes` with cp.async (`access` bytes per thread), which lands during the first one. With
// `gated`, the first wgmma waits for the copy instead (its pipes are idle while the data comes).
graph::TileGraph fill_graph(std::int64_t bytes, int access, bool gated) {
  graph::CtaTemplate t = testing::two_warpgroups();
  t.nodes = {wgmma_node("mma0", 8), wgmma_node("mma1", 8), testing::cp_async_node("copy", bytes, access, 1)};
  t.edges = {{0, 1, graph::EdgeKind::order}};
  if (gated) t.edges.push_back({2, 0});
  return testing::one_kernel(std::move(t), 1, 64 * 1024, 256);
}

std::int64_t latency_ps(const graph::TileGraph& g, const hw::GpuSpec& spec) {
  return engine::Simulator(g, spec).run().latency.count();
}

TEST(FillStall, NotModelledTheCopyHidesBehindTheWgmma) {
  EXPECT_EQ(latency_ps(fill_graph(16384, 16, false), toy_gpu()), 2'048'000);
}

TEST(FillStall, SixteenByteCopiesStallTheTensorPipePerWarpInstruction) {
  auto spec = toy_gpu();
  spec.sm.cp_async_fill_stall_cycles = Cycles{3.6};
  // 16 KiB in 16-byte copies: 32 warp instructions x 3.6 = 115.2 cycles, while mma0 runs: mma1
  // starts at 1139.2 instead of 1024.
  EXPECT_EQ(latency_ps(fill_graph(16384, 16, false), spec), 2'163'200);
}

TEST(FillStall, NarrowCopiesStallPerInstructionNotPerByte) {
  auto spec = toy_gpu();
  spec.sm.cp_async_fill_stall_cycles = Cycles{3.6};
  // The same 16 KiB in 4-byte copies: 128 warp instructions x 3.6 = 460.8 cycles.
  EXPECT_EQ(latency_ps(fill_graph(16384, 4, false), spec), 2'508'800);
}

TEST(FillStall, NarrowCopiesIntoSwizzledRowsTakeTheirOwnStall) {
  auto spec = toy_gpu();
  spec.sm.cp_async_fill_stall_cycles = Cycles{3.6};
  spec.sm.cp_async_narrow_fill_stall_cycles = Cycles{5.36};
  // 128 warp instructions of 4-byte copies x 5.36 = 686.08 cycles; 16-byte copies keep 3.6.
  EXPECT_EQ(latency_ps(fill_graph(16384, 4, false), spec), 2'734'080);
  EXPECT_EQ(latency_ps(fill_graph(16384, 16, false), spec), 2'163'200);
}

TEST(FillStall, AFillIntoIdlePipesCostsNothing) {
  auto spec = toy_gpu();
  const std::int64_t without = latency_ps(fill_graph(16384, 16, true), spec);
  spec.sm.cp_async_fill_stall_cycles = Cycles{3.6};
  EXPECT_EQ(latency_ps(fill_graph(16384, 16, true), spec), without);
  EXPECT_GT(without, 2'048'000);  // the wgmma waited for the copy
}

// The stall comes when the data lands, after the HBM latency, not when its transfer ends:
// 16 KiB from HBM leave it by cycle 16.4 and land at 516.4 (hbm.latency 500), while mma0 runs
// 100-1124 (warpgroup 0 starts after a 100-cycle delay) and pushes mma1 back by 115.2 cycles.
// (Charged at the transfer's end, the rule before 2026-12-03, it fell before mma0 and only
// delayed its start to 115.2: 2163.2 cycles.)
TEST(FillStall, TheStallComesWhenTheDataLandsNotWhenItsTransferEnds) {
  auto spec = toy_gpu();
  spec.sm.cp_async_fill_stall_cycles = Cycles{3.6};
  graph::CtaTemplate t = testing::two_warpgroups();
  t.nodes = {testing::delay_node("wait", 100), wgmma_node("mma0", 8), wgmma_node("mma1", 8),
             testing::cp_async_node("copy", 16384, 16, 1)};
  t.edges = {{0, 1}, {1, 2, graph::EdgeKind::order}};
  EXPECT_EQ(latency_ps(testing::one_kernel(std::move(t), 1, 64 * 1024, 256), spec), 2'263'200);
}

}  // namespace
}  // namespace tgsim
