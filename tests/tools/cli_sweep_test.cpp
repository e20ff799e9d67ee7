// `tgsim sweep` end to end on tiny GEMMs: byte-identical output for 1 and N threads, shards that
// partition the points and merge back, error rows, refusing foreign or existing files, and
// resuming after a truncated file, SIGINT and repeated SIGKILLs.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/tools/cli_runner.h"

extern char** environ;

namespace tgsim::cli_test {
namespace {

// 4 x 3 x 10 = 120 small GEMMs (a few ms each).
constexpr const char* kSpec = R"({"op": "gemm", "gpu": "h100", "base": {"k": 256},
  "grid": {"m": [64, 128, 256, 512], "dtype": ["bf16", "fp16", "fp8_e4m3"]},
  "random": {"samples": 10, "seed": 3, "params": {"n": {"min": 64, "max": 1024, "log": true, "int": true}}}})";

// 6 x 20 = 120 larger GEMMs (about 0.6 s on two threads): long enough to interrupt.
constexpr const char* kSlowSpec = R"({"op": "gemm", "gpu": "h100", "base": {"k": 2048},
  "grid": {"m": [512, 1024, 2048], "dtype": ["bf16", "fp8_e4m3"]},
  "random": {"samples": 20, "seed": 3, "params": {"n": {"min": 512, "max": 4096, "log": true, "int": true}}}})";

class CliSweep : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    spec_ = tmp("spec.json");
    write_text(spec_, kSpec);
  }
  RunResult sweep(const std::string& args) { return run_tgsim("sweep " + shell_quote(spec_) + " " + args); }
  // The uninterrupted result, one thread.
  std::string reference() {
    const auto ref = tmp("ref.csv");
    const RunResult r = sweep("--out " + shell_quote(ref) + " --jobs 1");
    EXPECT_EQ(r.code, 0) << r.err;
    return read_text(ref);
  }
  std::filesystem::path spec_;
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    out.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

TEST_F(CliSweep, OneAndFourThreadsGiveTheSameBytes) {
  const std::string ref = reference();
  const auto out = tmp("four.csv");
  const RunResult r = sweep("--out " + shell_quote(out) + " --jobs 4");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_text(out), ref);
  const auto lines = lines_of(ref);
  ASSERT_EQ(lines.size(), 121u);
  EXPECT_EQ(lines[0], "index,m,dtype,n,latency_us,tflops,bottleneck,gpu,simulated_schedule,error,key");
  EXPECT_EQ(lines[1].rfind("0,64,bf16,", 0), 0u) << lines[1];
  EXPECT_NE(r.out.find("120 points"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");  // no progress line when stderr is not a terminal
}

TEST_F(CliSweep, ShardsPartitionThePointsAndMergeBack) {
  const std::string ref = reference();
  std::set<std::string> seen;
  std::string files;
  for (int k = 0; k < 3; ++k) {
    const auto part = tmp("part" + std::to_string(k) + ".csv");
    const RunResult r = sweep("--out " + shell_quote(part) + " --shard " + std::to_string(k) + "/3 --jobs 2");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto lines = lines_of(read_text(part));
    EXPECT_EQ(lines.size(), 41u);
    for (std::size_t i = 1; i < lines.size(); ++i) {
      EXPECT_EQ(std::stoi(lines[i]) % 3, k) << lines[i];
      EXPECT_TRUE(seen.insert(lines[i]).second) << "in two shards: " << lines[i];
    }
    files += " " + shell_quote(part);
  }
  EXPECT_EQ(seen.size(), 120u);
  const auto all = tmp("all.csv");
  const RunResult m = run_tgsim("sweep " + shell_quote(spec_) + " --merge" + files + " --out " + shell_quote(all));
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_EQ(read_text(all), ref);
  // Two of three shards: the spec says what is missing.
  const RunResult partial = run_tgsim("sweep " + shell_quote(spec_) + " --merge " + shell_quote(tmp("part0.csv")) +
                                      " " + shell_quote(tmp("part1.csv")) + " --out " + shell_quote(tmp("x.csv")));
  EXPECT_EQ(partial.code, 2);
  EXPECT_NE(partial.err.find("40 of 120 points are missing (the first is point 2)"), std::string::npos) << partial.err;
  const RunResult bad_shard = sweep("--out " + shell_quote(tmp("y.csv")) + " --shard 3/3");
  EXPECT_EQ(bad_shard.code, 2);
  EXPECT_NE(bad_shard.err.find("--shard 3/3: need 0 <= K < N"), std::string::npos) << bad_shard.err;
}

TEST_F(CliSweep, ResumeDropsAGarbledTailAndMatchesAnUninterruptedRun) {
  const std::string ref = reference();
  const auto lines = lines_of(ref);
  // Rows finish out of order: keep every third row, in reverse, then a row cut in the middle.
  std::string partial = lines[0] + "\n";
  for (std::size_t i = lines.size() - 1; i >= 1; i -= 3) partial += lines[i] + "\n";
  partial += lines[5].substr(0, lines[5].size() / 2);
  const auto out = tmp("out.csv");
  write_text(out, partial);
  const RunResult r = sweep("--out " + shell_quote(out) + " --resume --jobs 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("dropped an unfinished last line"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kept 40 finished rows"), std::string::npos) << r.err;
  EXPECT_EQ(read_text(out), ref);
  // A complete but garbled last line is dropped too; one in the middle is refused.
  write_text(out, lines[0] + "\n" + lines[1] + "\n" + "7,garbage\n");
  const RunResult g = sweep("--out " + shell_quote(out) + " --resume");
  ASSERT_EQ(g.code, 0) << g.err;
  EXPECT_NE(g.err.find("out.csv:3: dropped an unreadable last line"), std::string::npos) << g.err;
  EXPECT_EQ(read_text(out), ref);
  write_text(out, lines[0] + "\n" + "7,garbage\n" + lines[1] + "\n");
  const RunResult mid = sweep("--out " + shell_quote(out) + " --resume");
  EXPECT_EQ(mid.code, 2);
  EXPECT_NE(mid.err.find("out.csv:2: unreadable row"), std::string::npos) << mid.err;
  EXPECT_EQ(count_lines(mid.err), 1) << mid.err;
}

