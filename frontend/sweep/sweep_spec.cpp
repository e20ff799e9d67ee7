#include "frontend/sweep/sweep_spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "sim/units/error.h"

namespace tgsim::sweep {
namespace {

using ojson = nlohmann::ordered_json;

// Reading one spec document; every failure names the file and the JSON pointer.
class Reader {
 public:
  Reader(std::string origin, const Evaluator& ev) : origin_(std::move(origin)) {
    for (const auto& p : ev.params()) kinds_[p.name] = p.kind;
  }

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw InputError(fmt::format("{}: {}: {}", origin_, path, what));
  }

  // An op parameter, "gpu" or "set.<key>"; `path` is where the name appears.
  void check_name(const std::string& name, const std::string& path) const {
    if (name == "gpu" || (name.rfind("set.", 0) == 0 && name.size() > 4) || kinds_.count(name)) return;
    std::vector<std::string> known;
    for (const auto& [k, _] : kinds_) known.push_back(k);
    fail(path, fmt::format("unknown parameter \"{}\" (the op's parameters: {}; also gpu and set.<spec key>)", name,
                           fmt::join(known, ", ")));
  }

  void check_value(const std::string& name, const ojson& v, const std::string& path) const {
    const auto it = kinds_.find(name);
    if (it == kinds_.end()) {  // gpu, set.*
      if (name == "gpu" && !v.is_string()) fail(path, "expected a GPU preset name or spec file (a string)");
      if (!v.is_primitive() && !v.is_array()) fail(path, "expected a number, a string or an array");
      if (v.is_null()) fail(path, "expected a value, got null");
      return;
    }
    switch (it->second) {
      case ParamKind::integer:
        if (!v.is_number_integer()) fail(path, fmt::format("expected an integer, got {}", v.dump()));
        break;
      case ParamKind::boolean:
        if (!v.is_boolean() && !(v.is_number_integer() && (v == 0 || v == 1)))
          fail(path, fmt::format("expected true or false, got {}", v.dump()));
        break;
      case ParamKind::text:
        if (!v.is_string()) fail(path, fmt::format("expected a string, got {}", v.dump()));
        break;
    }
  }

  ParamKind kind(const std::string& name) const {
    const auto it = kinds_.find(name);
    return it == kinds_.end() ? ParamKind::text : it->second;
  }
  bool is_op_param(const std::string& name) const { return kinds_.count(name) > 0; }

  const ojson& object(const ojson& v, const std::string& path) const {
    if (!v.is_object()) fail(path, "expected an object");
    return v;
  }
  const ojson& array(const ojson& v, const std::string& path) const {
    if (!v.is_array() || v.empty()) fail(path, "expected a non-empty array");
    return v;
  }

 private:
  std::string origin_;
  std::map<std::string, ParamKind> kinds_;
};

std::string pointer(const std::string& parent, const std::string& key) {
  std::string k;
  for (char c : key) k += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
  return parent + "/" + k;
}

double number(const Reader& rd, const ojson& v, const std::string& path) {
  if (!v.is_number()) rd.fail(path, fmt::format("expected a number, got {}", v.dump()));
  return v.get<double>();
}

RandomParam read_random_param(const Reader& rd, const std::string& name, const ojson& v, const std::string& path) {
  rd.object(v, path);
  RandomParam p;
  p.name = name;
  for (const auto& [key, _] : v.items()) {
    static const std::set<std::string> kKeys = {"choices", "min", "max", "log", "int", "unit"};
    if (!kKeys.count(key)) rd.fail(pointer(path, key), "unknown key (choices, or min, max, log, int, unit)");
  }
  if (v.contains("choices")) {
    if (v.size() != 1) rd.fail(path, "\"choices\" goes alone (no min, max, log, int, unit)");
    const auto& c = rd.array(v["choices"], path + "/choices");
    for (std::size_t i = 0; i < c.size(); ++i) {
      rd.check_value(name, c[i], fmt::format("{}/choices/{}", path, i));
      p.choices.push_back(c[i]);
    }
    return p;
  }
  if (!v.contains("min") || !v.contains("max")) rd.fail(path, "expected {\"min\", \"max\"} or {\"choices\": [...]}");
  p.min = number(rd, v["min"], path + "/min");
  p.max = number(rd, v["max"], path + "/max");
  if (p.min > p.max) rd.fail(path + "/max", "is below min");
  const auto flag = [&](const char* key) {
    if (!v.contains(key)) return false;
    if (!v[key].is_boolean()) rd.fail(pointer(path, key), "expected true or false");
    return v[key].get<bool>();
  };
  p.log = flag("log");
  p.integer = flag("int");
  if (p.log && p.min <= 0) rd.fail(path + "/min", "must be positive for a log range");
  if (v.contains("unit")) {
    if (!v["unit"].is_string()) rd.fail(path + "/unit", "expected a unit string such as \"TB/s\"");
    p.unit = v["unit"].get<std::string>();
  }
  const bool set_key = !rd.is_op_param(name) && name != "gpu";
  if (!set_key && rd.kind(name) != ParamKind::integer) rd.fail(path, "a range needs an integer parameter; use choices");
  if (!set_key && !p.unit.empty()) rd.fail(path + "/unit", "only set.<key> parameters take a unit");
  if (rd.kind(name) == ParamKind::integer && rd.is_op_param(name)) p.integer = true;
  if (p.integer && std::ceil(p.min) > std::floor(p.max)) rd.fail(path, "no integer between min and max");
  return p;
}

void read_swept(const Reader& rd, const ojson& doc, SweepSpec& s, std::set<std::string>& seen) {
  const auto add_column = [&](const std::string& name, const std::string& path) {
    rd.check_name(name, path);
    if (!seen.insert(name).second) rd.fail(path, fmt::format("\"{}\" is swept twice", name));
    s.columns.push_back(name);
  };
  if (doc.contains("cases")) {
    const auto& cases = rd.array(doc["cases"], "/cases");
    rd.object(cases[0], "/cases/0");
    for (const auto& [name, _] : cases[0].items()) add_column(name, pointer("/cases/0", name));
    s.case_columns = s.columns.size();
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const std::string path = fmt::format("/cases/{}", i);
      rd.object(cases[i], path);
      std::vector<nlohmann::json> values;
      for (std::size_t c = 0; c < s.case_columns; ++c) {
        const std::string& name = s.columns[c];
        if (!cases[i].contains(name))
          rd.fail(path, fmt::format("missing \"{}\" (every case states the same keys)", name));
        rd.check_value(name, cases[i][name], pointer(path, name));
        values.push_back(nlohmann::json::parse(cases[i][name].dump()));
      }
      if (cases[i].size() != s.case_columns) rd.fail(path, "states keys that /cases/0 does not");
      s.cases.push_back(std::move(values));
    }
  }
  if (doc.contains("grid")) {
    for (const auto& [name, values] : rd.object(doc["grid"], "/grid").items()) {
      const std::string path = pointer("/grid", name);
      add_column(name, path);
      std::vector<nlohmann::json> vs;
      for (std::size_t i = 0; i < rd.array(values, path).size(); ++i) {
        rd.check_value(name, values[i], fmt::format("{}/{}", path, i));
        vs.push_back(nlohmann::json::parse(values[i].dump()));
      }
      s.grid.push_back(std::move(vs));
    }
  }
  if (doc.contains("random")) {
    const auto& r = rd.object(doc["random"], "/random");
    for (const auto& [key, _] : r.items())
      if (key != "samples" && key != "seed" && key != "params")
        rd.fail(pointer("/random", key), "unknown key (samples, seed, params)");
    if (!r.contains("samples") || !r["samples"].is_number_integer() || r["samples"].get<std::int64_t>() < 1)
      rd.fail("/random/samples", "expected a positive integer");
    s.samples = r["samples"].get<std::int64_t>();
    if (r.contains("seed")) {
      if (!r["seed"].is_number_unsigned()) rd.fail("/random/seed", "expected a non-negative integer");
      s.seed = r["seed"].get<std::uint64_t>();
    }
    if (!r.contains("params") || !r["params"].is_object() || r["params"].empty())
      rd.fail("/random/params", "expected an object of parameter ranges");
    for (const auto& [name, v] : r["params"].items()) {
      const std::string path = pointer("/random/params", name);
      add_column(name, path);
      s.random.push_back(read_random_param(rd, name, v, path));
    }
  }
}

}  // namespace

