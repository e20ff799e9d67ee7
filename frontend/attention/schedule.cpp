#include "frontend/attention/schedule.h"

#include <fstream>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "sim/hw/json_reader.h"
#include "frontend/json_fields.h"
#include "sim/units/error.h"

namespace tgsim::attention {
namespace {

const std::map<std::string, Family> kFamilies{
    {"fa2", Family::fa2}, {"fa3", Family::fa3}, {"cudnn", Family::cudnn}, {"cudnn_sm80", Family::cudnn_sm80}};

int as_int(const nlohmann::json& v, const std::string& where, int lo, int hi) { return frontend::json_int(v, where, lo, hi); }
bool as_bool(const nlohmann::json& v, const std::string& where) { return frontend::json_bool(v, where); }

}  // namespace

std::string_view to_string(Family f) {
  for (const auto& [n, v] : kFamilies) {
    if (v == f) return n;
  }
  return "?";
}

void set_cudnn_sm90_structure(Schedule& s) {
  s.family = Family::cudnn;
  s.consumer_warpgroups = 2;
  s.stages = 4;
  s.intra_warpgroup_overlap = false;
  s.pingpong = true;
  s.pingpong_exp = true;
  s.persistent = true;  // grid of 132 CTAs on the H200 (launch records, attention_kernel_info.csv)
}

nlohmann::json to_json(const Schedule& s) {
  return {{"name", s.name},
          {"family", to_string(s.family)},
          {"block_m", s.block_m},
          {"block_n", s.block_n},
          {"warps", s.warps},
          {"warps_along_kv", s.warps_along_kv},
          {"consumer_warpgroups", s.consumer_warpgroups},
          {"stages", s.stages},
          {"intra_warpgroup_overlap", s.intra_warpgroup_overlap},
          {"pingpong", s.pingpong},
          {"pingpong_exp", s.pingpong_exp},
          {"q_in_registers", s.q_in_registers},
          {"splits", s.splits},
          {"split_kernel", s.split_kernel},
          {"pack_gqa", s.pack_gqa},
          {"longest_first", s.longest_first},
          {"persistent", s.persistent}};
}

Schedule schedule_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(fmt::format("{}: expected a JSON object with schedule fields", where));
  static const std::vector<std::string> keys{"name", "family", "block_m", "block_n", "warps", "warps_along_kv", "consumer_warpgroups",
                                             "stages", "intra_warpgroup_overlap", "pingpong", "pingpong_exp", "q_in_registers",
                                             "splits", "split_kernel", "pack_gqa", "longest_first", "persistent"};
  Schedule s;
  s.name = where;
  for (const auto& [key, v] : j.items()) {
    const std::string at = fmt::format("{}: /{}", where, key);
    if (key == "name") {
      if (!v.is_string()) throw InputError(at + ": expected a string");
      s.name = v.get<std::string>();
    } else if (key == "family") {
      const auto it = v.is_string() ? kFamilies.find(v.get<std::string>()) : kFamilies.end();
      if (it == kFamilies.end())
        throw InputError(fmt::format("{}: expected fa2, fa3, cudnn or cudnn_sm80, got {}", at, v.dump()));
      s.family = it->second;
    } else if (key == "block_m") s.block_m = as_int(v, at, 16, 512);
    else if (key == "block_n") s.block_n = as_int(v, at, 16, 512);
    else if (key == "warps") s.warps = as_int(v, at, 1, 16);
    else if (key == "warps_along_kv") s.warps_along_kv = as_bool(v, at);
    else if (key == "consumer_warpgroups") s.consumer_warpgroups = as_int(v, at, 1, 4);
    else if (key == "stages") s.stages = as_int(v, at, 1, 8);
    else if (key == "intra_warpgroup_overlap") s.intra_warpgroup_overlap = as_bool(v, at);
    else if (key == "pingpong") s.pingpong = as_bool(v, at);
    else if (key == "pingpong_exp") s.pingpong_exp = as_bool(v, at);
    else if (key == "q_in_registers") s.q_in_registers = as_bool(v, at);
    else if (key == "splits") s.splits = as_int(v, at, 0, 256);
    else if (key == "split_kernel") s.split_kernel = as_bool(v, at);
    else if (key == "pack_gqa") s.pack_gqa = as_bool(v, at);
    else if (key == "longest_first") s.longest_first = as_bool(v, at);
    else if (key == "persistent") s.persistent = as_bool(v, at);
    else {
      const std::string hint = hw::closest_match(key, keys);
      throw InputError(fmt::format("{}: unknown key{} (valid: {})", at, hint.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", hint),
                                   fmt::join(keys, ", ")));
    }
  }
  if (s.family == Family::fa3 || s.family == Family::cudnn) {
    if (s.block_m % (64 * s.consumer_warpgroups) != 0)
    throw InputError(fmt::format("{}: /block_m {} must be a multiple of 64 x consumer_warpgroups ({})", where, s.block_m,
                                 64 * s.consumer_warpgroups));
  } else if (s.persistent) {
    throw InputError(fmt::format("{}: /persistent: persistent CTAs are modelled for the fa3 and cudnn families only", where));
  }
  return s;
}

Schedule load_schedule_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open schedule file", path));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(fmt::format("{}: invalid JSON: {}", path, e.what()));
  }
  return schedule_from_json(j, path);
}

}  // namespace tgsim::attention
