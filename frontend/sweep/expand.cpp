#include "frontend/sweep/expand.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace tgsim::sweep {
namespace {

// Uniform in [0, 1) from 53 random bits (std::uniform_real_distribution is not the same on every
// standard library; this is).
double unit_uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

nlohmann::json draw(const RandomParam& p, std::mt19937_64& rng) {
  const double u = unit_uniform(rng);
  if (!p.choices.empty()) {
    const auto n = p.choices.size();
    return p.choices[std::min(n - 1, static_cast<std::size_t>(u * static_cast<double>(n)))];
  }
  if (p.integer) {
    const double lo = std::ceil(p.min), hi = std::floor(p.max);
    double v = p.log ? std::floor(std::exp(std::log(lo) + u * (std::log(hi + 1) - std::log(lo))))
                     : std::floor(lo + u * (hi - lo + 1));
    v = std::clamp(v, lo, hi);
    if (p.unit.empty()) return static_cast<std::int64_t>(v);
    return fmt::format("{}{}", static_cast<std::int64_t>(v), p.unit);
  }
  const double x =
      p.log ? std::exp(std::log(p.min) + u * (std::log(p.max) - std::log(p.min))) : p.min + u * (p.max - p.min);
  // Four significant digits: readable cells, and the cell is exactly what was simulated.
  const double v = std::clamp(std::stod(fmt::format("{:.4g}", x)), p.min, p.max);
  if (p.unit.empty()) return v;
  return fmt::format("{}{}", v, p.unit);
}

}  // namespace

std::int64_t point_count(const SweepSpec& s) {
  std::int64_t n = std::max<std::int64_t>(1, static_cast<std::int64_t>(s.cases.size()));
  for (const auto& g : s.grid) n *= static_cast<std::int64_t>(g.size());
  return n * std::max<std::int64_t>(1, s.samples);
}

std::vector<std::vector<nlohmann::json>> random_samples(const SweepSpec& s) {
  std::vector<std::vector<nlohmann::json>> out;
  std::mt19937_64 rng(s.seed);
  for (std::int64_t i = 0; i < s.samples; ++i) {
    std::vector<nlohmann::json> sample;
    for (const auto& p : s.random) sample.push_back(draw(p, rng));
    out.push_back(std::move(sample));
  }
  return out;
}

std::vector<Point> expand(const SweepSpec& s) {
  const auto samples = random_samples(s);
  const std::int64_t n = point_count(s);
  const std::int64_t per_case = n / std::max<std::int64_t>(1, static_cast<std::int64_t>(s.cases.size()));
  const std::int64_t n_samples = std::max<std::int64_t>(1, s.samples);
  std::vector<Point> points(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    Point& p = points[static_cast<std::size_t>(i)];
    p.index = i;
    if (!s.cases.empty()) {
      const auto& c = s.cases[static_cast<std::size_t>(i / per_case)];
      p.values.insert(p.values.end(), c.begin(), c.end());
    }
    // Grid digits: the last grid column varies fastest (after the samples).
    std::int64_t rest = (i % per_case) / n_samples;
    std::vector<nlohmann::json> grid_values(s.grid.size());
    for (std::size_t g = s.grid.size(); g-- > 0;) {
      const auto size = static_cast<std::int64_t>(s.grid[g].size());
      grid_values[g] = s.grid[g][static_cast<std::size_t>(rest % size)];
      rest /= size;
    }
    p.values.insert(p.values.end(), grid_values.begin(), grid_values.end());
    if (!samples.empty()) {
      const auto& r = samples[static_cast<std::size_t>(i % n_samples)];
      p.values.insert(p.values.end(), r.begin(), r.end());
    }
  }
  return points;
}

std::string value_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

PointInputs resolve_point(const SweepSpec& s, const Point& p) {
  PointInputs in;
  in.params = s.base;
  in.gpu = s.gpu;
  in.overrides = s.set;
  for (std::size_t c = 0; c < s.columns.size(); ++c) {
    const std::string& name = s.columns[c];
    if (name == "gpu") {
      in.gpu = p.values[c].get<std::string>();
    } else if (name.rfind("set.", 0) == 0) {
      in.overrides.push_back(name.substr(4) + "=" + value_text(p.values[c]));
    } else {
      in.params[name] = p.values[c];
    }
  }
  // FNV-1a over a canonical form (nlohmann::json sorts object keys).
  const std::string canon =
      nlohmann::json{{"op", s.op}, {"gpu", in.gpu}, {"params", in.params}, {"set", in.overrides}}.dump();
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : canon) h = (h ^ c) * 0x100000001b3ULL;
  in.key = fmt::format("{:016x}", h);
  return in;
}

}  // namespace tgsim::sweep
