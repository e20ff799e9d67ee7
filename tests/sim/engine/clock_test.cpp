// The power clock model by hand: f = min(ceiling, K_short / d, K_sustained / D), the ceiling being
// boost, or clock.tensor_max for a kernel with tensor work (clock.tensor_max_wgmma - per_duty x d for
// one that issues wgmma).
#include <gtest/gtest.h>

#include "sim/engine/clock/clock_model.h"
#include "sim/engine/simulate.h"
#include "test_machine.h"

namespace tgsim {
namespace {

using testing::make_template;
using testing::one_kernel;
using testing::toy_gpu;
using engine::KernelActivity;

hw::GpuSpec power_gpu() {
  hw::GpuSpec s = toy_gpu();
  s.clock.boost = Hertz{2e9};
  s.clock.model = "power";
  s.clock.sustained_tensor = Hertz{1.2e9};
  s.clock.short_term_tensor = Hertz{1.5e9};
  return s;
}

TEST(PowerClock, KernelAloneFallsToTheSustainedProduct) {
  const auto m = engine::make_clock_model(power_gpu());
  EXPECT_DOUBLE_EQ(m->sm_clock({0.8, false, -1}).value, 1.5e9);   // 1.2 GHz / 0.8
  EXPECT_DOUBLE_EQ(m->sm_clock({0.8, false, 0.8}).value, 1.5e9);  // window = the kernel itself
  EXPECT_DOUBLE_EQ(m->sm_clock({0.4, false, 0.4}).value, 2e9);    // 3 GHz capped at boost
  EXPECT_DOUBLE_EQ(m->sm_clock({0.0, false, 0.5}).value, 2e9);    // no tensor work: boost
}

TEST(PowerClock, LighterWindowAllowsUpToTheShortTermProduct) {
  const auto m = engine::make_clock_model(power_gpu());
  // Run average 0.6 against the kernel's 0.96: sustained allows 1.2/0.6 = 2 GHz, short-term
  // 1.5/0.96 = 1.5625 GHz: the fast limit binds.
  EXPECT_DOUBLE_EQ(m->sm_clock({0.96, false, 0.6}).value, 1.5e9 / 0.96);
  // Run average 0.9: 1.2/0.9 = 1.333 GHz binds.
  EXPECT_NEAR(m->sm_clock({0.96, false, 0.9}).value, 1.2e9 / 0.9, 1.0);
  // A light kernel in a dense run is held by the run's average: 1.2 / 0.9, not 1.2 / 0.3.
  EXPECT_NEAR(m->sm_clock({0.3, false, 0.9}).value, 1.2e9 / 0.9, 1.0);
  // Never below the sustained product, never above the short-term one.
  for (double D : {0.05, 0.2, 0.5, 0.9}) {
    const double p = m->power_product({0.9, false, D}).value;
    EXPECT_GE(p, 1.2e9 * std::min(1.0, 0.9 / D) - 1);
    EXPECT_LE(p, 1.5e9 + 1);
  }
}

TEST(PowerClock, NoShortTermValueKeepsTheOldModel) {
  hw::GpuSpec s = power_gpu();
  s.clock.short_term_tensor = Hertz{0};
  const auto m = engine::make_clock_model(s);
  EXPECT_DOUBLE_EQ(m->sm_clock({0.96, false, 0.6}).value, 1.2e9 / 0.96);
}

// One dense wgmma loop (20,000 m64n256k16 bf16) in a 2-CTA kernel.
graph::TileGraph dense_wgmma_graph() { return one_kernel(make_template({testing::wgmma_node("mma", 20000)}, {}), 2); }

TEST(PowerClock, RepeatGapNeverSlowsAndCanSpeedUp) {
  // One dense wgmma loop: alone it runs at K_sustained / duty; with idle between repetitions the
  // window's duty falls and the fast limit lets it run faster.
  auto g = dense_wgmma_graph();
  const hw::GpuSpec spec = power_gpu();
  engine::SimOptions alone;
  engine::SimOptions gap;
  gap.repeat_gap = from_us(1000);
  const double t_alone = to_us(engine::simulate(g, spec, alone).latency);
  const double t_gap = to_us(engine::simulate(g, spec, gap).latency);
  EXPECT_LT(t_gap, t_alone * 0.95);
  EXPECT_GT(t_gap, t_alone * 1.2 / 1.5 * 0.99);  // at most the short/sustained ratio faster
}

hw::GpuSpec onset_gpu() {
  hw::GpuSpec s = power_gpu();
  s.clock.sustained_onset = from_seconds(0.060);  // budget (1.5 - 1.2) GHz x 60 ms
  return s;
}

KernelActivity from_rest(double d, double D, double t) { return engine::KernelActivity{d, false, D, t}; }

TEST(PowerClock, FromRestTheSlowLimitWaitsForItsOnset) {
  const auto m = engine::make_clock_model(onset_gpu());
  // A dense kernel (d = D = 0.96) runs at the fast limit, 1.5 / 0.96 GHz, so its window product is
  // 1.5 GHz and it spends the budget at 1.5 - 1.2 = 0.3 GHz: it engages exactly at the onset.
  EXPECT_DOUBLE_EQ(m->sm_clock(from_rest(0.96, 0.96, 0.059)).value, 1.5e9 / 0.96);
  EXPECT_DOUBLE_EQ(m->sm_clock(from_rest(0.96, 0.96, 0.061)).value, 1.2e9 / 0.96);
  // Steady state (time < 0) is the old rule whatever the onset.
  EXPECT_DOUBLE_EQ(m->sm_clock(from_rest(0.96, 0.96, -1)).value, 1.2e9 / 0.96);
  // A lighter window (D = 0.7 beside d = 0.96): product 1.5 / 0.96 x 0.7 = 1.09375 GHz, under the
  // sustained 1.2 GHz: the slow limit never engages.
  EXPECT_DOUBLE_EQ(m->sm_clock(from_rest(0.96, 0.7, 10.0)).value, 1.5e9 / 0.96);
  // D = 0.9: product 1.40625 GHz, excess 0.20625 GHz: engages after 0.3 x 60 ms / 0.20625 = 87.3 ms.
  EXPECT_DOUBLE_EQ(m->sm_clock(from_rest(0.96, 0.9, 0.087)).value, 1.5e9 / 0.96);
  EXPECT_NEAR(m->sm_clock(from_rest(0.96, 0.9, 0.088)).value, 1.2e9 / 0.9, 1.0);
}

TEST(PowerClock, NoOnsetMeansSteadyStateFromTheStart) {
  const auto m = engine::make_clock_model(power_gpu());  // sustained_onset 0
  EXPECT_DOUBLE_EQ(m->sm_clock(from_rest(0.96, 0.96, 0.001)).value, 1.2e9 / 0.96);
}

TEST(PowerClock, RunFromRestIsNeverSlowerThanSteadyState) {
  auto g = dense_wgmma_graph();
  const hw::GpuSpec spec = onset_gpu();
  engine::SimOptions steady;
  const double t_steady = to_us(engine::simulate(g, spec, steady).latency);
  double previous = 0;
  for (int reps : {1, 5, 50, 100000}) {  // more repetitions: the median one runs later, never faster
    engine::SimOptions rest;
    rest.from_rest_reps = reps;
    const double t = to_us(engine::simulate(g, spec, rest).latency);
    EXPECT_LE(t, t_steady * (1 + 1e-9)) << reps;
    EXPECT_GE(t, previous * (1 - 1e-9)) << reps;
    previous = t;
  }
  EXPECT_NEAR(previous, t_steady, t_steady * 1e-6);  // a very long run from rest is steady state
}

hw::GpuSpec capped_gpu() {
  hw::GpuSpec s = power_gpu();
  s.clock.tensor_max = Hertz{1.8e9};
  return s;
}

TEST(PowerClock, TensorWorkRunsAtMostAtTensorMax) {
  const auto m = engine::make_clock_model(capped_gpu());
  EXPECT_DOUBLE_EQ(m->sm_clock({0.4, false, 0.4}).value, 1.8e9);   // 3 GHz allowed, capped at 1.8
  EXPECT_DOUBLE_EQ(m->sm_clock({0.01, false, 0.01}).value, 1.8e9);  // any tensor work at all
  EXPECT_DOUBLE_EQ(m->sm_clock({0.0, false, 0.5}).value, 2e9);      // none: boost
  EXPECT_DOUBLE_EQ(m->sm_clock({0.8, false, -1}).value, 1.5e9);     // the power limit binds below
  EXPECT_DOUBLE_EQ(m->ceiling({0.4, false, 0.4}).value, 1.8e9);
  EXPECT_DOUBLE_EQ(m->ceiling({0.0, false, 0.4}).value, 2e9);
  // A cap above boost (a sweep lowering boost) never binds.
  hw::GpuSpec low = capped_gpu();
  low.clock.boost = Hertz{1.6e9};
  EXPECT_DOUBLE_EQ(engine::make_clock_model(low)->sm_clock({0.4, false, 0.4}).value, 1.6e9);
}

TEST(PowerClock, AtTheCapThePowerLimitStillHolds) {
  // A wgmma loop beside a load that takes a fixed time: at a lower clock the MMAs take longer and
  // the duty rises, so a kernel light enough at boost can meet the power limit at the cap. Over
  // the mixes, the solved clock never exceeds the cap and its clock x duty never exceeds K.
  const hw::GpuSpec spec = capped_gpu();
  int at_cap = 0, below = 0;
  for (std::int64_t mmas : {20, 100, 400, 600, 650, 700, 800, 4000}) {
    auto g = one_kernel(make_template({testing::load_node("ld", 32 << 20), testing::wgmma_node("mma", mmas)}, {}), 2);
    const engine::Result r = engine::simulate(g, spec, engine::SimOptions{});
    ASSERT_EQ(r.kernels.size(), 1u);
    const auto& k = r.kernels[0];
    EXPECT_LE(k.sm_clock_mhz, 1800.0 + 1e-6) << mmas;
    // Within 5%: near 650 MMAs the duty jumps as the loop overtakes the load and the solver stops
    // after its 6 replays 2.8% above K (the same without the cap: 1733 MHz x 0.712).
    EXPECT_LE(k.sm_clock_mhz * 1e6 * k.tensor_utilisation, 1.2e9 * 1.05) << mmas;
    at_cap += k.sm_clock_mhz > 1799.0;
    below += k.sm_clock_mhz < 1790.0;
  }
  EXPECT_GT(at_cap, 0);  // the mixes cover both sides: capped, and held by the power limit
  EXPECT_GT(below, 0);
}

hw::GpuSpec wgmma_capped_gpu() {
  hw::GpuSpec s = capped_gpu();
  s.clock.tensor_max_wgmma = Hertz{1.79e9};
  s.clock.tensor_max_wgmma_per_duty = Hertz{0.08e9};
  return s;
}

KernelActivity wgmma_activity(double duty) {
  KernelActivity a{duty, false, duty};
  a.wgmma = true;
  return a;
}

TEST(PowerClock, WgmmaCeilingFallsWithTheTensorDuty) {
  const auto m = engine::make_clock_model(wgmma_capped_gpu());
  EXPECT_DOUBLE_EQ(m->ceiling(wgmma_activity(0.25)).value, 1.77e9);  // 1.79 - 0.08 x 0.25 GHz
  EXPECT_DOUBLE_EQ(m->ceiling(wgmma_activity(0.5)).value, 1.75e9);
  EXPECT_DOUBLE_EQ(m->sm_clock(wgmma_activity(0.5)).value, 1.75e9);   // power allows 3 GHz
  // Busier, as a whole run: the sustained power limit binds below the ceiling (1.2 / 0.9 = 1.333
  // GHz < 1.718).
  EXPECT_DOUBLE_EQ(m->sm_clock(wgmma_activity(0.9)).value, 1.2e9 / 0.9);
  // mma.sync kernels keep clock.tensor_max; kernels without tensor work boost.
  EXPECT_DOUBLE_EQ(m->ceiling({0.5, false, 0.5}).value, 1.8e9);
  KernelActivity none = wgmma_activity(0.0);
  EXPECT_DOUBLE_EQ(m->ceiling(none).value, 2e9);
  // Without the wgmma fields a wgmma kernel takes clock.tensor_max, as before.
  EXPECT_DOUBLE_EQ(engine::make_clock_model(capped_gpu())->ceiling(wgmma_activity(0.5)).value, 1.8e9);
  // A sweep that lowers boost below the line: boost.
  hw::GpuSpec low = wgmma_capped_gpu();
  low.clock.boost = Hertz{1.6e9};
  EXPECT_DOUBLE_EQ(engine::make_clock_model(low)->ceiling(wgmma_activity(0.5)).value, 1.6e9);
}

TEST(PowerClock, SimulatedWgmmaKernelRunsAtItsDutysCeiling) {
  // A wgmma loop beside a load, more MMAs each time: the kernel's clock is the line at the duty
  // it reaches, and a busier kernel never runs at a higher clock.
  hw::GpuSpec spec = wgmma_capped_gpu();
  spec.clock.short_term_tensor = Hertz{3e9};  // no power limit: the ceiling alone
  spec.clock.sustained_tensor = Hertz{3e9};
  spec.clock.boost = Hertz{3.2e9};
  double previous_clock = 1e300, previous_duty = 0;
  for (std::int64_t mmas : {20, 200, 600, 4000}) {
    auto g = one_kernel(make_template({testing::load_node("ld", 32 << 20), testing::wgmma_node("mma", mmas)}, {}), 2);
    const engine::Result r = engine::simulate(g, spec, engine::SimOptions{});
    ASSERT_EQ(r.kernels.size(), 1u);
    const auto& k = r.kernels[0];
    const double line = 1790.0 - 80.0 * std::min(1.0, k.tensor_utilisation);
    // The clock follows the line at the duty pass 1 measured; the replay at the lower clock
    // raises the duty a little (the load takes fixed time), so allow 0.5%.
    EXPECT_NEAR(k.sm_clock_mhz, line, 0.005 * line) << mmas;
    EXPECT_LE(k.sm_clock_mhz, previous_clock + 1e-6) << mmas;
    EXPECT_GE(k.tensor_utilisation, previous_duty - 1e-9) << mmas;
    previous_clock = k.sm_clock_mhz;
    previous_duty = k.tensor_utilisation;
  }
  EXPECT_GT(previous_duty, 0.9);  // the loop covers the busy end of the line
}

}  // namespace
}  // namespace tgsim
