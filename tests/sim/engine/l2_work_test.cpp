// The L2 work of traffic between L2 and HBM (l2.fill_weight, l2.writeback_weight; optional, off
// in every preset; docs/model.md, the memory path), by hand on the toy GPU: 1 cycle = 1000 ps,
// 1 TB/s = 1 byte per ps, an L2 hit waits l2.hit_latency (200 cycles) after its transfer, a miss
// hbm.latency (500 cycles).
#include <gtest/gtest.h>

#include "sim/engine/flow_network.h"
#include "sim/engine/simulator.h"
#include "tests/sim/engine/test_machine.h"

namespace tgsim {
namespace {

using testing::load_node;
using testing::make_template;
using testing::one_kernel;
using testing::toy_gpu;
using testing::tracked_load_kernel;

TEST(FlowNetwork, AWeightedRouteTakesItsWeightOfTheLink) {
  // One 1 B/ps link; a flow crossing it with weight 2 beside one with weight 1: max-min fair, both
  // run at r with 2r + r = 1 B/ps, so 1000 B each take 3000 ps.
  engine::FlowNetwork f;
  const engine::FlowNetwork::LinkId link[] = {f.add_link("l2", BytesPerSecond{1e12})};
  const double twice[] = {2.0};
  const auto heavy = f.add_route(link, twice);
  const auto plain = f.add_route(link);
  EXPECT_NE(heavy, plain);
  EXPECT_EQ(f.add_route(link, twice), heavy);  // interned with its weights
  f.start(heavy, Bytes{1000}, TimePoint{0}, 1);
  f.start(plain, Bytes{1000}, TimePoint{0}, 2);
  EXPECT_EQ(f.next_completion().count(), 3000);
  f.settle(TimePoint{3000});
  EXPECT_NEAR(f.link_bytes(link[0]), 3000.0, 1e-6);  // the weighted flow counts twice
}

TEST(L2Work, FillWeightChargesAMissTheL2Twice) {
  // An untracked 1 MB load always misses; with HBM ten times faster the L2 binds. With
  // fill_weight 1 the L2 carries 2 B per byte: 2 us instead of 1 us. A hit is unchanged.
  auto spec = toy_gpu();
  spec.hbm.bandwidth = BytesPerSecond{10e12};
  const auto run = [](const hw::GpuSpec& s, bool hit) {
    graph::Node n = load_node("ld", 1'000'000);
    n.tile.resident = hit;
    return engine::Simulator(one_kernel(make_template({n}, {})), s).run().latency.count();
  };
  EXPECT_EQ(run(spec, false), 1'000'000 + 500'000);
  EXPECT_EQ(run(spec, true), 1'000'000 + 200'000);
  spec.l2.fill_weight = 1.0;
  EXPECT_EQ(run(spec, false), 2'000'000 + 500'000);
  EXPECT_EQ(run(spec, true), 1'000'000 + 200'000);
}

TEST(L2Work, WritebackWeightMakesTheEvictionShareTheL2) {
  // L2 starts full of dirty lines: a 1 MB miss evicts (writes back) 1 MB. HBM ten times faster
  // than the L2: without the weight the write-back takes HBM only and the load runs at the L2's
  // 1 B/ps; with writeback_weight 1 the two share the L2, 0.5 B/ps each, so the load takes 2 us.
  auto spec = toy_gpu();
  spec.hbm.bandwidth = BytesPerSecond{10e12};
  spec.l2.capacity = Bytes{1'000'000};
  const graph::TileGraph g = tracked_load_kernel(1'000'000);
  engine::SimOptions dirty;
  dirty.l2_starts_dirty = true;
  EXPECT_EQ(engine::Simulator(g, spec, dirty).run().latency.count(), 1'000'000 + 500'000);
  spec.l2.writeback_weight = 1.0;
  EXPECT_EQ(engine::Simulator(g, spec, dirty).run().latency.count(), 2'000'000 + 500'000);
  EXPECT_EQ(engine::Simulator(g, spec).run().latency.count(), 1'000'000 + 500'000);  // clean: nothing to write back
}

TEST(L2Work, AMissThatWaitsForItsWriteBackCarriesItsBytesFirst) {
  // The same dirty start with l2.miss_waits_for_writeback: the 1 MB write-back goes ahead of the
  // read in the miss's own transfer, so 2 MB cross the L2 at 1 B/ps: 2 us, then 500 ns. HBM
  // carries the same 2 MB either way; a clean start has nothing to wait for.
  auto spec = toy_gpu();
  spec.hbm.bandwidth = BytesPerSecond{10e12};
  spec.l2.capacity = Bytes{1'000'000};
  spec.l2.miss_waits_for_writeback = true;
  const graph::TileGraph g = tracked_load_kernel(1'000'000);
  engine::SimOptions dirty;
  dirty.l2_starts_dirty = true;
  const auto waited = engine::Simulator(g, spec, dirty).run();
  EXPECT_EQ(waited.latency.count(), 2'000'000 + 500'000);
  EXPECT_DOUBLE_EQ(waited.kernels[0].hbm_bytes, 2e6);
  EXPECT_EQ(engine::Simulator(g, spec).run().latency.count(), 1'000'000 + 500'000);
  spec.l2.miss_waits_for_writeback = false;
  const auto beside = engine::Simulator(g, spec, dirty).run();
  EXPECT_EQ(beside.latency.count(), 1'000'000 + 500'000);
  EXPECT_DOUBLE_EQ(beside.kernels[0].hbm_bytes, 2e6);
}

}  // namespace
}  // namespace tgsim
