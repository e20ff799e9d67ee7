#include "frontend/moe/routing.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/units/error.h"

namespace tgsim::moe {
namespace {

// Largest-remainder apportionment of `total` over `weights`, each count at most `cap`; the
// excess of capped experts goes to the others in weight order. Ties: the lower expert.
std::vector<std::int64_t> apportion(const std::vector<double>& weights, std::int64_t total, std::int64_t cap) {
  const std::size_t n = weights.size();
  std::vector<std::int64_t> out(n, 0);
  std::vector<bool> full(n, false);
  std::int64_t left = total;
  while (left > 0) {
    double sum = 0;
    for (std::size_t e = 0; e < n; ++e) sum += full[e] ? 0.0 : weights[e];
    if (sum <= 0) break;
    std::vector<std::pair<double, std::size_t>> rem;
    std::int64_t given = 0;
    for (std::size_t e = 0; e < n; ++e) {
      if (full[e]) continue;
      const double share = static_cast<double>(left) * weights[e] / sum;
      const auto whole = static_cast<std::int64_t>(std::floor(share));
      const std::int64_t add = std::min(whole, cap - out[e]);
      out[e] += add;
      given += add;
      rem.emplace_back(-(share - static_cast<double>(whole)), e);
    }
    std::stable_sort(rem.begin(), rem.end());
    for (const auto& [r, e] : rem) {
      if (given >= left) break;
      if (out[e] < cap) {
        ++out[e];
        ++given;
      }
    }
    for (std::size_t e = 0; e < n; ++e) full[e] = out[e] >= cap;
    if (given == 0) break;
    left -= given;
  }
  return out;
}

std::vector<std::vector<std::int64_t>> read_file(const std::filesystem::path& path, int gpus, int experts) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("--routing: cannot read \"{}\"", path.string()));
  std::vector<std::vector<std::int64_t>> t(static_cast<std::size_t>(gpus),
                                           std::vector<std::int64_t>(static_cast<std::size_t>(experts), 0));
  if (path.extension() == ".json") {
    nlohmann::json j;
    try {
      in >> j;
    } catch (const std::exception& e) {
      throw InputError(fmt::format("{}: not JSON: {}", path.string(), e.what()));
    }
    const auto& rows = j.contains("tokens") ? j["tokens"] : nlohmann::json();
    if (!rows.is_array() || rows.size() != static_cast<std::size_t>(gpus))
      throw InputError(fmt::format("{}: /tokens: expected {} arrays (one per source GPU)", path.string(), gpus));
    for (std::size_t s = 0; s < rows.size(); ++s) {
      if (!rows[s].is_array() || rows[s].size() != static_cast<std::size_t>(experts))
        throw InputError(fmt::format("{}: /tokens/{}: expected {} counts (one per expert)", path.string(), s, experts));
      for (std::size_t e = 0; e < rows[s].size(); ++e) {
        if (!rows[s][e].is_number_integer() || rows[s][e].get<std::int64_t>() < 0)
          throw InputError(fmt::format("{}: /tokens/{}/{}: expected a count >= 0", path.string(), s, e));
        t[s][e] = rows[s][e].get<std::int64_t>();
      }
    }
    return t;
  }
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#' || line.rfind("src", 0) == 0) continue;
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream row(line);
    long long s = -1, e = -1, n = -1;
    if (!(row >> s >> e >> n) || s < 0 || s >= gpus || e < 0 || e >= experts || n < 0)
      throw InputError(fmt::format("{}:{}: expected src,expert,tokens with src < {} and expert < {}", path.string(),
                                   number, gpus, experts));
    t[static_cast<std::size_t>(s)][static_cast<std::size_t>(e)] += n;
  }
  return t;
}

}  // namespace

Routing make_routing(const std::string& spec, int gpus, int experts, int top_k, std::int64_t tokens_per_gpu) {
  if (gpus < 1 || experts < 1 || top_k < 1 || top_k > experts || tokens_per_gpu < 1)
    throw InputError("routing needs gpus, experts, tokens >= 1 and 1 <= top_k <= experts");
  Routing r;
  r.spec = spec;
  const std::int64_t pairs = tokens_per_gpu * top_k;
  std::vector<double> w(static_cast<std::size_t>(experts), 1.0);
  if (spec == "uniform") {
    // Even spread; the remainder rotates with the source so the totals stay even too.
    for (int s = 0; s < gpus; ++s) {
      std::vector<std::int64_t> row(static_cast<std::size_t>(experts), pairs / experts);
      for (std::int64_t i = 0; i < pairs % experts; ++i) ++row[static_cast<std::size_t>((s + i) % experts)];
      r.tokens.push_back(std::move(row));
    }
    return r;
  }
  if (spec.rfind("zipf:", 0) == 0) {
    double exponent = -1;
    try {
      std::size_t used = 0;
      exponent = std::stod(spec.substr(5), &used);
      if (used != spec.size() - 5) exponent = -1;
    } catch (const std::exception&) {
      exponent = -1;
    }
    if (!(exponent >= 0 && exponent <= 10))
      throw InputError(fmt::format("--routing \"{}\": zipf:S needs 0 <= S <= 10", spec));
    for (int e = 0; e < experts; ++e) w[static_cast<std::size_t>(e)] = 1.0 / std::pow(e + 1.0, exponent);
    for (int s = 0; s < gpus; ++s) r.tokens.push_back(apportion(w, pairs, tokens_per_gpu));
    return r;
  }
  if (!std::filesystem::exists(spec))
    throw InputError(fmt::format("--routing \"{}\": expected uniform, zipf:S or an existing JSON/CSV file", spec));
  r.tokens = read_file(spec, gpus, experts);
  for (int s = 0; s < gpus; ++s) {
    const auto& row = r.tokens[static_cast<std::size_t>(s)];
    const std::int64_t sum = std::accumulate(row.begin(), row.end(), std::int64_t{0});
    if (sum != pairs)
      throw InputError(fmt::format("{}: source GPU {} routes {} token-expert pairs; --tokens {} x top-k {} = {}", spec, s,
                                   sum, tokens_per_gpu, top_k, pairs));
    for (std::int64_t n : row) {
      if (n > tokens_per_gpu)
        throw InputError(fmt::format("{}: source GPU {} sends {} tokens to one expert, more than its {} tokens", spec, s,
                                     n, tokens_per_gpu));
    }
  }
  return r;
}

}  // namespace tgsim::moe
