// A sweep spec (docs/sweeps.md): which op, which GPU, the fixed parameters, and the swept ones —
// explicit cases, a cartesian grid, random samples — read once into plain structs. Every error
// names the spec file and the JSON pointer.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frontend/sweep/evaluator.h"

namespace tgsim::sweep {

struct RandomParam {
  std::string name;
  std::vector<nlohmann::json> choices;  // non-empty: pick one of these
  double min = 0, max = 0;              // otherwise a range (inclusive)
  bool log = false;                     // log-uniform instead of uniform
  bool integer = false;                 // round down to an integer
  std::string unit;                     // appended to the number ("TB/s"): the value becomes a string
};

struct SweepSpec {
  std::string origin;  // the spec file, for messages
  std::string dir;     // its folder: relative schedule files are resolved against it
  std::string op;
  std::string gpu = "h100";
  nlohmann::json base = nlohmann::json::object();  // op parameters every point shares
  std::vector<std::string> set;                    // GPU overrides every point shares ("key=value")

  // Swept parameters, in column order: the cases' keys, then the grid's, then the random ones.
  // A name is an op parameter, "gpu", or "set.<spec key>".
  std::vector<std::string> columns;
  std::vector<std::vector<nlohmann::json>> cases;  // each case: values of the first case_columns columns
  std::size_t case_columns = 0;
  std::vector<std::vector<nlohmann::json>> grid;  // per grid column: its values
  std::vector<RandomParam> random;
  std::int64_t samples = 0;  // random samples (0: no random part)
  std::uint64_t seed = 0;
};

// Points in a sweep: cases x grid values x random samples (each factor 1 when absent).
inline constexpr std::int64_t kMaxPoints = 100'000'000;

SweepSpec parse_sweep_spec(const nlohmann::ordered_json& doc, const std::string& origin, const EvaluatorRegistry& ops);
SweepSpec read_sweep_spec(const std::string& file, const EvaluatorRegistry& ops);

}  // namespace tgsim::sweep