TEST_F(CliSweep, RefusesExistingAndForeignFiles) {
  const auto out = tmp("out.csv");
  write_text(out, "index,m,latency_us\n");
  const RunResult exists = sweep("--out " + shell_quote(out));
  EXPECT_EQ(exists.code, 2);
  EXPECT_NE(exists.err.find("the file exists; add --resume to finish that run, or --force to overwrite it"),
            std::string::npos)
      << exists.err;
  const RunResult header = sweep("--out " + shell_quote(out) + " --resume");
  EXPECT_EQ(header.code, 2);
  EXPECT_NE(header.err.find("its header does not match the spec"), std::string::npos) << header.err;
  EXPECT_EQ(read_text(out), "index,m,latency_us\n");  // refused files are left alone
  // A row written for another spec (same header, different base k): its key differs.
  const std::string ref = reference();
  write_text(out, lines_of(ref)[0] + "\n" + lines_of(ref)[1] + "\n" + lines_of(ref)[2] + "\n");
  std::string other = kSpec;
  other.replace(other.find("\"k\": 256"), 8, "\"k\": 512");
  write_text(spec_, other);
  const RunResult changed = sweep("--out " + shell_quote(out) + " --resume");
  EXPECT_EQ(changed.code, 2);
  EXPECT_NE(changed.err.find("the spec changed since this file was written"), std::string::npos) << changed.err;
  const RunResult forced = sweep("--out " + shell_quote(out) + " --force");
  EXPECT_EQ(forced.code, 0) << forced.err;
}

TEST_F(CliSweep, FailingPointsBecomeErrorRows) {
  write_text(spec_, R"({"op": "gemm", "gpu": "h100", "base": {"m": 128, "n": 128, "k": 128},
    "grid": {"kernel": ["", "not_a_kernel"], "set.hbm.bandwidth": ["3TB/s", "fast"]}})");
  const auto out = tmp("out.csv");
  const RunResult r = sweep("--out " + shell_quote(out));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("3 errors"), std::string::npos) << r.out;
  const auto lines = lines_of(read_text(out));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_NE(lines[1].find(",h100,"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("fast"), std::string::npos) << lines[2];
  EXPECT_NE(lines[3].find("kernel \"\"not_a_kernel\"\" is not supported"), std::string::npos) << lines[3];
}

TEST_F(CliSweep, BadSpecIsOneLineNamingTheJsonPath) {
  write_text(spec_, R"({"op": "gemm", "grid": {"m": [64, -1.5]}})");
  const RunResult r = sweep("--out " + shell_quote(tmp("out.csv")));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("spec.json: /grid/m/1: expected an integer"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(tmp("out.csv")));
}

