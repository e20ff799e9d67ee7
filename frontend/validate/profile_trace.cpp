#include "frontend/validate/profile_trace.h"

#include <algorithm>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/units/error.h"

namespace tgsim::validate {
namespace {

// Field readers that tolerate a field of the wrong type (a trace is untrusted input).
std::string str_field(const nlohmann::json& e, const char* key) {
  const auto it = e.find(key);
  return it != e.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double num_field(const nlohmann::json& e, const char* key) {
  const auto it = e.find(key);
  return it != e.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::vector<std::int64_t> to_dims(const nlohmann::json& j) {
  std::vector<std::int64_t> d;
  if (!j.is_array()) return d;
  for (const auto& x : j) {
    if (x.is_number_integer()) d.push_back(x.get<std::int64_t>());
  }
  return d;
}

ProfiledOp read_op(const nlohmann::json& e) {
  ProfiledOp op;
  op.name = str_field(e, "name");
  const auto& args = e.contains("args") ? e["args"] : nlohmann::json::object();
  if (args.contains("Input Dims") && args["Input Dims"].is_array()) {
    for (const auto& in : args["Input Dims"]) {
      std::vector<std::vector<std::int64_t>> list;
      if (in.is_array() && !in.empty() && in[0].is_array()) {
        for (const auto& t : in) list.push_back(to_dims(t));
      }
      op.dims.push_back(list.empty() ? to_dims(in) : list.front());
      op.list_dims.push_back(std::move(list));
    }
  }
  if (args.contains("Input type") && args["Input type"].is_array()) {
    for (const auto& t : args["Input type"]) op.types.push_back(t.is_string() ? t.get<std::string>() : "");
  }
  if (args.contains("Concrete Inputs") && args["Concrete Inputs"].is_array()) {
    for (const auto& c : args["Concrete Inputs"]) op.concrete.push_back(c.is_string() ? c.get<std::string>() : "");
  }
  return op;
}

}  // namespace

std::string normalize_kernel_name(const std::string& name) {
  std::string s = name;
  if (s.rfind("void ", 0) == 0) s = s.substr(5);
  // Drop a trailing parameter list: the last '(' at template depth 0 whose ')' ends the name.
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    if (s[i] == '>') --depth;
    if (s[i] == '(' && depth == 0 && i > 0 && !s.empty() && s.back() == ')') return s.substr(0, i);
  }
  return s;
}

std::vector<ProfiledLaunch> read_profile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open profile", path));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(fmt::format("{}: invalid JSON: {}", path, e.what()));
  }
  return parse_profile(j, path);
}

std::vector<ProfiledLaunch> parse_profile(const nlohmann::json& j, const std::string& path) {
  const nlohmann::json* events = nullptr;
  if (j.is_object() && j.contains("traceEvents") && j["traceEvents"].is_array()) events = &j["traceEvents"];
  else if (j.is_array()) events = &j;
  if (!events) throw InputError(fmt::format("{}: not a Chrome trace (no /traceEvents array)", path));
  // Innermost op per External id: the shortest CPU op carrying it.
  std::map<std::int64_t, std::pair<double, ProfiledOp>> ops;
  std::vector<ProfiledKernel> kernels;
  for (const auto& e : *events) {
    if (!e.is_object()) continue;
    const std::string cat = str_field(e, "cat");
    const auto& args = e.contains("args") && e["args"].is_object() ? e["args"] : nlohmann::json::object();
    const std::int64_t ext = args.contains("External id") && args["External id"].is_number_integer()
                                 ? args["External id"].get<std::int64_t>()
                                 : -1;
    if (cat == "cpu_op" && ext >= 0) {
      const double dur = num_field(e, "dur");
      auto it = ops.find(ext);
      if (it == ops.end() || dur < it->second.first) ops[ext] = {dur, read_op(e)};
    } else if (cat == "kernel") {
      ProfiledKernel k{str_field(e, "name"), num_field(e, "ts"), num_field(e, "dur"), ext};
      const auto dims3 = [&](const char* key, std::array<int, 3>& out) {
        if (!args.contains(key) || !args[key].is_array() || args[key].size() != 3) return;
        for (std::size_t d = 0; d < 3; ++d) out[d] = args[key][d].is_number_integer() ? args[key][d].get<int>() : 0;
      };
      dims3("grid", k.grid);
      dims3("block", k.block);
      kernels.push_back(std::move(k));
    }
  }
  if (kernels.empty()) throw InputError(fmt::format("{}: no GPU kernel events (record with CUDA activity)", path));
  std::stable_sort(kernels.begin(), kernels.end(), [](const auto& a, const auto& b) { return a.ts_us < b.ts_us; });
  std::vector<ProfiledLaunch> out;
  for (auto& k : kernels) {
    if (!out.empty() && k.external_id >= 0 && out.back().kernels.back().external_id == k.external_id) {
      out.back().kernels.push_back(std::move(k));
      continue;
    }
    ProfiledLaunch l;
    if (auto it = ops.find(k.external_id); it != ops.end()) l.op = it->second.second;
    l.kernels.push_back(std::move(k));
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace tgsim::validate
