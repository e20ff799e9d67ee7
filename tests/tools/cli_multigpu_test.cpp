// `tgsim run-graph --system` and the multi-GPU validation rows, end to end.
#include <nlohmann/json.hpp>
#include <string>

#include "tests/tools/cli_runner.h"

namespace tgsim::cli_test {
namespace {

using CliMultiGpu = CliTest;

TEST_F(CliMultiGpu, RingExchangeRunsOnASystemAndReportsNvlink) {
  const RunResult r =
      run_tgsim("run-graph " + shell_quote(source("configs/graphs/ring_exchange.json")) + " --system 4xh200 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["inputs"]["system"]["name"], "4xh200");
  int nvlink_rows = 0;
  for (const auto& [name, res] : j["resources"].items()) {
    if (name.find("nvlink") != std::string::npos) ++nvlink_rows;
  }
  EXPECT_EQ(nvlink_rows, 8);                       // egress and ingress of 4 GPUs
  EXPECT_GT(j["latency_us"].get<double>(), 40.0);  // 16 MB per GPU over a 370 GB/s SM-copy link
}

TEST_F(CliMultiGpu, MultiGpuGraphWithoutASystemIsBadInput) {
  const RunResult r = run_tgsim("run-graph " + shell_quote(source("configs/graphs/ring_exchange.json")));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--system"), std::string::npos) << r.err;
  const RunResult bad =
      run_tgsim("run-graph " + shell_quote(source("configs/graphs/ring_exchange.json")) + " --system 4xh2000");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("did you mean \"4xh200\""), std::string::npos) << bad.err;
}

TEST_F(CliMultiGpu, ValidatePredictsSmSplitAndCollectiveRows) {
  // Round-number times: the test checks the plumbing, not the accuracy.
  const auto csv = tmp("m.csv");
  write_text(csv,
             "op,gpu,gpus,dtype,comm_blocks,bytes,bytes_per_pair,chunk_bytes,tiles,mma_per_warp_per_tile,mma_chains,"
             "threads,steal,time_us\n"
             "sm_split,h200,2,bf16,16,67108864,,1048576,2700,1024,4,256,0,200\n"
             "sm_split,h200,2,bf16,16,67108864,,1048576,2700,1024,4,256,1,200\n"
             "all_to_all,h200,2,bf16,,,1048576,,,,,,,30\n"
             "all_reduce,h200,2,bf16,,1048576,,,,,,,,30\n"
             "all_reduce,h200,3,bf16,,1048576,,,,,,,,30\n");
  const RunResult r = run_tgsim("validate --measurements " + shell_quote(csv) + " --json --jobs 2");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["simulated"], 4);
  EXPECT_EQ(j["skipped"], 1);  // there is no 3xh200 system
  EXPECT_TRUE(j["by_op"].contains("sm_split"));
  EXPECT_TRUE(j["by_op"].contains("all_to_all"));
}

}  // namespace
}  // namespace tgsim::cli_test
