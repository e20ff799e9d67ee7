// TMA loads whose rows are only 16 or 32 bytes aligned (node pitch_alignment; calib_tma pitch_*,
// docs/model.md), by hand on the toy GPU: 1 cycle = 1000 ps, 1 TB/s = 1 byte per ps, an L2 hit
// waits l2.hit_latency (200 cycles) after its transfer, a miss hbm.latency (500 cycles).
#include <gtest/gtest.h>

#include "sim/engine/simulator.h"
#include "sim/graph/validate.h"
#include "sim/units/error.h"
#include "tests/sim/engine/test_machine.h"

namespace tgsim {
namespace {

using testing::load_node;
using testing::make_template;
using testing::one_kernel;
using testing::toy_gpu;

Duration simulate(const graph::TileGraph& g, const hw::GpuSpec& spec) { return engine::Simulator(g, spec).run().latency; }

graph::Node pitched_load(int pitch_alignment, bool hit) {
  graph::Node n = load_node("ld", 1'000'000);
  n.pitch_alignment = pitch_alignment;
  n.tile.resident = hit;  // untracked and resident: an L2 hit
  return n;
}

hw::GpuSpec pitched_gpu(int sms = 2) {
  auto spec = toy_gpu(sms);
  spec.sm.l2_bandwidth_per_sm_pitch16 = hw::BytesPerCycle{100};  // 0.1 B/ps at 1 GHz
  spec.sm.l2_bandwidth_per_sm_pitch32 = hw::BytesPerCycle{250};
  return spec;
}

TEST(TmaPitch, MisalignedRowsComeFromL2AtTheirPort) {
  const auto run = [](int pitch, bool hit, const hw::GpuSpec& spec) {
    return simulate(one_kernel(make_template({pitched_load(pitch, hit)}, {})), spec).count();
  };
  const auto spec = pitched_gpu();
  EXPECT_EQ(run(128, true, spec), 1'000'000 + 200'000);   // aligned: the L2's 1 TB/s
  EXPECT_EQ(run(64, true, spec), 1'000'000 + 200'000);    // 64-byte rows: measured as aligned
  EXPECT_EQ(run(0, true, spec), 1'000'000 + 200'000);     // not known: aligned
  EXPECT_EQ(run(16, true, spec), 10'000'000 + 200'000);   // 1 MB at 0.1 B/ps
  EXPECT_EQ(run(32, true, spec), 4'000'000 + 200'000);    // at 0.25 B/ps
  EXPECT_EQ(run(16, false, spec), 1'000'000 + 500'000);   // misses: HBM-bound, measured no slower
  EXPECT_EQ(run(16, true, toy_gpu()), 1'000'000 + 200'000);  // not modelled
}

TEST(TmaPitch, TheL2SharesItsLimitOnThemAcrossSms) {
  // Two CTAs on two SMs, each 1 MB of 16-byte rows: alone each would take its 0.1 B/ps port; an
  // L2 limit of 0.1 TB/s on such reads halves that.
  auto spec = pitched_gpu(2);
  const auto g = one_kernel(make_template({pitched_load(16, true)}, {}), 2, 200 * 1024);
  EXPECT_EQ(simulate(g, spec).count(), 10'000'000 + 200'000);
  spec.l2.pitch16_bandwidth = BytesPerSecond{0.1e12};
  EXPECT_EQ(simulate(g, spec).count(), 20'000'000 + 200'000);
}

TEST(TmaPitch, ValidatedOnTmaLoads) {
  auto bad = one_kernel(make_template({pitched_load(8, true)}, {}));
  EXPECT_THROW(graph::validate_tile_graph(bad, "test"), InputError);
  auto cp = one_kernel(make_template({pitched_load(16, true)}, {}));
  cp.kernels[0].templates[0].nodes[0].engine = graph::MemEngine::cp_async;
  EXPECT_THROW(graph::validate_tile_graph(cp, "test"), InputError);
  EXPECT_NO_THROW(graph::validate_tile_graph(one_kernel(make_template({pitched_load(16, true)}, {})), "test"));
}

}  // namespace
}  // namespace tgsim
