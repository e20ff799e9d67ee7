#include "sim/hw/spec_json.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "sim/units/error.h"

namespace tgsim::hw {
namespace {

namespace fs = std::filesystem;

const fs::path kConfigDir = fs::path(TGSIM_SOURCE_DIR) / "configs";
const std::vector<std::string> kPresets{"a100", "b200", "h100", "h200"};

template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

nlohmann::json read_preset_json(const std::string& name) {
  std::ifstream in(kConfigDir / "gpus" / (name + ".json"));
  return nlohmann::json::parse(in);
}

// A scratch folder per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            (std::string("tgsim_spec_") + info->test_suite_name() + "_" + info->name() + "_" + std::to_string(::getpid()));
    fs::remove_all(path_);
    fs::create_directories(path_ / "gpus");
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

  fs::path write_text(const std::string& name, const std::string& text) const {
    const fs::path file = path_ / "gpus" / name;
    std::ofstream(file) << text;
    return file;
  }
  fs::path write_json(const std::string& name, const nlohmann::json& doc) const { return write_text(name, doc.dump(2)); }

 private:
  fs::path path_;
};

// The error from loading h100.json after `edit`, written to a scratch file named h100.json.
std::string error_after_edit(const std::function<void(nlohmann::json&)>& edit) {
  TempDir dir;
  nlohmann::json doc = read_preset_json("h100");
  edit(doc);
  const fs::path file = dir.write_json("h100.json", doc);
  return error_of([&] { load_gpu_spec(file); });
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(GpuPresets, AllLoadWithExpectedFigures) {
  for (const std::string& name : kPresets) {
    const GpuSpec spec = load_gpu_preset(name, kConfigDir);
    EXPECT_EQ(spec.name, name);
    // Hopper presets use the power-limited clock calibrated on the H200; the others stay constant.
    EXPECT_EQ(spec.clock.model, spec.arch == "hopper" ? "power" : "constant") << name;
  }
  const GpuSpec h100 = load_gpu_preset("h100", kConfigDir);
  EXPECT_EQ(h100.sm.count, 132);
  EXPECT_EQ(h100.hbm.bandwidth.value, 3.35e12);
  EXPECT_EQ(h100.sm.shared_memory_per_cta.value, 227 * 1024);
  EXPECT_EQ(h100.tensor.flops_per_cycle.at(TensorInst::wgmma).at(DType::bf16), 4096);
  EXPECT_EQ(h100.tensor.flops_per_cycle.at(TensorInst::wgmma).at(DType::fp8_e4m3), 8192);
  EXPECT_EQ(h100.tensor.flops_per_cycle.at(TensorInst::mma_sync).at(DType::bf16), 2730);
  EXPECT_EQ(h100.clock.boost.value, 1.98e9);
  EXPECT_EQ(h100.sources.at("/hbm/bandwidth"), "H100 SXM datasheet: 3.35 TB/s");

  const GpuSpec a100 = load_gpu_preset("a100", kConfigDir);
  EXPECT_EQ(a100.tensor.flops_per_cycle.at(TensorInst::mma_sync).at(DType::bf16), 2048);
  EXPECT_FALSE(a100.tensor.flops_per_cycle.contains(TensorInst::wgmma));
  EXPECT_EQ(a100.tma, TmaSpec{});
  EXPECT_EQ(a100.gpc.count, 7);

  const GpuSpec h200 = load_gpu_preset("h200", kConfigDir);
  EXPECT_EQ(h200.l2.capacity.value, 60LL * 1024 * 1024);
  EXPECT_EQ(h200.hbm.bandwidth.value, 4.8e12);
  EXPECT_EQ(h200.l2.miss_bandwidth.value, 4.6e12);  // calib_tma tiled_oobmix on each GPU; A100 and B200 leave it off
  EXPECT_EQ(h100.l2.miss_bandwidth.value, 4.09e12);
  EXPECT_EQ(a100.l2.miss_bandwidth.value, 0);
  EXPECT_EQ(h100.l2.bandwidth.value, 7.9e12);  // TMA rings on a lent H100 (traces/h100/)

  // wgmma slows SIMT work on Hopper (calib_attn); tcgen05 keeps its accumulators in TMEM.
  EXPECT_EQ(h200.simt.rate_during_wgmma, 0.15);
  EXPECT_EQ(h100.simt.rate_during_wgmma, 0.15);

  const GpuSpec b200 = load_gpu_preset("b200", kConfigDir);
  EXPECT_EQ(b200.simt.rate_during_wgmma, 1.0);
  EXPECT_EQ(b200.sm.count, 148);
  EXPECT_FALSE(b200.tensor.flops_per_cycle.contains(TensorInst::wgmma));
  EXPECT_EQ(b200.tensor.flops_per_cycle.at(TensorInst::tcgen05).at(DType::fp4), 32768);
}

// Every number in a preset says where it came from (STYLE.md 12).
TEST(GpuPresets, EveryNumberHasASource) {
  for (const std::string& name : kPresets) {
    const GpuSpec spec = load_gpu_preset(name, kConfigDir);
    std::function<void(const nlohmann::json&, const std::string&)> walk = [&](const nlohmann::json& node,
                                                                                const std::string& pointer) {
      if (node.is_object() && !node.contains("value")) {
        for (const auto& item : node.items()) walk(item.value(), pointer + "/" + item.key());
        return;
      }
      if (pointer == "/name" || pointer == "/full_name" || pointer == "/arch" || pointer == "/notes") return;
      EXPECT_TRUE(spec.sources.contains(pointer)) << name << ": " << pointer << " has no source";
    };
    walk(to_json(spec), "");
  }
}

TEST(GpuPresets, ListIsSortedStems) {
  const std::vector<std::string> names = list_gpu_presets(kConfigDir);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  for (const std::string& name : kPresets) EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;

  TempDir dir;
  dir.write_text("zeta.json", "{}");
  dir.write_text("alpha.json", "{}");
  dir.write_text("readme.txt", "not a preset");
  EXPECT_EQ(list_gpu_presets(dir.path()), (std::vector<std::string>{"alpha", "zeta"}));
  EXPECT_TRUE(list_gpu_presets(dir.path() / "missing").empty());
}

TEST(GpuPresets, UnknownNameListsValidNames) {
  const std::string e = error_of([] { load_gpu_preset("h300", kConfigDir); });
  EXPECT_TRUE(contains(e, "unknown GPU \"h300\"")) << e;
  EXPECT_TRUE(contains(e, "did you mean \"h100\"?")) << e;
  EXPECT_TRUE(contains(e, "a100, b200, h100, h200")) << e;
}

TEST(GpuPresets, PathInsteadOfName) {
  const GpuSpec spec = load_gpu_preset((kConfigDir / "gpus" / "a100.json").string(), "/nonexistent");
  EXPECT_EQ(spec.name, "a100");
  const std::string e = error_of([] { load_gpu_preset("/nonexistent/x.json", kConfigDir); });
  EXPECT_TRUE(contains(e, "/nonexistent/x.json: cannot open file")) << e;
}

TEST(SpecErrors, UnknownKeyNamesFileAndPath) {
  const std::string e = error_after_edit([](nlohmann::json& doc) {
    doc["hbm"]["bandwith"] = doc["hbm"]["bandwidth"];
    doc["hbm"].erase("bandwidth");
  });
  EXPECT_TRUE(contains(e, "h100.json: /hbm/bandwith: unknown key (did you mean \"bandwidth\"?)")) << e;
}

TEST(SpecErrors, UnknownKeyWithoutCloseMatchListsKeys) {
  const std::string e = error_after_edit([](nlohmann::json& doc) { doc["sm"]["colour"] = 1; });
  EXPECT_TRUE(contains(e, "h100.json: /sm/colour: unknown key; expected one of: count, sub_partitions")) << e;
}

TEST(SpecErrors, MissingFieldNamesFileAndPath) {
  const std::string e = error_after_edit([](nlohmann::json& doc) { doc["sm"].erase("count"); });
  EXPECT_TRUE(contains(e, "h100.json: /sm/count: missing required field")) << e;
  const std::string section = error_after_edit([](nlohmann::json& doc) { doc.erase("l2"); });
  EXPECT_TRUE(contains(section, "h100.json: /l2: missing required section")) << section;
  const std::string tma = error_after_edit([](nlohmann::json& doc) { doc.erase("tma"); });
  EXPECT_TRUE(contains(tma, "h100.json: /tma: missing required section")) << tma;
}

TEST(SpecErrors, BadUnitOrTypeNamesFileAndPath) {
  const std::string unit = error_after_edit([](nlohmann::json& doc) { doc["hbm"]["bandwidth"]["value"] = "fast"; });
  EXPECT_TRUE(contains(unit, "h100.json: /hbm/bandwidth: expected a bandwidth like \"3.35TB/s\", got \"fast\"")) << unit;
  const std::string bare = error_after_edit([](nlohmann::json& doc) { doc["clock"]["boost"] = 1980; });
  EXPECT_TRUE(contains(bare, "h100.json: /clock/boost: expected a frequency like \"1.98GHz\", got \"1980\" (a unit is required)"))
      << bare;
  const std::string type = error_after_edit([](nlohmann::json& doc) { doc["sm"]["count"] = "many"; });
  EXPECT_TRUE(contains(type, "h100.json: /sm/count: expected an integer, got \"many\"")) << type;
  const std::string list = error_after_edit([](nlohmann::json& doc) { doc["gpc"]["sms_per_gpc"]["value"][2] = "x"; });
  EXPECT_TRUE(contains(list, "h100.json: /gpc/sms_per_gpc/2: expected an integer")) << list;
  const std::string source = error_after_edit([](nlohmann::json& doc) { doc["hbm"]["bandwidth"]["sorce"] = "x"; });
  EXPECT_TRUE(contains(source, "h100.json: /hbm/bandwidth/sorce: unknown key (did you mean \"source\"?)")) << source;
  const std::string dtype = error_after_edit([](nlohmann::json& doc) {
    doc["tensor"]["flops_per_cycle"]["wgmma"]["fp8"] = 8192;
  });
  EXPECT_TRUE(contains(dtype, "/tensor/flops_per_cycle/wgmma/fp8: unknown key (did you mean \"fp8_e4m3\"?)")) << dtype;
  const std::string family = error_after_edit([](nlohmann::json& doc) { doc["tensor"]["flops_per_cycle"]["wmma"] = {}; });
  EXPECT_TRUE(contains(family, "/tensor/flops_per_cycle/wmma: unknown key (did you mean \"wgmma\"?)")) << family;
}

TEST(SpecErrors, InconsistentValues) {
  const std::string gpc = error_after_edit([](nlohmann::json& doc) { doc["gpc"]["sms_per_gpc"]["value"][0] = 16; });
  EXPECT_TRUE(contains(gpc, "h100.json: /gpc/sms_per_gpc: sums to 130 SMs but /sm/count is 132")) << gpc;
  const std::string smem = error_after_edit([](nlohmann::json& doc) { doc["sm"]["shared_memory_per_cta"] = "300KiB"; });
  EXPECT_TRUE(contains(smem, "h100.json: /sm/shared_memory_per_cta: 300KiB plus")) << smem;
  const std::string eff = error_after_edit([](nlohmann::json& doc) { doc["hbm"]["efficiency"] = 1.5; });
  EXPECT_TRUE(contains(eff, "h100.json: /hbm/efficiency: must be in (0, 1], got 1.5")) << eff;
  const std::string rate = error_after_edit([](nlohmann::json& doc) { doc["l2"]["bandwidth"] = "0TB/s"; });
  EXPECT_TRUE(contains(rate, "h100.json: /l2/bandwidth: must be > 0")) << rate;
  const std::string miss = error_after_edit([](nlohmann::json& doc) { doc["l2"]["miss_bandwidth"] = "-1TB/s"; });
  EXPECT_TRUE(contains(miss, "h100.json: /l2/miss_bandwidth: expected a bandwidth")) << miss;
  EXPECT_TRUE(contains(miss, "must not be negative")) << miss;
  const std::string arch = error_after_edit([](nlohmann::json& doc) { doc["compute_capability"] = 80; });
  EXPECT_TRUE(contains(arch, "/gpc/max_cluster_size: thread-block clusters need compute capability 90")) << arch;
  const std::string wgrate = error_after_edit([](nlohmann::json& doc) { doc["simt"]["rate_during_wgmma"] = 0; });
  EXPECT_TRUE(contains(wgrate, "h100.json: /simt/rate_during_wgmma: must be in (0, 1], got 0")) << wgrate;
  const std::string tcgen = error_after_edit([](nlohmann::json& doc) {
    doc["tensor"]["flops_per_cycle"]["tcgen05"] = {{"bf16", 8192}};
  });
  EXPECT_TRUE(contains(tcgen, "/tensor/flops_per_cycle/tcgen05: tcgen05 needs compute capability 100")) << tcgen;
  const std::string slope = error_after_edit([](nlohmann::json& doc) {
    doc["clock"]["tensor_max_wgmma_per_duty"]["value"] = "2GHz";
  });
  EXPECT_TRUE(contains(slope, "h100.json: /clock/tensor_max_wgmma_per_duty: 2GHz leaves no clock at full tensor duty "
                              "(/clock/tensor_max_wgmma is 1.84GHz)")) << slope;
  const std::string fill = error_after_edit([](nlohmann::json& doc) { doc["l2"]["fill_weight"] = -1; });
  EXPECT_TRUE(contains(fill, "h100.json: /l2/fill_weight: must be >= 0, got -1")) << fill;
  const std::string simt = error_after_edit([](nlohmann::json& doc) { doc["clock"]["power_weight_simt"] = -0.5; });
  EXPECT_TRUE(contains(simt, "h100.json: /clock/power_weight_simt: must be >= 0, got -0.5")) << simt;
}

TEST(SpecErrors, FileProblems) {
  TempDir dir;
  const fs::path broken = dir.write_text("broken.json", std::string("{ \"name\": "));
  EXPECT_TRUE(contains(error_of([&] { load_gpu_spec(broken); }), "broken.json: invalid JSON"));
  const fs::path array = dir.write_text("array.json", std::string("[1, 2]"));
  EXPECT_TRUE(contains(error_of([&] { load_gpu_spec(array); }), "array.json: expected an object"));
}

TEST(Overrides, ChangeValuesAndRecordTheSource) {
  const GpuSpec spec = load_gpu_preset("h100", kConfigDir,
                                       {"hbm.bandwidth=5TB/s", "clock.boost=1.7GHz", "hbm.efficiency=0.85",
                                        "tensor.flops_per_cycle.wgmma.bf16=4000", "sm.count=120", "gpc.count=7",
                                        "gpc.sms_per_gpc=[18,18,18,18,16,16,16]", "l2.capacity=40MiB"});
  EXPECT_EQ(spec.hbm.bandwidth.value, 5e12);
  EXPECT_EQ(spec.clock.boost.value, 1.7e9);
  EXPECT_EQ(spec.hbm.efficiency, 0.85);
  EXPECT_EQ(spec.tensor.flops_per_cycle.at(TensorInst::wgmma).at(DType::bf16), 4000);
  EXPECT_EQ(spec.sm.count, 120);
  EXPECT_EQ(spec.gpc.sms_per_gpc.size(), 7u);
  EXPECT_EQ(spec.l2.capacity.value, 40LL * 1024 * 1024);
  EXPECT_EQ(spec.sources.at("/hbm/bandwidth"), "--set hbm.bandwidth=5TB/s");
  EXPECT_EQ(spec.sources.at("/clock/boost"), "--set clock.boost=1.7GHz");
  // Untouched fields keep their file sources.
  EXPECT_EQ(spec.sources.at("/hbm/capacity"), "H100 SXM datasheet: 80 GB HBM3");
}

TEST(Overrides, BadOverridesNameTheOverride) {
  const auto err = [](std::vector<std::string> set, const std::string& gpu = "h100") {
    return error_of([&] { load_gpu_preset(gpu, kConfigDir, set); });
  };
  std::string e = err({"hbm.bandwith=5TB/s"});
  EXPECT_TRUE(contains(e, "--set hbm.bandwith=5TB/s: /hbm/bandwith: unknown key (did you mean \"bandwidth\"?)")) << e;
  e = err({"hbm.bandwidth=fast"});
  EXPECT_TRUE(contains(e, "--set hbm.bandwidth=fast: /hbm/bandwidth: expected a bandwidth like \"3.35TB/s\"")) << e;
  e = err({"hbmm.bandwidth=5TB/s"});
  EXPECT_TRUE(contains(e, "--set hbmm.bandwidth=5TB/s: /hbmm: unknown key (did you mean \"hbm\"?)")) << e;
  e = err({"hbm.bandwidth"});
  EXPECT_TRUE(contains(e, "--set hbm.bandwidth: expected key=value")) << e;
  e = err({"hbm..bandwidth=1"});
  EXPECT_TRUE(contains(e, "--set hbm..bandwidth=1: empty key segment")) << e;
  e = err({"hbm.bandwidth.peak=1"});
  EXPECT_TRUE(contains(e, "--set hbm.bandwidth.peak=1: /hbm/bandwidth is a value, not a section")) << e;
  e = err({"sm.count=abc"});
  EXPECT_TRUE(contains(e, "--set sm.count=abc: /sm/count: expected an integer")) << e;
  e = err({"gpc.sms_per_gpc=[1,2"});
  EXPECT_TRUE(contains(e, "--set gpc.sms_per_gpc=[1,2: invalid JSON value")) << e;
  e = err({"tensor.flops_per_cycle.wgmma.bf16=4096"}, "a100");
  EXPECT_TRUE(contains(e, "--set tensor.flops_per_cycle.wgmma.bf16=4096: /tensor/flops_per_cycle/wgmma: wgmma exists "
                          "only on compute capability 90"))
      << e;
  // A consistency error elsewhere still says which override broke it.
  e = err({"sm.count=120"});
  EXPECT_TRUE(contains(e, "/gpc/sms_per_gpc: sums to 132 SMs but /sm/count (set by --set sm.count=120) is 120")) << e;
}

TEST(ToJson, RoundTripsEveryPreset) {
  for (const std::string& name : kPresets) {
    const GpuSpec spec = load_gpu_preset(name, kConfigDir);
    const nlohmann::json doc = to_json(spec);
    EXPECT_EQ(parse_gpu_spec(doc, "resolved " + name), spec) << name;
    // Stable: a second trip gives the same JSON.
    EXPECT_EQ(to_json(parse_gpu_spec(doc, "resolved")), doc) << name;
  }
  const GpuSpec overridden = load_gpu_preset("h200", kConfigDir, {"hbm.bandwidth=4.9TB/s", "hbm.efficiency=0.93"});
  EXPECT_EQ(parse_gpu_spec(to_json(overridden), "resolved"), overridden);
  EXPECT_EQ(to_json(overridden)["hbm"]["bandwidth"]["value"], "4.9TB/s");
  EXPECT_FALSE(to_json(load_gpu_preset("a100", kConfigDir)).contains("tma"));
  // The optional power-duty terms (off in every preset) survive the trip when set.
  const GpuSpec terms = load_gpu_preset("h200", kConfigDir,
                                        {"clock.power_weight_mma_sync=0.84", "clock.power_weight_simt=1.4",
                                         "clock.power_per_hbm_tbps=145MHz", "clock.power_weight_smem=0.2",
                                         "clock.power_weight_l2=0.35", "clock.power_weight_clock=0.11"});
  EXPECT_EQ(terms.clock.power_weight_simt, 1.4);
  EXPECT_EQ(terms.clock.power_per_hbm_tbps.value, 145e6);
  EXPECT_EQ(terms.clock.power_weight_l2, 0.35);
  EXPECT_EQ(parse_gpu_spec(to_json(terms), "resolved"), terms);
  // So do the L2 work weights of fills and write-backs (off in every preset).
  const GpuSpec work = load_gpu_preset("h100", kConfigDir, {"l2.fill_weight=1", "l2.writeback_weight=0.5"});
  EXPECT_EQ(work.l2.fill_weight, 1.0);
  EXPECT_EQ(work.l2.writeback_weight, 0.5);
  EXPECT_EQ(parse_gpu_spec(to_json(work), "resolved"), work);
  EXPECT_FALSE(to_json(load_gpu_preset("h200", kConfigDir))["l2"].contains("fill_weight"));
  // And the combining and write-back switches (on in the h100 and h200 presets).
  const GpuSpec h200 = load_gpu_preset("h200", kConfigDir);
  EXPECT_FALSE(h200.l2.gpc_combine_plain);
  EXPECT_TRUE(h200.l2.miss_waits_for_writeback);
  const GpuSpec plain = load_gpu_preset("h200", kConfigDir, {"l2.gpc_combine_plain=true", "l2.miss_waits_for_writeback=false"});
  EXPECT_TRUE(plain.l2.gpc_combine_plain);
  EXPECT_FALSE(plain.l2.miss_waits_for_writeback);
  EXPECT_EQ(parse_gpu_spec(to_json(plain), "resolved"), plain);
  EXPECT_FALSE(load_gpu_preset("a100", kConfigDir).l2.miss_waits_for_writeback);
}

TEST(ParseGpuSpec, SwitchMustBeTrueOrFalse) {
  nlohmann::json doc = read_preset_json("h200");
  doc["l2"]["miss_waits_for_writeback"]["value"] = 1;
  const std::string e = error_of([&] { parse_gpu_spec(doc, "inline spec"); });
  EXPECT_NE(e.find("/l2/miss_waits_for_writeback"), std::string::npos) << e;
  EXPECT_NE(e.find("expected true or false"), std::string::npos) << e;
}

TEST(ToJson, SpecWithoutSourcesWritesPlainValues) {
  GpuSpec spec = load_gpu_preset("h100", kConfigDir);
  spec.sources.clear();
  spec.l2.far_hit_latency = Cycles{0};
  const nlohmann::json doc = to_json(spec);
  EXPECT_EQ(doc["hbm"]["bandwidth"], "3.35TB/s");
  EXPECT_EQ(doc["sm"]["shared_memory"], "228KiB");
  EXPECT_EQ(doc["launch"]["kernel_overhead"], "4us");
  EXPECT_FALSE(doc["l2"].contains("far_hit_latency"));
  EXPECT_EQ(parse_gpu_spec(doc, "plain"), spec);
}

TEST(ParseGpuSpec, InMemoryDocumentUsesOrigin) {
  nlohmann::json doc = read_preset_json("b200");
  doc["hbm"]["efficiency"] = 0;
  const std::string e = error_of([&] { parse_gpu_spec(doc, "inline spec"); });
  EXPECT_TRUE(contains(e, "inline spec: /hbm/efficiency: must be in (0, 1]")) << e;
  const GpuSpec spec = parse_gpu_spec(read_preset_json("b200"), "inline", {"sm.count=148"});
  EXPECT_EQ(spec.sm.count, 148);
}

}  // namespace
}  // namespace tgsim::hw
