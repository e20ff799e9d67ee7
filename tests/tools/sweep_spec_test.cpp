// The sweep library without the program: spec errors name the JSON path, expansion order and
// counts (cases x grid x random), random points fixed by the seed.
#include "frontend/sweep/sweep_spec.h"

#include <gtest/gtest.h>

#include "frontend/sweep/expand.h"
#include "sim/units/error.h"

namespace tgsim::sweep {
namespace {

using ojson = nlohmann::ordered_json;

SweepSpec parse(const std::string& text) {
  EvaluatorRegistry ops;
  register_builtin_evaluators(ops);
  return parse_sweep_spec(ojson::parse(text), "spec.json", ops);
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

constexpr const char* kGridRandom = R"({"op": "gemm", "base": {"k": 256},
  "grid": {"m": [64, 128], "dtype": ["bf16", "fp16", "fp8_e4m3"]},
  "random": {"samples": 5, "seed": 7, "params": {"n": {"min": 64, "max": 4096, "log": true, "int": true},
                                                   "set.hbm.bandwidth": {"min": 2, "max": 5, "unit": "TB/s"}}}})";

TEST(SweepSpec, GridTimesRandomInIndexOrder) {
  const SweepSpec s = parse(kGridRandom);
  EXPECT_EQ(s.columns, (std::vector<std::string>{"m", "dtype", "n", "set.hbm.bandwidth"}));
  const auto points = expand(s);
  ASSERT_EQ(points.size(), 2u * 3u * 5u);
  EXPECT_EQ(point_count(s), 30);
  for (std::size_t i = 0; i < points.size(); ++i) EXPECT_EQ(points[i].index, static_cast<std::int64_t>(i));
  // The first grid column is the slowest, the random samples the fastest.
  EXPECT_EQ(points[0].values[0], 64);
  EXPECT_EQ(points[14].values[0], 64);
  EXPECT_EQ(points[15].values[0], 128);
  EXPECT_EQ(points[0].values[1], "bf16");
  EXPECT_EQ(points[5].values[1], "fp16");
  EXPECT_EQ(points[0].values[2], points[5].values[2]);  // the same samples for every grid point
  for (const auto& p : points) {
    const auto n = p.values[2].get<std::int64_t>();
    EXPECT_TRUE(n >= 64 && n <= 4096) << n;
    const std::string bw = p.values[3].get<std::string>();
    EXPECT_EQ(bw.substr(bw.size() - 4), "TB/s") << bw;
  }
  const PointInputs in = resolve_point(s, points[7]);
  EXPECT_EQ(in.params["k"], 256);
  EXPECT_EQ(in.overrides.size(), 1u);
  EXPECT_EQ(in.key.size(), 16u);
  EXPECT_NE(in.key, resolve_point(s, points[8]).key);
}

TEST(SweepSpec, RandomPointsAreFixedBySeed) {
  const auto a = expand(parse(kGridRandom)), b = expand(parse(kGridRandom));
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].values, b[i].values);
  std::string other = kGridRandom;
  other.replace(other.find("\"seed\": 7"), 9, "\"seed\": 8");
  const auto c = expand(parse(other));
  bool differs = false;
  for (std::size_t i = 0; i < a.size(); ++i) differs = differs || a[i].values != c[i].values;
  EXPECT_TRUE(differs);
}

TEST(SweepSpec, CasesAreOneDimension) {
  const SweepSpec s = parse(R"({"op": "gemm", "base": {"m": 64, "n": 64, "k": 64},
    "cases": [{"set.sm.count": 132, "gpu": "h100"}, {"set.sm.count": 120, "gpu": "h200"}], "grid": {"k": [64, 128, 256]}})");
  const auto points = expand(s);
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[3].values[1], "h200");
  EXPECT_EQ(resolve_point(s, points[3]).gpu, "h200");
  EXPECT_EQ(resolve_point(s, points[3]).overrides, (std::vector<std::string>{"sm.count=120"}));
}

TEST(SweepSpec, ErrorsNameTheJsonPath) {
  EXPECT_NE(error_of(R"({"op": "gemm", "grid": {"m": [64, "x"]}})").find("spec.json: /grid/m/1: expected an integer"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"op": "gemm", "grid": {"mm": [64]}})").find("/grid/mm: unknown parameter \"mm\""),
            std::string::npos);
  EXPECT_NE(error_of(R"({"op": "conv", "grid": {"m": [1]}})").find("/op: unknown op \"conv\" (known: attention, gemm)"),
            std::string::npos);
  EXPECT_NE(
      error_of(R"({"op": "gemm", "grid": {"m": [1]}, "random": {"samples": 2, "params": {"m": {"min": 1, "max": 2}}}})")
          .find("/random/params/m: \"m\" is swept twice"),
      std::string::npos);
  EXPECT_NE(error_of(R"({"op": "gemm", "random": {"samples": 0, "params": {}}})").find("/random/samples"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"op": "gemm", "grid": {"dtype": [{"min": 1}]}})").find("/grid/dtype/0: expected a string"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"op": "gemm", "gird": {}})").find("/gird: unknown key"), std::string::npos);
  EXPECT_NE(error_of(R"({"op": "gemm", "base": {"m": 1}})").find("nothing to sweep"), std::string::npos);
  EXPECT_NE(error_of(R"({"op": "attention", "random": {"samples": 3, "params": {"causal": {"min": 0, "max": 1}}}})")
                .find("/random/params/causal: a range needs an integer parameter"),
            std::string::npos);
}

}  // namespace
}  // namespace tgsim::sweep
