// Calibration checks of the tensor pipe against wgmma K steps measured on the H200 (calib_mma
// nsweep and tf32: traces/h200/calibration_wgmma_n.csv, calibration_wgmma_tf32.csv). A K step is
// 4 wgmma m64nNk16 bf16 or m64nNk8 tf32 on one accumulator, one commit group in flight
// (wait_group 1), one warpgroup per SM. The engine, with the H200 preset's rates and
// tensor.wgmma_overhead, must reproduce the measured cycles per step within 2% for every N
// (8 ... 256 for bf16, 64 ... 256 for tf32): the narrow shapes pay the per-instruction overhead,
// the wide ones run at the rate, and tf32 costs what bf16 costs at the same N.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "sim/engine/simulate.h"
#include "sim/hw/spec_json.h"
#include "tests/sim/engine/test_machine.h"

namespace tgsim {
namespace {

// One CTA whose warpgroup issues `steps` K steps of 4 wgmma m64nNk(K) one after another.
graph::TileGraph k_steps(int n, int k, DType dtype, int steps) {
  graph::CtaTemplate t;
  t.name = "ksteps";
  t.roles = {graph::Role{"consumer", 0, 4}};
  for (int i = 0; i < steps; ++i) {
    graph::Node m;
    m.id = "mma" + std::to_string(i);
    m.kind = graph::NodeKind::mma;
    m.inst = TensorInst::wgmma;
    m.dtype = dtype;
    m.shape = {64, n, k};
    m.count = 4;
    t.nodes.push_back(std::move(m));
    if (i > 0) t.edges.push_back({i - 1, i, graph::EdgeKind::data});
  }
  return testing::one_kernel(std::move(t), 1, 140 * 1024);
}

// Cycles per K step at the preset's boost clock: the difference of two run lengths, so that the
// CTA's start-up and the last hand-off cancel.
double cycles_per_step(int n, int k, DType dtype, const hw::GpuSpec& spec) {
  engine::SimOptions o;
  o.critical_path = false;
  o.kernel_clock_hz = {spec.clock.boost.value};
  const auto span = [&](int steps) {
    const auto r = engine::simulate(k_steps(n, k, dtype, steps), spec, o);
    return to_seconds(r.kernels[0].end - r.kernels[0].start);
  };
  return (span(200) - span(100)) / 100.0 * spec.clock.boost.value;
}

void check_rows(const std::filesystem::path& csv, const char* dtype_name, int k, DType dtype, int expected_rows) {
  const std::filesystem::path root(TGSIM_SOURCE_DIR);
  const auto spec = hw::load_gpu_preset("h200", root / "configs");
  std::ifstream in(root / csv);
  ASSERT_TRUE(in) << csv;
  const std::regex name(std::string("wgmma_") + dtype_name + "_m64n([0-9]+)k[0-9]+_g4_wg1_wait1");
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    std::smatch m;
    const std::string q = line.substr(0, line.find(','));
    if (!std::regex_match(q, m, name)) continue;
    const int n = std::stoi(m[1].str());
    const std::size_t a = line.find(',') + 1;
    const double measured = std::stod(line.substr(a, line.find(',', a) - a));
    const double model = cycles_per_step(n, k, dtype, spec);
    EXPECT_NEAR(model / measured, 1.0, 0.02) << q << ": model " << model << " clk per step, measured " << measured;
    ++checked;
  }
  EXPECT_EQ(checked, expected_rows) << csv;
}

TEST(WgmmaCalibration, Bf16KStepsMatchTheirMeasurementAtEveryN) {
  check_rows("traces/h200/calibration_wgmma_n.csv", "bf16", 16, DType::bf16, 8);
}

TEST(WgmmaCalibration, Tf32KStepsMatchTheirMeasurementAtEveryN) {
  check_rows("traces/h200/calibration_wgmma_tf32.csv", "tf32", 8, DType::tf32, 3);
}

}  // namespace
}  // namespace tgsim
