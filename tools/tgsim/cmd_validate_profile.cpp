// `tgsim validate --profile TRACE.json`: replay a PyTorch profile kernel by kernel
// (frontend/validate/profile_replay.h) and print the comparison.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "frontend/validate/profile_replay.h"
#include "sim/graph/graph_size.h"
#include "sim/units/atomic_file.h"
#include "sim/units/error.h"
#include "tools/tgsim/cli_common.h"

namespace tgsim::cli {
namespace {

nlohmann::json to_json(const validate::ReplayReport& r, const std::string& path, const std::string& gpu) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& k : r.rows) {
    rows.push_back({{"op", k.op}, {"category", k.category}, {"kernels", k.kernels}, {"kernel_count", k.kernel_count},
                    {"shape", k.shape}, {"schedule", k.schedule}, {"measured_us", k.measured_us},
                    {"predicted_us", k.simulated ? nlohmann::json(k.predicted_us) : nlohmann::json(nullptr)},
                    {"simulated", k.simulated}, {"reason", k.reason}});
  }
  return {{"profile", path},
          {"gpu", gpu},
          {"measured_total_us", r.measured_total_us},
          {"predicted_total_us", r.predicted_total_us},
          {"measured_covered_us", r.measured_covered_us},
          {"predicted_covered_us", r.predicted_covered_us},
          {"coverage_pct", r.coverage_pct},
          {"covered_error_pct", r.covered_error_pct},
          {"kernels", rows}};
}

void print_text(const validate::ReplayReport& r, const std::string& path, const std::string& gpu) {
  std::cout << fmt::format("profile replay of {} on {}: {} launches\n\n", path, gpu, r.rows.size());
  struct Sum {
    int n = 0;
    double measured = 0, predicted = 0;
  };
  std::map<std::string, Sum> by;
  for (const auto& k : r.rows) {
    auto& s = by[k.simulated ? k.category : "not simulated"];
    ++s.n;
    s.measured += k.measured_us;
    s.predicted += k.simulated ? k.predicted_us : 0;
  }
  std::cout << fmt::format("{:<15} {:>8} {:>13} {:>13} {:>8}\n", "category", "launches", "measured us", "predicted us", "error");
  for (const auto& [c, s] : by) {
    if (c == "not simulated") {
      std::cout << fmt::format("{:<15} {:>8} {:>13.1f} {:>13} {:>8}\n", c, s.n, s.measured, "-", "-");
    } else {
      std::cout << fmt::format("{:<15} {:>8} {:>13.1f} {:>13.1f} {:>+7.1f}%\n", c, s.n, s.measured, s.predicted,
                               100.0 * (s.predicted - s.measured) / s.measured);
    }
  }
  std::cout << fmt::format("\nmeasured kernel time   {:.1f} us\ncoverage               {:.1f}% of it simulated\n"
                           "simulated part         {:.1f} us measured, {:.1f} us predicted ({:+.1f}%)\n"
                           "predicted total        {:.1f} us (unsimulated kernels at their measured time)\n",
                           r.measured_total_us, r.coverage_pct, r.measured_covered_us, r.predicted_covered_us,
                           r.covered_error_pct, r.predicted_total_us);
  std::vector<const validate::ReplayRow*> missing;
  for (const auto& k : r.rows) {
    if (!k.simulated) missing.push_back(&k);
  }
  if (!missing.empty()) {
    std::cout << "\nnot simulated (measured time, reason):\n";
    for (const auto* k : missing) std::cout << fmt::format("  {:>9.2f} us  {}  {}\n", k->measured_us, k->op, k->reason);
  }
}

}  // namespace

void run_profile_validation(const Context& ctx, const ProfileValidationOptions& o) {
  const hw::GpuSpec spec = load_gpu(ctx, GpuOptions{o.gpu, o.overrides});
  // A JSON document takes roughly ten times its size in memory once parsed.
  std::error_code ec;
  const auto file_bytes = std::filesystem::file_size(o.profile, ec);
  const double limit = o.limits.max_memory_bytes;
  if (!ec && limit > 0 && 10.0 * static_cast<double>(file_bytes) > limit)
    throw InputError(fmt::format("{}: a {:.1f} GB profile needs about {:.0f} GB to read, more than --max-memory; "
                                 "trim the trace (profile fewer steps) or raise --max-memory",
                                 o.profile, static_cast<double>(file_bytes) / 1e9, 10.0 * static_cast<double>(file_bytes) / 1e9));
  const auto launches = validate::read_profile(o.profile);
  const bool progress = ::isatty(STDERR_FILENO) != 0;
  const auto rep = validate::replay_profile(
      launches, spec, o.jobs,
      [progress](int d, int n) {
        if (progress) std::cerr << fmt::format("\rvalidate: {}/{} launches", d, n) << (d == n ? "\n" : "") << std::flush;
      },
      o.limits);
  const auto j = to_json(rep, o.profile, o.gpu);
  if (!o.rows_out.empty()) write_file_atomically(o.rows_out, j["kernels"].dump(2) + "\n");
  if (o.json) {
    std::cout << j.dump(2) << "\n";
  } else {
    print_text(rep, o.profile, o.gpu);
  }
}

}  // namespace tgsim::cli
