// `tgsim attention`, `tgsim lower attention` and `tgsim llm`: JSON fields, the FA3 ping-pong visible in a
// trace, lowering then replaying giving the same answer, and errors naming the flag.
#include <string>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.h"

namespace tgsim::cli_test {
namespace {

using CliAttention = CliTest;

const std::string kProblem = "--gpu h100 --batch 2 --heads 16 --seq-q 1024 --head-dim 128";

TEST_F(CliAttention, JsonReportsScheduleFlopsAndLatency) {
  const RunResult r = run_tgsim("attention " + kProblem + " --causal --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["latency_us"].get<double>(), 0.0);
  EXPECT_EQ(j["inputs"]["schedule"]["family"], "fa2");
  EXPECT_TRUE(j["inputs"]["causal"].get<bool>());
  EXPECT_GT(j["inputs"]["flops"].get<double>(), 0.0);
}

TEST_F(CliAttention, TopLeftCausalVisitsFewerKeysAndNeedsCausal) {
  // PyTorch's is_causal: 128 queries over 4096 keys see only the first 128 keys.
  const std::string rect = "--gpu h200 --batch 8 --heads 16 --seq-q 128 --seq-kv 4096 --head-dim 128 --causal";
  const RunResult br = run_tgsim("attention " + rect + " --json");
  const RunResult tl = run_tgsim("attention " + rect + " --causal-align top-left --json");
  ASSERT_EQ(br.code, 0) << br.err;
  ASSERT_EQ(tl.code, 0) << tl.err;
  const auto jb = nlohmann::json::parse(br.out), jt = nlohmann::json::parse(tl.out);
  EXPECT_EQ(jb["inputs"]["causal_align"], "bottom_right");
  EXPECT_EQ(jt["inputs"]["causal_align"], "top_left");
  EXPECT_LT(jt["inputs"]["flops"].get<double>(), 0.05 * jb["inputs"]["flops"].get<double>());
  EXPECT_LT(jt["latency_us"].get<double>(), jb["latency_us"].get<double>());
  const RunResult bad = run_tgsim("attention " + kProblem + " --causal-align top-left");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--causal-align: needs --causal"), std::string::npos) << bad.err;
}

TEST_F(CliAttention, Fa3TraceShowsBothConsumerWarpgroups) {
  const auto trace = tmp("fa3.trace.json");
  const RunResult r = run_tgsim("attention " + kProblem + " --family fa3 --trace " + shell_quote(trace) + " --trace-sms 1");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string t = read_text(trace);
  // Both warpgroups' GEMMs appear as tile ops on the traced SM (the ping-pong of docs/attention.md).
  EXPECT_NE(t.find("consumer0"), std::string::npos);
  EXPECT_NE(t.find("consumer1"), std::string::npos);
  EXPECT_NE(t.find("\"S0_"), std::string::npos);
  EXPECT_NE(t.find("\"S1_"), std::string::npos);
}

TEST_F(CliAttention, LowerThenRunGraphMatchesAttention) {
  const std::string problem = "--gpu h200 --batch 4 --heads 32 --heads-kv 8 --seq-q 1 --seq-kv 4096 --head-dim 128";
  const auto graph = tmp("attn.json");
  const RunResult lowered = run_tgsim("lower attention " + problem + " --out " + shell_quote(graph));
  ASSERT_EQ(lowered.code, 0) << lowered.err;
  const auto direct = nlohmann::json::parse(run_tgsim("attention " + problem + " --json").out);
  const auto replay = nlohmann::json::parse(run_tgsim("run-graph " + shell_quote(graph) + " --gpu h200 --json").out);
  EXPECT_DOUBLE_EQ(direct["latency_us"].get<double>(), replay["latency_us"].get<double>());
}

TEST_F(CliAttention, BadInputNamesTheFlag) {
  RunResult r = run_tgsim("attention --gpu h100 --heads 32 --heads-kv 5 --seq-q 128");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--heads-kv"), std::string::npos) << r.err;
  r = run_tgsim("attention --gpu h100 --heads 32 --seq-q 128 --kernel not_a_kernel");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unsupported kernel name"), std::string::npos) << r.err;
  r = run_tgsim("attention --gpu a100 --heads 16 --seq-q 1024 --family fa3");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("a100"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tgsim::cli_test

namespace tgsim::cli_test {
namespace {

using CliLlm = CliTest;

TEST_F(CliLlm, JsonStepHasTotalsAndKernelRows) {
  const RunResult r = run_tgsim("llm --model llama3-8b --gpu h200 --phase decode --batch 4 --context 512 --layers 2 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"latency_us", "kernel_us", "gap_us", "us_per_token", "tokens_per_s", "kernels"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["tokens"], 4);
  double sum = 0;
  for (const auto& k : j["kernels"]) sum += k["total_us"].get<double>();
  EXPECT_NEAR(sum + j["gap_us"].get<double>(), j["latency_us"].get<double>(), 1e-6 * j["latency_us"].get<double>());
}

TEST_F(CliLlm, TensorParallelAddsSimulatedAllReduces) {
  const RunResult r = run_tgsim("llm --model llama3-8b --gpu h200 --phase decode --batch 8 --context 1024 --layers 1 --tp 2 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  int all_reduces = 0;
  for (const auto& k : j["kernels"]) {
    if (k["schedule"] == "all_reduce") {
      ++all_reduces;
      EXPECT_GT(k["us_per_call"].get<double>(), 0.0);
    }
  }
  EXPECT_EQ(all_reduces, 2);
  const RunResult bad = run_tgsim("llm --model llama3-8b --gpu h200 --tp 2 --system 4xh200 --layers 1");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--tp is 2"), std::string::npos) << bad.err;
}

TEST_F(CliLlm, UnknownModelSuggestsAPreset) {
  const RunResult r = run_tgsim("llm --model llama-3-8b --gpu h100");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("llama3-8b"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tgsim::cli_test

namespace tgsim::cli_test {
namespace {

using CliProfile = CliTest;

TEST_F(CliProfile, JsonReplayOfACommittedProfile) {
  const RunResult r = run_tgsim("validate --profile " + shell_quote(source("traces/h200/profiles/llama8b_decode_b8_ctx4096_2l.json")) +
                                " --gpu h200 --json --jobs 2");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"measured_total_us", "predicted_total_us", "coverage_pct", "kernels"}) EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_GE(j["coverage_pct"].get<double>(), 95.0);
  EXPECT_GT(j["kernels"].size(), 40u);
}

TEST_F(CliProfile, MeasurementsAndProfileExcludeEachOther) {
  const RunResult r = run_tgsim("validate --profile a.json --measurements b.csv");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("excludes"), std::string::npos) << r.err;
  const RunResult none = run_tgsim("validate");
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("--profile"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace tgsim::cli_test

namespace tgsim::cli_test {
namespace {

using CliLimits = CliTest;

TEST_F(CliLimits, HugeRunsAreRefusedUpFrontNamingTheFlag) {
  RunResult r = run_tgsim("gemm --gpu h100 --m 8192 --n 8192 --k 8192 --max-nodes 100000");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--max-nodes"), std::string::npos) << r.err;
  r = run_tgsim("attention --gpu h100 --heads 16 --seq-q 4096 --max-memory 1MB");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--max-memory"), std::string::npos) << r.err;
  r = run_tgsim("gemm --gpu h100 --m 256 --n 256 --k 256 --max-memory lots");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--max-memory"), std::string::npos) << r.err;
  // The default limits let an ordinary run through.
  EXPECT_EQ(run_tgsim("gemm --gpu h100 --m 4096 --n 4096 --k 4096").code, 0);
}

TEST_F(CliLimits, SweepPointsAndProfileKernelsOverTheLimitSaySo) {
  const auto spec = tmp("spec.json"), out = tmp("out.csv");
  write_text(spec, R"({"op": "gemm", "gpu": "h100", "grid": {"m": [256, 4096], "n": [4096], "k": [4096]}})");
  const RunResult s = run_tgsim("sweep " + shell_quote(spec) + " --out " + shell_quote(out) + " --max-nodes 20000");
  EXPECT_EQ(s.code, 0) << s.err;
  const std::string csv = read_text(out);
  EXPECT_NE(csv.find("--max-nodes"), std::string::npos) << csv;  // the 4096 point is an error row
  const RunResult p = run_tgsim("validate --profile " +
                                shell_quote(source("traces/h200/profiles/llama8b_decode_b8_ctx4096_2l.json")) +
                                " --gpu h200 --json --max-nodes 1000");
  ASSERT_EQ(p.code, 0) << p.err;
  const auto j = nlohmann::json::parse(p.out);
  EXPECT_LT(j["coverage_pct"].get<double>(), 100.0);
  bool named = false;
  for (const auto& k : j["kernels"]) named = named || k["reason"].get<std::string>().find("--max-nodes") != std::string::npos;
  EXPECT_TRUE(named);
}

}  // namespace
}  // namespace tgsim::cli_test

namespace tgsim::cli_test {
namespace {

using CliDeterminism = CliTest;

// Same inputs, same output byte for byte, whatever the thread count (validate and profile replay
// run rows in parallel; results are collected in row order).
TEST_F(CliDeterminism, ValidateAndProfileReplayDoNotDependOnJobs) {
  for (const std::string& args :
       {"validate --measurements " + shell_quote(source("traces/h200x2/nccl.csv")) + " --json",
        "validate --profile " + shell_quote(source("traces/h200/profiles/llama8b_decode_b8_ctx4096_2l.json")) + " --gpu h200 --json"}) {
    const RunResult one = run_tgsim(args + " --jobs 1"), four = run_tgsim(args + " --jobs 4");
    ASSERT_EQ(one.code, 0) << one.err;
    EXPECT_EQ(one.out, four.out) << args;
  }
}

}  // namespace
}  // namespace tgsim::cli_test
