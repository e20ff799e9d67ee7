// Runs the built `tgsim` program (TGSIM_BIN) as a user would and captures what it printed.
#pragma once

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace tgsim::cli_test {

struct RunResult {
  int code = -1;  // exit status; -1 when killed by a signal
  std::string out;
  std::string err;
};

// `args` is appended to the program path as written (shell syntax; quote paths with shell_quote()).
// stdin is /dev/null.
RunResult run_tgsim(const std::string& args);

std::string shell_quote(const std::filesystem::path& p);
std::string read_text(const std::filesystem::path& p);
void write_text(const std::filesystem::path& p, const std::string& text);
// A path under the source tree, e.g. source("configs/graphs/pipeline.json").
std::filesystem::path source(const std::string& relative);
int count_lines(const std::string& text);

// Gives every test its own empty folder (removed afterwards), so tests can run in parallel.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  std::filesystem::path tmp(const std::string& name) const { return dir_ / name; }

 private:
  std::filesystem::path dir_;
};

}  // namespace tgsim::cli_test
