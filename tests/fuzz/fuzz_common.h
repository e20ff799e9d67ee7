// Shared by the fuzz targets (tests/fuzz, docs/reliability.md): the input as text or JSON, and
// the rule every target follows — bad input may throw InputError (or SimulationError for a graph
// that cannot finish); anything else (another exception, a crash, a sanitizer report, a hang)
// is a bug.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/units/error.h"

namespace tgsim::fuzz {

inline std::string text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

inline std::optional<nlohmann::json> json(const std::uint8_t* data, std::size_t size) {
  auto j = nlohmann::json::parse(text(data, size), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

// Runs `f`, swallowing the errors bad input is allowed to raise.
template <typename F>
void expect_only_input_errors(F&& f) {
  try {
    f();
  } catch (const InputError&) {
  } catch (const SimulationError&) {
  }
}

}  // namespace tgsim::fuzz
