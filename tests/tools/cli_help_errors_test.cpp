// `tgsim` help and version, and bad input: exit code 2 with one line naming the problem and no
// output file left behind; a deadlocked graph: exit code 3 naming the stuck node.
#include <string>
#include <vector>

#include "tests/tools/cli_runner.h"

namespace tgsim::cli_test {
namespace {

using CliHelp = CliTest;
using CliBadInput = CliTest;

TEST_F(CliHelp, TopLevelAndEverySubcommandHelpExitZero) {
  const std::vector<std::string> commands = {"",        "gpus",       "run-graph", "gemm",
                                             "lower",   "lower gemm", "validate"};
  for (const auto& c : commands) {
    const RunResult r = run_tgsim(c + (c.empty() ? "" : " ") + "--help");
    EXPECT_EQ(r.code, 0) << "tgsim " << c << " --help\n" << r.err;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << "tgsim " << c << " --help\n" << r.out;
  }
}

TEST_F(CliHelp, ValidateNamesTheOpsItPredicts) {
  const RunResult r = run_tgsim("validate --help");
  for (const char* op : {"gemm", "grouped_gemm", "attention", "elementwise", "sm_split", "all_to_all", "all_reduce"}) {
    EXPECT_NE(r.out.find(op), std::string::npos) << op << "\n" << r.out;
  }
}

TEST_F(CliHelp, Version) {
  const RunResult r = run_tgsim("--version");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out.rfind("tgsim ", 0), 0u) << r.out;
  EXPECT_EQ(count_lines(r.out), 1) << r.out;
}

TEST_F(CliHelp, GpusListsThePresets) {
  const RunResult r = run_tgsim("gpus");
  EXPECT_EQ(r.code, 0) << r.err;
  for (const char* gpu : {"a100", "h100", "h200", "b200"}) EXPECT_NE(r.out.find(gpu), std::string::npos) << gpu;
}

// Runs `args`, which must fail as bad input: exit 2, one line on stderr containing `needle`,
// nothing on stdout, and `output` (a file the command was asked to write) not created.
void expect_bad_input(const std::string& args, const std::string& needle, const std::filesystem::path& output) {
  const RunResult r = run_tgsim(args);
  EXPECT_EQ(r.code, 2) << "tgsim " << args << "\nstderr: " << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << "tgsim " << args << "\nstderr: " << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "tgsim " << args << "\nstderr: " << r.err;
  EXPECT_EQ(r.out, "") << "tgsim " << args;
  EXPECT_FALSE(std::filesystem::exists(output)) << output << " was created by: tgsim " << args;
}

TEST_F(CliBadInput, MissingGraphFile) {
  const auto trace = tmp("trace.json");
  expect_bad_input("run-graph " + shell_quote(tmp("no_such_graph.json")) + " --json --trace " + shell_quote(trace),
                   "no_such_graph.json", trace);
}

TEST_F(CliBadInput, BadJson) {
  const auto graph = tmp("broken.json"), trace = tmp("trace.json");
  write_text(graph, "{\"format\": \"tgsim-tile-graph/1\", \"kernels\": [\n");
  expect_bad_input("run-graph " + shell_quote(graph) + " --trace " + shell_quote(trace), "broken.json", trace);
}

TEST_F(CliBadInput, UnknownGpu) {
  const auto trace = tmp("trace.json");
  expect_bad_input("run-graph " + shell_quote(source("configs/graphs/pipeline.json")) + " --gpu z9000 --trace " +
                       shell_quote(trace),
                   "z9000", trace);
  expect_bad_input("gemm --gpu z9000 --m 128 --n 128 --k 128 --trace " + shell_quote(trace), "z9000", trace);
}

TEST_F(CliBadInput, CyclicGraph) {
  const auto graph = tmp("cycle.json"), trace = tmp("trace.json");
  write_text(graph, R"({
  "format": "tgsim-tile-graph/1",
  "name": "cycle",
  "kernels": [{
    "name": "k",
    "cta": {"threads": 128},
    "templates": [{
      "name": "main",
      "roles": [{"name": "all", "warps": 4}],
      "nodes": [
        {"id": "first", "kind": "delay", "cycles": "10cycles"},
        {"id": "second", "kind": "delay", "cycles": "10cycles"}
      ],
      "edges": [{"from": "first", "to": "second", "kind": "order"}, {"from": "second", "to": "first", "kind": "order"}]
    }],
    "grid": [{"template": "main", "count": 1}]
  }]
})");
  expect_bad_input("run-graph " + shell_quote(graph) + " --json --trace " + shell_quote(trace), "cycle", trace);
  const RunResult r = run_tgsim("run-graph " + shell_quote(graph));
  EXPECT_NE(r.err.find("first"), std::string::npos) << r.err;  // names the nodes on the cycle
  EXPECT_NE(r.err.find("second"), std::string::npos) << r.err;
}

TEST_F(CliBadInput, BadSet) {
  const std::string graph = shell_quote(source("configs/graphs/pipeline.json"));
  const auto trace = tmp("trace.json");
  expect_bad_input("run-graph " + graph + " --set sm.count=many --trace " + shell_quote(trace), "sm.count", trace);
  expect_bad_input("run-graph " + graph + " --set no_such.key=1 --trace " + shell_quote(trace), "no_such", trace);
  expect_bad_input("run-graph " + graph + " --set sm.count --trace " + shell_quote(trace), "key=value", trace);
}

TEST_F(CliBadInput, LowerDoesNotWriteOnBadInput) {
  const auto out = tmp("graph.json");
  expect_bad_input("lower gemm --gpu z9000 --m 128 --n 128 --k 128 --out " + shell_quote(out), "z9000", out);
  expect_bad_input("lower gemm --gpu h200 --m 128 --n 128 --k 128 --dtype int3 --out " + shell_quote(out), "int3", out);
}

TEST_F(CliBadInput, BadFlagsAreOneLineToo) {
  const auto trace = tmp("trace.json");
  expect_bad_input("gemm --gpu h200 --m 128 --n 128 --trace " + shell_quote(trace), "--k", trace);
  expect_bad_input("run-graph " + shell_quote(source("configs/graphs/pipeline.json")) + " --bogus --trace " +
                       shell_quote(trace),
                   "--bogus", trace);
}

TEST_F(CliBadInput, DeadlockExitsThreeNamingTheStuckNode) {
  const auto trace = tmp("trace.json");
  const RunResult r = run_tgsim("run-graph " + shell_quote(source("configs/graphs/deadlock.json")) + " --trace " + shell_quote(trace));
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("deadlock"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\"wait\""), std::string::npos) << r.err;  // the node waiting on a flag nobody sets
  EXPECT_FALSE(std::filesystem::exists(trace));
}

}  // namespace
}  // namespace tgsim::cli_test
