// Measurement CSV (RFC 4180), PyTorch profiler traces, and sweep specs.
#include "frontend/sweep/evaluator.h"
#include "frontend/sweep/sweep_spec.h"
#include "frontend/validate/measurements.h"
#include "frontend/validate/profile_trace.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string s = tgsim::fuzz::text(data, size);
  tgsim::fuzz::expect_only_input_errors([&] {
    const auto t = tgsim::validate::parse_csv(s, "fuzz");
    for (const auto& row : t.rows) {
      for (const auto& c : t.columns) row.number(c, "fuzz");
    }
  });
  const auto j = tgsim::fuzz::json(data, size);
  if (!j) return 0;
  tgsim::fuzz::expect_only_input_errors([&] { tgsim::validate::parse_profile(*j, "fuzz"); });
  static const tgsim::sweep::EvaluatorRegistry ops = [] {
    tgsim::sweep::EvaluatorRegistry r;
    tgsim::sweep::register_builtin_evaluators(r);
    return r;
  }();
  tgsim::fuzz::expect_only_input_errors([&] {
    const auto oj = nlohmann::ordered_json::parse(s, nullptr, false);
    if (!oj.is_discarded()) tgsim::sweep::parse_sweep_spec(oj, "fuzz", ops);
  });
  return 0;
}
