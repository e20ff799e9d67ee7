#include "sim/hw/system_json.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "sim/hw/spec_json.h"
#include "sim/units/error.h"

namespace tgsim::hw {
namespace {

namespace fs = std::filesystem;

const fs::path kConfigDir = fs::path(TGSIM_SOURCE_DIR) / "configs";
const std::vector<std::string> kSystems{"2xh100", "2xh200", "4xh100", "4xh200", "8xa100", "8xb200", "8xh100", "8xh200"};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

nlohmann::json preset_json(const std::string& name) {
  std::ifstream in(kConfigDir / "systems" / (name + ".json"));
  return nlohmann::json::parse(in);
}

// Every leaf that is a number or unit string sits in a {"value", "source"} object.
void expect_sources(const nlohmann::json& j, const std::string& where) {
  for (const auto& [key, v] : j.items()) {
    if (key == "name" || key == "full_name" || key == "notes" || key == "gpu_count") continue;
    if (v.is_object() && v.contains("value")) {
      EXPECT_TRUE(v.contains("source") && !v["source"].get<std::string>().empty()) << where << "/" << key;
    } else if (v.is_object()) {
      expect_sources(v, where + "/" + key);
    } else {
      ADD_FAILURE() << where << "/" << key << " has no source";
    }
  }
}

TEST(SystemSpec, PresetsLoadWithASourceOnEveryNumber) {
  EXPECT_EQ(list_system_presets(kConfigDir), kSystems);
  for (const auto& name : kSystems) {
    const SystemSpec s = load_system_preset(name, kConfigDir);
    EXPECT_EQ(s.name, name);
    EXPECT_EQ(std::to_string(s.gpu_count) + "x" + s.gpu, name);
    EXPECT_NO_THROW(load_gpu_preset(s.gpu, kConfigDir)) << name;
    EXPECT_GT(s.nvlink.bandwidth.value, 0);
    EXPECT_EQ(s.nvlink.topology, "nvswitch");
    expect_sources(preset_json(name), name);
  }
}

TEST(SystemSpec, DatasheetAndMeasuredBandwidths) {
  // NVLink per direction: measured 396 GB/s on H200, datasheet 450 (H100, NVLink4), 300 (A100,
  // NVLink3), 900 (B200, NVLink5).
  EXPECT_DOUBLE_EQ(load_system_preset("2xh200", kConfigDir).nvlink.bandwidth.value, 396e9);
  EXPECT_DOUBLE_EQ(load_system_preset("8xh100", kConfigDir).nvlink.bandwidth.value, 450e9);
  EXPECT_DOUBLE_EQ(load_system_preset("8xa100", kConfigDir).nvlink.bandwidth.value, 300e9);
  EXPECT_DOUBLE_EQ(load_system_preset("8xb200", kConfigDir).nvlink.bandwidth.value, 900e9);
  const SystemSpec h200 = load_system_preset("2xh200", kConfigDir);
  EXPECT_DOUBLE_EQ(h200.nvlink.sm_store.max_rate.value, 45.5e9);
  EXPECT_EQ(h200.nvlink.sm_store.round_trip, Duration{555'000});
  EXPECT_EQ(h200.signal_latency, Duration{1'340'000});
  EXPECT_NE(h200.sources.at("/nvlink/bandwidth").find("calibration_nvlink.csv"), std::string::npos);
}

TEST(SystemSpec, ToJsonRoundTrips) {
  for (const auto& name : kSystems) {
    const SystemSpec s = load_system_preset(name, kConfigDir);
    EXPECT_EQ(parse_system_spec(to_json(s), "round trip"), s) << name;
  }
}

TEST(SystemSpec, ErrorsNameThePointer) {
  nlohmann::json j = preset_json("2xh200");
  j["nvlink"]["bandwith"] = "1GB/s";
  EXPECT_NE(error_of([&] { parse_system_spec(j, "x.json"); }).find("did you mean \"bandwidth\""), std::string::npos);
  j = preset_json("2xh200");
  j["nvlink"]["topology"] = "ring";
  EXPECT_NE(error_of([&] { parse_system_spec(j, "x.json"); }).find("/nvlink/topology"), std::string::npos);
  j = preset_json("2xh200");
  j["gpu_count"] = 1;
  EXPECT_NE(error_of([&] { parse_system_spec(j, "x.json"); }).find("/gpu_count"), std::string::npos);
  j = preset_json("2xh200");
  EXPECT_EQ(parse_system_spec(j, "x.json", {"nvlink.bandwidth=500GB/s"}).nvlink.bandwidth.value, 500e9);
  const std::string unknown = error_of([&] { load_system_preset("2xh20", kConfigDir); });
  EXPECT_NE(unknown.find("did you mean \"2xh200\""), std::string::npos) << unknown;
}

TEST(SystemSpec, H200HasTheMmaSyncLoopCalibration) {
  const GpuSpec h200 = load_gpu_preset("h200", kConfigDir);
  EXPECT_DOUBLE_EQ(h200.tensor.mma_sync_latency.value, 24.7);
  EXPECT_DOUBLE_EQ(h200.clock.mma_sync_loop.value, 1.73e9);
  EXPECT_EQ(parse_gpu_spec(to_json(h200), "round trip"), h200);
}

}  // namespace
}  // namespace tgsim::hw