TEST_F(CliSweep, PlotScriptDrawsLinesAndHeatmaps) {
  if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "/usr/bin/python3 with matplotlib not found";
  const auto out = tmp("out.csv");
  ASSERT_EQ(sweep("--out " + shell_quote(out)).code, 0);
  const std::string plot =
      "/usr/bin/python3 " + shell_quote(source("tools/plot/sweep_plot.py")) + " " + shell_quote(out) + " ";
  ASSERT_EQ(std::system((plot + shell_quote(tmp("l.png")) + " --x n --line m --logx --where dtype=bf16").c_str()), 0);
  ASSERT_EQ(std::system((plot + shell_quote(tmp("h.png")) + " --x m --heatmap dtype --value tflops").c_str()), 0);
  EXPECT_EQ(read_text(tmp("l.png")).substr(0, 8), "\x89PNG\r\n\x1a\n");
  EXPECT_EQ(read_text(tmp("h.png")).substr(0, 8), "\x89PNG\r\n\x1a\n");
  const int status = std::system((plot + shell_quote(tmp("x.png")) + " --x nope 2>/dev/null").c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << status;
}

// Starts tgsim with `args`; returns its pid.
pid_t spawn_tgsim(const std::vector<std::string>& args, const std::filesystem::path& err) {
  std::vector<std::string> all = {TGSIM_BIN};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, TGSIM_BIN, &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_F(CliSweep, SigintSavesTheRowsAndResumeFinishes) {
  write_text(spec_, kSlowSpec);
  const std::string ref = reference();
  const auto out = tmp("out.csv"), err = tmp("err.txt");
  const pid_t pid = spawn_tgsim({"sweep", spec_.string(), "--out", out.string(), "--jobs", "2"}, err);
  // Once a row is in the file the handler is installed (rows are appended only while it is).
  for (int i = 0; i < 2000 && count_lines(read_text(out)) < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  kill(pid, SIGINT);
  const int code = wait_for(pid);
  if (code == 0) GTEST_SKIP() << "the sweep finished before SIGINT arrived";
  EXPECT_EQ(code, 130) << read_text(err);
  EXPECT_NE(read_text(err).find("run the same command with --resume to finish"), std::string::npos) << read_text(err);
  const RunResult r = sweep("--out " + shell_quote(out) + " --resume --jobs 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_text(out), ref);
}

// The hardening issue's test, small: SIGKILL at random moments, resume, repeat; every row ends
// up exactly once and the file equals an uninterrupted run.
TEST_F(CliSweep, RepeatedSigkillsThenResumeGiveTheUninterruptedResult) {
  write_text(spec_, kSlowSpec);
  const std::string ref = reference();
  const auto out = tmp("out.csv"), err = tmp("err.txt");
  std::mt19937 rng(12345);  // fixed: the same kill times on every run of the test
  int killed = 0;
  std::vector<int> rows_seen;  // lines in the file after each kill
  for (int attempt = 0; attempt < 24; ++attempt) {
    std::vector<std::string> args = {"sweep", spec_.string(), "--out", out.string(), "--jobs", "2"};
    if (attempt > 0) args.push_back("--resume");
    // Kill once the file holds a random number of rows (so the kill lands mid-sweep however fast
    // the machine is), or after 5 s.
    const int before = std::filesystem::exists(out) ? count_lines(read_text(out)) : 0;
    const int target = before + std::uniform_int_distribution<int>(1, 12)(rng);
    const pid_t pid = spawn_tgsim(args, err);
    for (int i = 0; i < 5000 && count_lines(std::filesystem::exists(out) ? read_text(out) : std::string()) < target; ++i)
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    kill(pid, SIGKILL);
    const int code = wait_for(pid);
    ASSERT_TRUE(code == 128 + SIGKILL || code == 0) << code << " " << read_text(err);
    killed += code != 0;
    if (std::filesystem::exists(out)) rows_seen.push_back(count_lines(read_text(out)));
  }
  const RunResult r = sweep("--out " + shell_quote(out) + " --resume --jobs 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_text(out), ref);
  EXPECT_GT(killed, 0);
  // Some kills landed mid-sweep (rows written, not all of them).
  EXPECT_TRUE(std::any_of(rows_seen.begin(), rows_seen.end(), [](int n) { return n > 1 && n < 121; }))
      << ::testing::PrintToString(rows_seen);
}

}  // namespace
}  // namespace tgsim::cli_test