SweepSpec parse_sweep_spec(const ojson& doc, const std::string& origin, const EvaluatorRegistry& ops) {
  if (!doc.is_object()) throw InputError(fmt::format("{}: expected a JSON object", origin));
  static const std::set<std::string> kKeys = {"description", "op", "gpu", "base", "set", "cases", "grid", "random"};
  for (const auto& [key, _] : doc.items())
    if (!kKeys.count(key))
      throw InputError(
          fmt::format("{}: {}: unknown key (valid: {})", origin, pointer("", key), fmt::join(kKeys, ", ")));
  if (!doc.contains("op") || !doc["op"].is_string())
    throw InputError(fmt::format("{}: /op: expected the op to sweep (known: {})", origin, fmt::join(ops.ops(), ", ")));
  SweepSpec s;
  s.origin = origin;
  s.dir = std::filesystem::path(origin).parent_path().string();
  s.op = doc["op"].get<std::string>();
  const Reader rd(origin, ops.get(s.op, origin + ": /op"));
  if (doc.contains("gpu")) {
    if (!doc["gpu"].is_string()) rd.fail("/gpu", "expected a GPU preset name or spec file");
    s.gpu = doc["gpu"].get<std::string>();
  }
  if (doc.contains("base")) {
    for (const auto& [name, v] : rd.object(doc["base"], "/base").items()) {
      const std::string path = pointer("/base", name);
      if (!rd.is_op_param(name)) {
        if (name == "gpu" || name.rfind("set.", 0) == 0)
          rd.fail(path, "state the GPU and its overrides in /gpu and /set");
        rd.check_name(name, path);
      }
      rd.check_value(name, v, path);
      s.base[name] = nlohmann::json::parse(v.dump());
    }
  }
  if (doc.contains("set")) {
    for (const auto& [key, v] : rd.object(doc["set"], "/set").items()) {
      rd.check_value("set." + key, v, pointer("/set", key));
      s.set.push_back(key + "=" + (v.is_string() ? v.get<std::string>() : v.dump()));
    }
  }
  std::set<std::string> seen;
  read_swept(rd, doc, s, seen);
  if (s.columns.empty()) rd.fail("", "nothing to sweep: give \"cases\", \"grid\" or \"random\"");
  double total = static_cast<double>(std::max<std::size_t>(1, s.cases.size())) *
                 static_cast<double>(std::max<std::int64_t>(1, s.samples));
  for (const auto& g : s.grid) total *= static_cast<double>(g.size());
  if (total > static_cast<double>(kMaxPoints))
    rd.fail("", fmt::format("{:.0f} points, more than the limit of {}", total, kMaxPoints));
  return s;
}

SweepSpec read_sweep_spec(const std::string& file, const EvaluatorRegistry& ops) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open the sweep spec", file));
  ojson doc;
  try {
    doc = ojson::parse(in);
  } catch (const ojson::parse_error& e) {
    throw InputError(fmt::format("{}: not valid JSON: {}", file, e.what()));
  }
  return parse_sweep_spec(doc, file, ops);
}

}  // namespace tgsim::sweep
