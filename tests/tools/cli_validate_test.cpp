// `tgsim validate` on a small measurement CSV: simulated rows, skipped rows with reasons (an op
// not modelled, a kernel name that cannot be imported), the JSON summary and --rows-out.
#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.h"

namespace tgsim::cli_test {
namespace {

// Times are round numbers, not measurements: the test checks the plumbing, not the accuracy.
constexpr const char* kMeasurements =
    "op,gpu,dtype,M,N,K,order,batch,heads,seq_q,seq_kv,head_dim,kernel,time_us,source\n"
    "gemm,h200,bf16,256,256,256,row,,,,,,,10,test\n"
    "gemm,h200,fp16,512,1024,256,row,,,,,,,20,test\n"
    "gemm,h200,bf16,1024,1024,1024,row,,,,,,nvjet_sm90_tst_128x128_64x4_1x2_h_bz_coopA_TNT,30,\"test, quoted\"\n"
    "grouped_gemm,h200,bf16,,,,,1,16,1024,1024,128,,40,test\n"
    "gemm,h200,bf16,256,256,256,row,,,,,,\"not_a_kernel<1, 2>\",10,test\n";

class CliValidate : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    csv_ = tmp("m.csv");
    write_text(csv_, kMeasurements);
  }
  std::filesystem::path csv_;
};

TEST_F(CliValidate, JsonSummary) {
  const RunResult r = run_tgsim("validate --measurements " + shell_quote(csv_) + " --json --jobs 2");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  for (const char* key : {"rows", "simulated", "skipped", "mape_pct", "max_ape_pct", "pearson_r", "by_op"}) {
    EXPECT_TRUE(j.contains(key)) << "missing \"" << key << "\" in\n" << j.dump(2);
  }
  EXPECT_EQ(j.value("rows", -1), 5);
  EXPECT_EQ(j.value("simulated", -1), 3);
  EXPECT_EQ(j.value("skipped", -1), 2);
  EXPECT_GE(j.value("max_ape_pct", -1.0), j.value("mape_pct", -2.0));
  ASSERT_TRUE(j["by_op"].contains("gemm") && j["by_op"].contains("grouped_gemm")) << j["by_op"].dump(2);
  EXPECT_EQ(j["by_op"]["gemm"].value("simulated", -1), 3);
  EXPECT_EQ(j["by_op"]["gemm"].value("skipped", -1), 1);
  EXPECT_EQ(j["by_op"]["grouped_gemm"].value("skipped", -1), 1);
}

TEST_F(CliValidate, TextReportsSkippedRowsWithReasons) {
  const RunResult r = run_tgsim("validate --measurements " + shell_quote(csv_));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("5 rows, 3 simulated, 2 skipped"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("grouped_gemm row without experts, tokens_per_expert (or M), N and K"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not_a_kernel<1, 2>"), std::string::npos) << r.out;
}

TEST_F(CliValidate, RowsOutHasPredictionsAndKeepsQuoting) {
  const auto rows = tmp("rows.csv");
  const RunResult r = run_tgsim("validate --measurements " + shell_quote(csv_) + " --rows-out " + shell_quote(rows));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string text = read_text(rows);
  const std::string header = text.substr(0, text.find('\n'));
  EXPECT_EQ(header.rfind("op,gpu,dtype,M,N,K,", 0), 0u) << header;  // the input columns first
  for (const char* col : {"predicted_us", "ape_pct", "category", "skip_reason"})
    EXPECT_NE(header.find(col), std::string::npos) << header;
  EXPECT_EQ(count_lines(text), 6) << text;
  EXPECT_NE(text.find("\"not_a_kernel<1, 2>\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"test, quoted\""), std::string::npos) << text;
}

TEST_F(CliValidate, BadCsvIsBadInputAndWritesNothing) {
  const auto bad = tmp("ragged.csv"), rows = tmp("rows.csv");
  write_text(bad, "op,gpu,M,N,K,time_us\ngemm,h200,128,128,128,5\ngemm,h200,128\n");
  const RunResult r = run_tgsim("validate --measurements " + shell_quote(bad) + " --rows-out " + shell_quote(rows));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("ragged.csv:3"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(rows));
}

// --plot runs tools/plot/validation_plot.py with /usr/bin/python3 (Debian's python3-matplotlib).
bool have_matplotlib() { return std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0; }

TEST_F(CliValidate, PlotWritesAPng) {
  if (!have_matplotlib()) GTEST_SKIP() << "/usr/bin/python3 with matplotlib not found";
  const auto png = tmp("v.png");
  const RunResult r = run_tgsim("validate --measurements " + shell_quote(csv_) + " --plot " + shell_quote(png));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_text(png).substr(0, 8), "\x89PNG\r\n\x1a\n");
}

TEST_F(CliValidate, PlotScriptRejectsBadInputClearly) {
  if (!have_matplotlib()) GTEST_SKIP() << "/usr/bin/python3 with matplotlib not found";
  const auto bad = tmp("not_rows.csv"), png = tmp("v.png"), err = tmp("err.txt");
  write_text(bad, "op,time_us\ngemm,5\n");
  const std::string cmd = "/usr/bin/python3 " + shell_quote(source("tools/plot/validation_plot.py")) + " " + shell_quote(bad) +
                          " " + shell_quote(png) + " 2>" + shell_quote(err);
  const int status = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << status;
  EXPECT_NE(read_text(err).find("predicted_us"), std::string::npos) << read_text(err);
  EXPECT_FALSE(std::filesystem::exists(png));
}

}  // namespace
}  // namespace tgsim::cli_test
