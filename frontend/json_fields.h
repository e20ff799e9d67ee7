// Small readers for the flat JSON objects of schedule files (GEMM and attention): the value, or
// an InputError naming the file and JSON path with what was expected.
#pragma once

#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/units/error.h"

namespace tgsim::frontend {

inline int json_int(const nlohmann::json& v, const std::string& where, int lo, int hi) {
  if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
    throw InputError(fmt::format("{}: expected an integer in [{}, {}], got {}", where, lo, hi, v.dump()));
  return v.get<int>();
}

inline bool json_bool(const nlohmann::json& v, const std::string& where) {
  if (!v.is_boolean()) throw InputError(fmt::format("{}: expected true or false, got {}", where, v.dump()));
  return v.get<bool>();
}

}  // namespace tgsim::frontend
