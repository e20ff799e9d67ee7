#include "frontend/gemm/schedule_json.h"

#include <fstream>
#include <map>

#include <fmt/format.h>

#include "frontend/json_fields.h"
#include "sim/units/error.h"

namespace tgsim::gemm {
namespace {

template <typename E>
E parse_enum(const nlohmann::json& v, const std::map<std::string, E>& names, const std::string& where) {
  if (v.is_string()) {
    auto it = names.find(v.get<std::string>());
    if (it != names.end()) return it->second;
  }
  std::string valid;
  for (const auto& [n, _] : names) valid += (valid.empty() ? "" : ", ") + n;
  throw InputError(fmt::format("{}: expected one of {}, got {}", where, valid, v.dump()));
}

int as_int(const nlohmann::json& v, const std::string& where, int lo, int hi) { return frontend::json_int(v, where, lo, hi); }
bool as_bool(const nlohmann::json& v, const std::string& where) { return frontend::json_bool(v, where); }

DType as_dtype(const nlohmann::json& v, const std::string& where) {
  if (v.is_string()) {
    if (auto t = parse_dtype(v.get<std::string>())) return *t;
  }
  throw InputError(fmt::format("{}: expected a dtype (fp32, tf32, fp16, bf16, fp8_e4m3, fp8_e5m2), got {}", where, v.dump()));
}

const std::map<std::string, Family> kFamilies{{"ampere_multistage", Family::ampere_multistage},
                                               {"hopper_warpspecialized", Family::hopper_warpspecialized},
                                               {"blackwell_tcgen05", Family::blackwell_tcgen05}};
const std::map<std::string, WarpSpecialization> kWs{{"none", WarpSpecialization::none},
                                                     {"cooperative", WarpSpecialization::cooperative},
                                                     {"pingpong", WarpSpecialization::pingpong}};
const std::map<std::string, Epilogue> kEpilogue{{"store", Epilogue::store}, {"bias_activation", Epilogue::bias_activation}};
const std::map<std::string, Raster> kRaster{
    {"along_m", Raster::along_m}, {"along_n", Raster::along_n}, {"heuristic", Raster::heuristic}};

template <typename E>
std::string_view enum_name(E e, const std::map<std::string, E>& names) {
  for (const auto& [n, v] : names) {
    if (v == e) return n;
  }
  return "?";
}

}  // namespace

std::string_view to_string(Family f) { return enum_name(f, kFamilies); }
std::string_view to_string(WarpSpecialization w) { return enum_name(w, kWs); }

Schedule parse_schedule(const nlohmann::json& j, std::string_view origin) {
  if (!j.is_object()) throw InputError(fmt::format("{}: expected a JSON object with schedule fields", origin));
  Schedule s;
  s.name = std::string(origin);
  for (const auto& [key, v] : j.items()) {
    const std::string where = fmt::format("{}: /{}", origin, key);
    if (key == "family") s.family = parse_enum(v, kFamilies, where);
    else if (key == "tile") {
      if (!v.is_array() || v.size() != 3) throw InputError(where + ": expected [m, n, k]");
      s.tile = {as_int(v[0], where + "/0", 1, 1024), as_int(v[1], where + "/1", 1, 1024), as_int(v[2], where + "/2", 1, 1024)};
    } else if (key == "stages") s.stages = as_int(v, where, 1, 16);
    else if (key == "warp_specialization") s.warp_specialization = parse_enum(v, kWs, where);
    else if (key == "consumer_warpgroups") s.consumer_warpgroups = as_int(v, where, 1, 4);
    else if (key == "warps") s.warps = as_int(v, where, 1, 32);
    else if (key == "cluster") {
      if (!v.is_array() || v.size() != 2) throw InputError(where + ": expected [m, n]");
      s.cluster = {as_int(v[0], where + "/0", 1, 16), as_int(v[1], where + "/1", 1, 16)};
    } else if (key == "tma_multicast") s.tma_multicast = as_bool(v, where);
    else if (key == "raster") s.raster = parse_enum(v, kRaster, where);
    else if (key == "swizzle") s.swizzle = as_int(v, where, 1, 64);
    else if (key == "persistent") s.persistent = as_bool(v, where);
    else if (key == "split_k") s.split_k = as_int(v, where, 1, 256);
    else if (key == "stream_k") s.stream_k = as_bool(v, where);
    else if (key == "two_sm") s.two_sm = as_bool(v, where);
    else if (key == "a_type") s.a_type = as_dtype(v, where);
    else if (key == "b_type") s.b_type = as_dtype(v, where);
    else if (key == "c_type") s.c_type = as_dtype(v, where);
    else if (key == "reads_c") s.reads_c = as_bool(v, where);
    else if (key == "epilogue") s.epilogue = parse_enum(v, kEpilogue, where);
    else if (key == "epilogue_tile") {
      if (!v.is_array() || v.size() != 2) throw InputError(where + ": expected [m, n] (or [0, 0]: one store per tile)");
      s.epilogue_tile_m = as_int(v[0], where + "/0", 0, 1024);
      s.epilogue_tile_n = as_int(v[1], where + "/1", 0, 1024);
      // CUTLASS's sub-tiles are at least 8 x 8; smaller ones would only multiply the graph
      for (int i = 0; i < 2; ++i) {
        const int x = i == 0 ? s.epilogue_tile_m : s.epilogue_tile_n;
        if (x != 0 && x < 8) throw InputError(fmt::format("{}/{}: expected 0 (one store per tile) or >= 8, got {}", where, i, x));
      }
    } else if (key == "epilogue_stages") s.epilogue_stages = as_int(v, where, 0, 16);
    else if (key == "grouped") s.grouped = as_bool(v, where);
    else if (key == "grouped_setup") s.grouped_setup = as_bool(v, where);
    else if (key == "swap_ab") s.swap_ab = as_bool(v, where);
    else if (key == "load_alignment") {
      s.load_alignment = as_int(v, where, 2, 16);
      if (s.load_alignment != 2 && s.load_alignment != 4 && s.load_alignment != 8 && s.load_alignment != 16)
        throw InputError(fmt::format("{}: expected 2, 4, 8 or 16 (bytes per thread per copy), got {}", where, s.load_alignment));
    }
    else if (key == "mma_k") {
      s.mma_k = as_int(v, where, 0, 16);
      if (s.mma_k != 0 && s.mma_k != 8 && s.mma_k != 16)
        throw InputError(fmt::format("{}: expected 0 (by type), 8 or 16, got {}", where, s.mma_k));
    } else if (key == "split_k_serial") s.split_k_serial = as_bool(v, where);
    else if (key == "name") {
      if (!v.is_string()) throw InputError(where + ": expected a string");
      s.name = v.get<std::string>();
    } else {
      throw InputError(fmt::format("{}: unknown key (valid: family, tile, stages, warp_specialization, "
                                   "consumer_warpgroups, warps, cluster, tma_multicast, raster, swizzle, persistent, "
                                   "split_k, stream_k, two_sm, a_type, b_type, c_type, reads_c, epilogue, epilogue_tile, "
                                   "epilogue_stages, grouped, grouped_setup, swap_ab, load_alignment, mma_k, split_k_serial, name)", where));
    }
  }
  return s;
}

Schedule read_schedule(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw InputError(fmt::format("{}: cannot open schedule file", file.string()));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(fmt::format("{}: invalid JSON: {}", file.string(), e.what()));
  }
  return parse_schedule(j, file.string());
}

