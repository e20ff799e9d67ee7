// GPC placement and the optional L2 request combining within a GPC (l2.gpc_combine_*), on the toy
// GPU (tests/sim/engine/test_machine.h): 1 cycle = 1000 ps, 1 TB/s = 1 byte per ps.
#include <gtest/gtest.h>

#include <vector>

#include "sim/engine/simulator.h"
#include "tests/sim/engine/test_machine.h"

namespace tgsim {
namespace {

using testing::load_node;
using testing::make_template;
using testing::one_kernel;
using testing::toy_gpu;
using testing::tracked_load_kernel;

// Two CTAs (one per SM) load the same 1 MB tile at t = 0. Without combining the first misses (L2 +
// HBM) and the second hits, sharing the 1 TB/s L2: both move 1 MB at 0.5 B/ps, 2 us, then 500 and
// 200 ns of latency: 2.5 us. With l2.gpc_combine_* and both SMs in one GPC, the second read rides on
// the first fetch (only its port carries it: 10 ns + 200 ns), and the first runs alone: 1.5 us.
// SMs in different GPCs, or a combining fraction of 1, change nothing.
TEST(Engine, GpcCombiningServesASecondReadOfTheTileWithTheFirstFetch) {
  const graph::TileGraph g = tracked_load_kernel(1'000'000, 2, 200 * 1024);
  const auto run = [&](const hw::GpuSpec& spec) { return engine::Simulator(g, spec).run(); };
  hw::GpuSpec spec = toy_gpu();
  EXPECT_EQ(run(spec).latency.count(), 2'500'000);
  spec.l2.gpc_combine_window = Duration{1'000'000};
  spec.l2.gpc_combine_fraction = 0.0;
  const auto combined = run(spec);
  EXPECT_EQ(combined.latency.count(), 1'500'000);
  EXPECT_EQ(combined.l2_hits, 1);
  spec.l2.gpc_combine_fraction = 1.0;  // every read still goes to L2
  EXPECT_EQ(run(spec).latency.count(), 2'500'000);
  spec.l2.gpc_combine_fraction = 0.0;
  spec.gpc.count = 2;
  spec.gpc.sms_per_gpc = {1, 1};
  EXPECT_EQ(run(spec).latency.count(), 2'500'000);
}

// l2.gpc_combine_plain = false: the two CTAs of the test above, a plain grid, no longer combine
// (2.5 us); launched as one cluster of two they do again (1.5 us).
TEST(Engine, GpcCombiningOfPlainGridsCanBeSwitchedOff) {
  graph::TileGraph g = tracked_load_kernel(1'000'000, 2, 200 * 1024);
  const auto run = [&](const hw::GpuSpec& spec) { return engine::Simulator(g, spec).run().latency.count(); };
  hw::GpuSpec spec = toy_gpu();
  spec.l2.gpc_combine_window = Duration{1'000'000};
  spec.l2.gpc_combine_fraction = 0.0;
  EXPECT_EQ(run(spec), 1'500'000);
  spec.l2.gpc_combine_plain = false;
  EXPECT_EQ(run(spec), 2'500'000);
  g.kernels[0].cta.cluster = {2, 1, 1};
  EXPECT_EQ(run(spec), 1'500'000);
}

// A TMA multicast read never combines: in clusters of two, every CTA reading the same tile by
// multicast moves the same L2 bytes with combining (fraction 0) as without; the same reads
// without multicast combine and move fewer.
TEST(Engine, GpcCombiningLeavesMulticastReadsAlone) {
  const auto l2_bytes = [](int multicast, bool combining) {
    graph::Node n = load_node("a", 1'000'000);
    n.tile.tensor = 0;
    n.multicast = multicast;
    graph::TileGraph g = one_kernel(make_template({n}, {}), 4, 200 * 1024);
    g.kernels[0].cta.cluster = {2, 1, 1};
    g.kernels[0].tensors.push_back(graph::Tensor{"A", Bytes{1'000'000}});
    hw::GpuSpec spec = toy_gpu(8);
    if (combining) {
      spec.l2.gpc_combine_window = Duration{10'000'000};
      spec.l2.gpc_combine_fraction = 0.0;
    }
    return engine::Simulator(g, spec).run().kernels[0].l2_bytes;
  };
  EXPECT_DOUBLE_EQ(l2_bytes(2, true), l2_bytes(2, false));
  EXPECT_LT(l2_bytes(1, true), l2_bytes(1, false));
}

// The combining fraction is a credit of the GPC, not of the tile: two CTAs of one GPC each read
// tiles T0 and T1 (1 MB each) at t = 0. With gpc_combine_fraction 0.5 the second reader of T0 adds
// 0.5 and is combined; the second reader of T1 brings the credit to 1 and goes to L2. So 3 of the 4
// reads reach L2 (3 MB), where a per-tile credit would have combined both second reads (2 MB).
TEST(Engine, GpcCombiningFractionIsTheGpcsCreditAcrossTiles) {
  graph::Node t0 = load_node("t0", 1'000'000);
  graph::Node t1 = load_node("t1", 1'000'000);
  t0.tile.tensor = 0;
  t1.tile.tensor = 0;
  t1.tile.coords[0].offset = 1;
  graph::TileGraph g = one_kernel(make_template({t0, t1}, {}), 2, 200 * 1024);
  g.kernels[0].tensors.push_back(graph::Tensor{"A", Bytes{2'000'000}});
  hw::GpuSpec spec = toy_gpu();
  spec.l2.gpc_combine_window = Duration{10'000'000};
  spec.l2.gpc_combine_fraction = 0.5;
  const auto r = engine::Simulator(g, spec).run();
  EXPECT_EQ(r.l2_misses + r.l2_hits, 4);  // every read looks the L2 up; combined ones move no bytes
  EXPECT_DOUBLE_EQ(r.kernels[0].l2_bytes, 3e6);
}

// SMs are numbered GPC by GPC, so the block scheduler's lowest free SM fills one GPC before the
// next, as the hardware places a plain grid (traces/h100/calibration_placement.csv). The H200's
// layout: 6 GPCs of 18 SMs, one of 16, one of 8.
TEST(Engine, SmsFillOneGpcBeforeTheNext) {
  hw::GpcSpec gpc;
  gpc.count = 8;
  gpc.sms_per_gpc = {18, 18, 18, 18, 18, 18, 16, 8};
  const std::vector<int> of = engine::gpc_of_each_sm(gpc, 132);
  ASSERT_EQ(of.size(), 132U);
  EXPECT_EQ(of[0], 0);
  EXPECT_EQ(of[17], 0);
  EXPECT_EQ(of[18], 1);
  EXPECT_EQ(of[123], 6);
  EXPECT_EQ(of[124], 7);
  EXPECT_EQ(of[131], 7);
  std::vector<int> per(8, 0);
  for (int g : of) ++per[static_cast<std::size_t>(g)];
  EXPECT_EQ(per, gpc.sms_per_gpc);
  EXPECT_EQ(engine::gpc_of_each_sm(hw::GpcSpec{}, 4), (std::vector<int>{0, 0, 0, 0}));
}

// Two clusters of two CTAs on two GPCs of four SMs each: the second cluster goes to the other GPC
// (fewer CTAs there), not beside the first. Seen through combining (fraction 0): every CTA reads
// the same 1 MB tile at t = 0, so one fetch per GPC reaches L2: 2 MB; in one GPC it would be 1 MB.
TEST(Engine, ConsecutiveClustersSpreadOverTheGpcs) {
  graph::Node n = load_node("a", 1'000'000);
  n.tile.tensor = 0;
  graph::TileGraph g = one_kernel(make_template({n}, {}), 4, 200 * 1024);
  g.kernels[0].cta.cluster = {2, 1, 1};
  g.kernels[0].tensors.push_back(graph::Tensor{"A", Bytes{1'000'000}});
  hw::GpuSpec spec = toy_gpu(8);
  spec.gpc.count = 2;
  spec.gpc.sms_per_gpc = {4, 4};
  spec.l2.gpc_combine_window = Duration{10'000'000};
  spec.l2.gpc_combine_fraction = 0.0;
  const auto r = engine::Simulator(g, spec).run();
  EXPECT_DOUBLE_EQ(r.kernels[0].l2_bytes, 2e6);
}

}  // namespace
}  // namespace tgsim
