// From a SweepSpec to its points. A point's index is its position in the expanded list —
// cases (slowest), then the grid columns in spec order, then the random samples (fastest) — so
// it depends only on the spec, never on threads, shards or earlier runs.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frontend/sweep/sweep_spec.h"

namespace tgsim::sweep {

struct Point {
  std::int64_t index = 0;
  std::vector<nlohmann::json> values;  // one per SweepSpec::columns
};

// What one point runs: the op's parameters (base merged with the point), the GPU and its
// overrides (the spec's "set", then the point's set.* values), and a key that fingerprints all of
// it (16 hex digits; written with each row so --resume and --merge notice a changed spec).
struct PointInputs {
  nlohmann::json params;
  std::string gpu;
  std::vector<std::string> overrides;
  std::string key;
};

std::int64_t point_count(const SweepSpec& s);

// The random samples, the same for every case and grid point: a 64-bit Mersenne Twister seeded
// with `seed`, parameters drawn in spec order, so a seed gives the same points on every platform.
std::vector<std::vector<nlohmann::json>> random_samples(const SweepSpec& s);

// All points (indices 0 .. point_count - 1).
std::vector<Point> expand(const SweepSpec& s);

PointInputs resolve_point(const SweepSpec& s, const Point& p);

// The text of a value in a CSV cell and in a --set override: strings as written, other values as JSON.
std::string value_text(const nlohmann::json& v);

}  // namespace tgsim::sweep