nlohmann::json to_json(const Schedule& s) {
  return {{"name", s.name},
          {"family", to_string(s.family)},
          {"tile", {s.tile.m, s.tile.n, s.tile.k}},
          {"stages", s.stages},
          {"warp_specialization", to_string(s.warp_specialization)},
          {"consumer_warpgroups", s.consumer_warpgroups},
          {"warps", s.warps},
          {"cluster", {s.cluster.m, s.cluster.n}},
          {"tma_multicast", s.tma_multicast},
          {"raster", enum_name(s.raster, kRaster)},
          {"swizzle", s.swizzle},
          {"persistent", s.persistent},
          {"split_k", s.split_k},
          {"stream_k", s.stream_k},
          {"two_sm", s.two_sm},
          {"a_type", to_string(s.a_type)},
          {"b_type", to_string(s.b_type)},
          {"c_type", to_string(s.c_type)},
          {"reads_c", s.reads_c},
          {"epilogue", enum_name(s.epilogue, kEpilogue)},
          {"epilogue_tile", {s.epilogue_tile_m, s.epilogue_tile_n}},
          {"epilogue_stages", s.epilogue_stages},
          {"grouped", s.grouped},
          {"grouped_setup", s.grouped_setup},
          {"swap_ab", s.swap_ab},
          {"load_alignment", s.load_alignment},
          {"mma_k", s.mma_k},
          {"split_k_serial", s.split_k_serial}};
}

}  // namespace tgsim::gemm
