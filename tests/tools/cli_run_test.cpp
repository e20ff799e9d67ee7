// `tgsim run-graph`, `gemm` and `lower gemm` on valid input: the JSON report, determinism, and
// lowering then replaying a GEMM giving the same answer as simulating it directly.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.h"

namespace tgsim::cli_test {
namespace {

using CliRun = CliTest;

nlohmann::json parse_json(const RunResult& r, const std::string& what) {
  EXPECT_EQ(r.code, 0) << what << "\n" << r.err;
  try {
    return nlohmann::json::parse(r.out);
  } catch (const nlohmann::json::exception& e) {
    ADD_FAILURE() << what << ": stdout is not JSON: " << e.what() << "\n" << r.out;
    return nlohmann::json::object();
  }
}

TEST_F(CliRun, RunGraphJsonHasTheReportFields) {
  const nlohmann::json j =
      parse_json(run_tgsim("run-graph " + shell_quote(source("configs/graphs/pipeline.json")) + " --gpu h100 --json"),
                 "run-graph pipeline.json --json");
  for (const char* key : {"latency_us", "gpu", "resources", "bottleneck"}) {
    EXPECT_TRUE(j.contains(key)) << "missing \"" << key << "\" in\n" << j.dump(2);
  }
  ASSERT_TRUE(j.contains("latency_us"));
  EXPECT_TRUE(j["latency_us"].is_number());
  EXPECT_GT(j["latency_us"].get<double>(), 0.0);
}

TEST_F(CliRun, TextReportAndTrace) {
  const auto trace = tmp("pipeline.trace.json");
  const RunResult r = run_tgsim("run-graph " + shell_quote(source("configs/graphs/pipeline.json")) + " --trace " + shell_quote(trace));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("latency"), std::string::npos) << r.out;
  ASSERT_TRUE(std::filesystem::exists(trace));
  const nlohmann::json t = nlohmann::json::parse(read_text(trace), nullptr, false);
  EXPECT_FALSE(t.is_discarded()) << "trace is not JSON";
}

TEST_F(CliRun, IdenticalInputsGiveByteIdenticalJson) {
  for (const std::string& args :
       {"run-graph " + shell_quote(source("configs/graphs/pipeline.json")) + " --gpu h200 --json",
        std::string("gemm --gpu h100 --m 1000 --n 768 --k 512 --dtype fp16 --json")}) {
    const RunResult a = run_tgsim(args), b = run_tgsim(args);
    EXPECT_EQ(a.code, 0) << args << "\n" << a.err;
    EXPECT_FALSE(a.out.empty()) << args;
    EXPECT_EQ(a.out, b.out) << args;
  }
}

TEST_F(CliRun, LowerThenRunGraphMatchesGemm) {
  const std::string problem = "--gpu h200 --m 512 --n 1024 --k 768 --dtype bf16";
  const auto graph = tmp("gemm.json");
  const RunResult lowered = run_tgsim("lower gemm " + problem + " --out " + shell_quote(graph));
  ASSERT_EQ(lowered.code, 0) << lowered.err;
  ASSERT_TRUE(std::filesystem::exists(graph));
  const nlohmann::json direct = parse_json(run_tgsim("gemm " + problem + " --json"), "gemm --json");
  const nlohmann::json replayed = parse_json(run_tgsim("run-graph " + shell_quote(graph) + " --gpu h200 --json"), "run-graph");
  ASSERT_TRUE(direct.contains("latency_us") && replayed.contains("latency_us"));
  EXPECT_DOUBLE_EQ(direct["latency_us"].get<double>(), replayed["latency_us"].get<double>());
}

TEST_F(CliRun, GemmTextReportIsReadable) {
  const RunResult r = run_tgsim("gemm --gpu h200 --m 256 --n 256 --k 256 --dtype bf16");
  EXPECT_EQ(r.code, 0) << r.err;
  for (const char* part : {"latency", "bottleneck", "TFLOP/s"}) EXPECT_NE(r.out.find(part), std::string::npos) << r.out;
}

TEST_F(CliRun, GroupedGemmUsesTheGroupedRuleInThePyTorchView) {
  const nlohmann::json j =
      parse_json(run_tgsim("gemm --gpu h200 --groups 8 --m 16 --n 2048 --k 1024 --json"), "gemm --groups --json");
  ASSERT_TRUE(j.contains("inputs") && j["inputs"].contains("schedule")) << j.dump(2);
  EXPECT_EQ(j["inputs"].value("groups", 0), 8);
  EXPECT_EQ(j["inputs"]["library_mnk"], (nlohmann::json{16, 2048, 1024}));  // no m/n swap for grouped kernels
  EXPECT_EQ(j["inputs"]["schedule"].value("name", ""), "default_grouped_pingpong_64x128x128_s4_c2x1");
  ASSERT_EQ(j["kernels"].size(), 2u);  // the setup kernel, then the grouped GEMM
  const RunResult bad = run_tgsim("gemm --gpu h200 --groups 0 --m 16 --n 2048 --k 1024");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--groups"), std::string::npos) << bad.err;
}

// An xmma name carries no cluster: --launch-cluster gives it the profile's (along m, sharing B),
// and the model's L2 bytes fall by the multicast; a malformed launch is refused, naming the flag.
TEST_F(CliRun, GemmTakesAnXmmaKernelsClusterFromTheRecordedLaunch) {
  const std::string base =
      "gemm --gpu h200 --m 1000 --n 1000 --k 1000 --dtype tf32 --l2-start clean --json --kernel "
      "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize64x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas";
  const nlohmann::json plain = parse_json(run_tgsim(base), "xmma gemm --json");
  const nlohmann::json launched =
      parse_json(run_tgsim(base + " --launch-grid 64x2x1 --launch-cluster 1x2x1"), "xmma gemm --launch-* --json");
  EXPECT_EQ(plain["inputs"]["schedule"]["cluster"], (nlohmann::json{1, 1}));
  EXPECT_EQ(launched["inputs"]["schedule"]["cluster"], (nlohmann::json{2, 1}));
  EXPECT_LT(launched["resources"]["l2"]["bytes"].get<double>(), 0.8 * plain["resources"]["l2"]["bytes"].get<double>());
  const RunResult bad = run_tgsim(base + " --launch-grid 64x2");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.err.find("--launch-grid"), std::string::npos) << bad.err;
  EXPECT_TRUE(bad.out.empty()) << bad.out;
  const RunResult no_kernel = run_tgsim("gemm --gpu h200 --m 64 --n 64 --k 64 --launch-cluster 1x2x1");
  EXPECT_NE(no_kernel.code, 0);
  EXPECT_NE(no_kernel.err.find("--kernel"), std::string::npos) << no_kernel.err;
}

