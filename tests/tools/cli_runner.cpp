#include "tests/tools/cli_runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace tgsim::cli_test {

std::string shell_quote(const std::filesystem::path& p) {
  std::string out = "'";
  for (char c : p.string()) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

std::filesystem::path source(const std::string& relative) { return std::filesystem::path(TGSIM_SOURCE_DIR) / relative; }

int count_lines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n' ? 1 : 0;
  if (!text.empty() && text.back() != '\n') ++n;
  return n;
}

RunResult run_tgsim(const std::string& args) {
  static int counter = 0;
  const auto base = std::filesystem::temp_directory_path() /
                    ("tgsim_cli_capture_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  const auto out = base.string() + ".out", err = base.string() + ".err";
  const std::string cmd =
      shell_quote(TGSIM_BIN) + " " + args + " </dev/null >" + shell_quote(out) + " 2>" + shell_quote(err);
  const int status = std::system(cmd.c_str());
  RunResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_text(out);
  r.err = read_text(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

void CliTest::SetUp() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  dir_ = std::filesystem::temp_directory_path() /
         ("tgsim_cli_test_" + std::to_string(::getpid()) + "_" + info->test_suite_name() + "_" + info->name());
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
}

void CliTest::TearDown() { std::filesystem::remove_all(dir_); }

}  // namespace tgsim::cli_test
