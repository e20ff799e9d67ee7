// Reading validated plain structs out of a JSON config, with every error naming the file (or the
// --set override that caused it) and the JSON pointer. Used by spec_json.cpp; reusable for other
// configs (systems, schedules) that follow the same conventions:
//   - each object declares its keys up front; any other key is an error with a did-you-mean;
//   - a leaf is a plain value or {"value": ..., "source": "..."}; sources are collected by pointer.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/units/units.h"

namespace tgsim::hw {

// The closest of `candidates` to `word` if it is plausibly a typo, else empty.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

// Where a config came from, for messages, and what was learnt while reading it.
class ReadContext {
 public:
  // `overridden`: JSON pointer -> the "--set key=value" text that wrote it (json_overrides.h).
  ReadContext(std::string origin, std::map<std::string, std::string> overridden = {});

  // Throws InputError "<origin>: <pointer>: <message>", where origin is the --set override that
  // wrote `pointer` (or a parent or child of it), else the file.
  [[noreturn]] void fail(const std::string& pointer, std::string_view message) const;
  // "/sm/count", or "/sm/count (set by --set sm.count=120)" for messages about a second field.
  std::string describe(const std::string& pointer) const;

  std::map<std::string, std::string>& sources() { return sources_; }

 private:
  std::string origin_;
  std::map<std::string, std::string> overridden_;
  std::map<std::string, std::string> sources_;  // pointer -> "source" text of value/source leaves
};

// One JSON object with a fixed set of allowed keys. The constructor rejects unknown keys.
class ObjectReader {
 public:
  ObjectReader(const nlohmann::json& value, std::string pointer, ReadContext& ctx,
               const std::vector<std::string_view>& allowed_keys);

  const std::string& pointer() const { return pointer_; }
  std::string child(std::string_view key) const { return pointer_ + "/" + std::string(key); }
  bool has(std::string_view key) const;
  ReadContext& context() const { return *ctx_; }

  // A required sub-object.
  ObjectReader section(std::string_view key, const std::vector<std::string_view>& allowed_keys) const;
  // The raw sub-object (for maps with free keys, such as tensor.flops_per_cycle); required.
  const nlohmann::json& object(std::string_view key) const;

  // Required leaves. The "value" of a value/source object is unwrapped and its source recorded.
  std::string text(std::string_view key) const;
  std::int64_t integer(std::string_view key) const;
  int small_integer(std::string_view key) const;  // fits in int
  double number(std::string_view key) const;
  bool boolean(std::string_view key) const;
  std::vector<int> integer_list(std::string_view key) const;
  Bytes bytes(std::string_view key) const;
  BytesPerSecond bandwidth(std::string_view key) const;
  Hertz frequency(std::string_view key) const;
  Duration duration(std::string_view key) const;
  Cycles cycles(std::string_view key) const;
  double bytes_per_cycle(std::string_view key) const;

 private:
  const nlohmann::json& leaf(std::string_view key) const;
  template <typename Parse>
  auto unit_leaf(std::string_view key, Parse parse) const;

  const nlohmann::json* value_;
  std::string pointer_;
  ReadContext* ctx_;
  std::vector<std::string> allowed_;
};

// Unwraps a leaf that may be {"value": v, "source": s}; records s in ctx under `pointer`.
const nlohmann::json& unwrap_leaf(const nlohmann::json& node, const std::string& pointer, ReadContext& ctx);

// Escapes a key for use in a JSON pointer ("~" -> "~0", "/" -> "~1").
std::string pointer_escape(std::string_view key);

}  // namespace tgsim::hw