TEST_F(CliRun, MisalignedGemmGetsALibraryFallbackOrAReasonedRefusal) {
  const nlohmann::json j = parse_json(run_tgsim("gemm --gpu h200 --m 2500 --n 2500 --k 2500 --json"), "gemm 2500^3 --json");
  EXPECT_EQ(j["inputs"]["schedule"].value("family", ""), "ampere_multistage");
  EXPECT_EQ(j["inputs"]["schedule"].value("name", ""), "default_256x128x64_s3_align4B");
  const nlohmann::json odd = parse_json(run_tgsim("gemm --gpu h200 --m 4097 --n 4097 --k 4097 --json"), "gemm 4097^3 --json");
  EXPECT_EQ(odd["inputs"]["schedule"].value("load_alignment", 0), 2);  // sm75 register-staged kernel
  EXPECT_NE(odd["inputs"]["notes"].dump().find("2-byte aligned"), std::string::npos) << odd["inputs"]["notes"].dump();
  EXPECT_EQ(odd["inputs"]["notes"].dump().find("GEMV"), std::string::npos);
  // one row of an odd vocabulary (GPT-2's LM head at batch 1): cuBLASLt's GEMV, which is not modelled
  const nlohmann::json gemv = parse_json(run_tgsim("gemm --gpu h200 --m 1 --n 50257 --k 768 --json"), "gemm 1x50257x768 --json");
  EXPECT_NE(gemv["inputs"]["notes"].dump().find("GEMV kernel"), std::string::npos) << gemv["inputs"]["notes"].dump();
  const auto out = tmp("fp8.trace.json");
  const RunResult bad = run_tgsim("gemm --gpu h200 --m 64 --n 4100 --k 4096 --dtype fp8_e4m3 --trace " + shell_quote(out));
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.err.find("16-byte aligned"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(out));  // no half-written output
}

}  // namespace
}  // namespace tgsim::cli_test
