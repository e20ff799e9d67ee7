// `tgsim moe` end to end: the JSON report's fields and the one-line error for a bad schedule.
#include <nlohmann/json.hpp>
#include <string>

#include "tests/tools/cli_runner.h"

namespace tgsim::cli_test {
namespace {

using CliMoe = CliTest;

TEST_F(CliMoe, JsonReportHasPerGpuFields) {
  const RunResult r = run_tgsim("moe --system 4xh100 --model qwen3-30b-a3b --tokens 256 --routing zipf:1.0 "
                                "--schedule dynamic --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["command"], "moe");
  EXPECT_EQ(j["schedule"], "dynamic");
  EXPECT_GT(j["latency_us"].get<double>(), 0);
  ASSERT_EQ(j["gpus"].size(), 4u);
  for (const char* f : {"comm_sms", "tensor_busy_pct", "sm_active_pct", "overlap_pct", "nvlink_egress_pct",
                        "nvlink_ingress_pct", "stolen_tiles", "expert_rows"}) {
    EXPECT_TRUE(j["gpus"][0].contains(f)) << f;
  }
  EXPECT_EQ(j["gpus"][0]["comm_sms"], j["gpus"][0]["cost_model_c"]);
}

TEST_F(CliMoe, BadScheduleNamesTheFlag) {
  const RunResult r = run_tgsim("moe --system 4xh100 --model mixtral-8x7b --schedule overlapped");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--schedule"), std::string::npos) << r.err;
  const RunResult dense = run_tgsim("moe --system 4xh100 --model llama3-8b");
  EXPECT_EQ(dense.code, 2);
  EXPECT_NE(dense.err.find("no MoE layer"), std::string::npos) << dense.err;
}

}  // namespace
}  // namespace tgsim::cli_test
