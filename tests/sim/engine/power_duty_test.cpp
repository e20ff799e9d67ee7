// The power duty by hand (KernelStat::power_duty; docs/model.md "Power duty"): tensor duty with
// mma.sync weighted by clock.power_weight_mma_sync, plus clock.power_weight_simt x FP32/INT SIMT
// duty, plus clock.power_per_hbm_tbps x HBM TB/s / clock. Off in every preset; what the power
// clock model sees when a spec sets them.
#include <gtest/gtest.h>

#include "sim/engine/simulate.h"
#include "sim/engine/simulator.h"
#include "test_machine.h"

namespace tgsim {
namespace {

using testing::make_template;
using testing::one_kernel;
using testing::toy_gpu;

// Warps 0-3: 100 mma.sync m16n8k16 each (800 cycles of every sub-partition's tensor core); warps
// 4-7: `ops` FP32 instructions per thread after them (one cycle each per sub-partition), then a
// TMA load of `bytes` (HBM: the L2 starts cold). One CTA on the toy GPU's 2 SMs, at 1 GHz.
graph::TileGraph mma_simt_load(double ops, std::int64_t bytes) {
  graph::CtaTemplate t = testing::two_warpgroups("mma_warps", "simt_warps");
  t.nodes = {testing::mma_sync_node("mma", 100), testing::simt_node("softmax", ops, 1)};
  if (bytes > 0) {
    graph::Node ld = testing::load_node("ld", bytes);
    ld.role = 1;
    t.nodes.push_back(ld);
    t.edges = {{1, 2}};
  }
  return one_kernel(std::move(t), 1, 1024, 256);
}

hw::GpuSpec with_terms(double w, double s, double mhz_per_tbps) {
  hw::GpuSpec spec = toy_gpu();
  spec.clock.power_weight_mma_sync = w;
  spec.clock.power_weight_simt = s;
  spec.clock.power_per_hbm_tbps = Hertz{mhz_per_tbps * 1e6};
  return spec;
}

TEST(PowerDuty, WithoutTermsItIsTheTensorDuty) {
  const auto r = engine::Simulator(mma_simt_load(300, 1 << 20), toy_gpu()).run();
  ASSERT_EQ(r.kernels.size(), 1u);
  const auto& k = r.kernels[0];
  EXPECT_GT(k.tensor_utilisation, 0);
  EXPECT_DOUBLE_EQ(k.power_duty, k.tensor_utilisation);
}

TEST(PowerDuty, MmaSyncAndSimtByHand) {
  // The FP32 work waits for the MMAs (tensor.mma_sync_issue_fraction 1): 800 + 300 = 1100 cycles.
  // On 2 SMs: tensor duty 800 / 2200, SIMT duty 300 / 2200.
  const auto r = engine::Simulator(mma_simt_load(300, 0), with_terms(0.8, 1.5, 0)).run();
  const auto& k = r.kernels[0];
  EXPECT_EQ((k.end - k.start).count(), 1'100'000);
  EXPECT_DOUBLE_EQ(k.tensor_utilisation, 800.0 / 2200.0);
  EXPECT_DOUBLE_EQ(k.simt_utilisation, 300.0 / 2200.0);
  EXPECT_DOUBLE_EQ(k.hbm_bytes, 0.0);
  EXPECT_NEAR(k.power_duty, 0.8 * 800.0 / 2200.0 + 1.5 * 300.0 / 2200.0, 1e-12);
}

TEST(PowerDuty, HbmTermIsTeraBytesPerSecondOverTheClock) {
  const std::int64_t bytes = 1 << 20;
  const auto r = engine::Simulator(mma_simt_load(300, bytes), with_terms(1.0, 0.0, 100.0)).run();
  const auto& k = r.kernels[0];
  EXPECT_DOUBLE_EQ(k.hbm_bytes, static_cast<double>(bytes));  // a cold load: all of it from HBM
  const double seconds = to_seconds(k.end - k.start);
  const double tbps = static_cast<double>(bytes) / seconds / 1e12;
  // 100 MHz of clock x duty per TB/s at 1 GHz: 0.1 duty per TB/s.
  EXPECT_NEAR(k.power_duty, k.tensor_utilisation + 0.1 * tbps, 1e-12);
}

TEST(PowerDuty, SharedMemoryL2AndClockTermsByHand) {
  // The same kernel with a 4 KiB shared-memory node on the SIMT warps (32 cycles at 128 B/clk)
  // after the load: its pipe time, the load's L2 bytes and a constant.
  const std::int64_t bytes = 1 << 20;
  graph::TileGraph g = mma_simt_load(300, bytes);
  graph::Node st = testing::smem_node("st", 4096);
  st.role = 1;
  g.kernels[0].templates[0].nodes.push_back(st);
  g.kernels[0].templates[0].edges.push_back({2, 3});
  hw::GpuSpec spec = with_terms(1.0, 0.0, 0.0);
  spec.clock.power_weight_smem = 0.5;
  spec.clock.power_weight_l2 = 0.25;
  spec.clock.power_weight_clock = 0.1;
  const auto r = engine::Simulator(g, spec).run();
  const auto& k = r.kernels[0];
  const double ps = static_cast<double>((k.end - k.start).count());
  EXPECT_DOUBLE_EQ(k.smem_utilisation, 32'000.0 / (ps * 2));
  EXPECT_DOUBLE_EQ(k.l2_bytes, static_cast<double>(bytes));
  const double l2_duty = static_cast<double>(bytes) / (2 * ps * 1e-12 * 1e9 * 64.0);  // 2 SMs at 1 GHz
  EXPECT_NEAR(k.power_duty, k.tensor_utilisation + 0.5 * k.smem_utilisation + 0.25 * l2_duty + 0.1, 1e-12);
}

TEST(PowerDuty, TermsNeverRaiseThePowerModelsClock) {
  // The same kernel under a power limit: each term adds to the duty the limit sees, so the clock
  // may only fall, and with all terms off nothing moves.
  hw::GpuSpec base = toy_gpu();
  base.clock.boost = Hertz{2e9};
  base.clock.model = "power";
  base.clock.sustained_tensor = Hertz{0.3e9};  // the tensor duty alone (0.11 at 2 GHz) stays below it
  const auto clock = [](const hw::GpuSpec& spec) {
    return engine::simulate(mma_simt_load(300, 1 << 20), spec, engine::SimOptions{}).kernels[0].sm_clock_mhz;
  };
  const double plain = clock(base);
  hw::GpuSpec same = base;
  same.clock.power_weight_mma_sync = 1.0;
  EXPECT_DOUBLE_EQ(clock(same), plain);
  double previous = plain;
  for (double s : {0.5, 1.0, 2.0}) {
    hw::GpuSpec spec = base;
    spec.clock.power_weight_simt = s;
    spec.clock.power_per_hbm_tbps = Hertz{s * 100e6};
    const double f = clock(spec);
    EXPECT_LE(f, previous + 1e-6) << s;
    previous = f;
  }
  EXPECT_LT(previous, plain * 0.9);  // the terms do bind here
}

}  // namespace
}  // namespace tgsim
