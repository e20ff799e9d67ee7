// A read position in a JSON document: the value, its JSON pointer (RFC 6901) and the document's
// origin (usually a file name), so that every error names where it happened:
//   gemm.json: /kernels/0/templates/1/nodes/7/bytes: expected a size like "32KiB" or an integer, got -5
// Used by the tile-graph reader; nothing here knows about tile graphs.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/units/units.h"

namespace tgsim::graph::detail {

class JsonCursor {
 public:
  JsonCursor(const nlohmann::json& value, std::string_view origin) : value_(&value), origin_(origin) {}

  const nlohmann::json& value() const { return *value_; }
  const std::string& pointer() const { return pointer_; }
  // "origin: /pointer" (just "origin" at the document root).
  std::string location() const;
  // Throws InputError "origin: /pointer: message".
  [[noreturn]] void fail(std::string_view message) const;

  // Objects. Each fails unless the value is an object.
  bool has(std::string_view key) const;
  JsonCursor at(std::string_view key) const;  // fails with "missing key" when absent
  std::optional<JsonCursor> find(std::string_view key) const;
  // Fails on the first key not in `allowed`, suggesting the closest allowed one.
  void check_keys(std::span<const std::string_view> allowed) const;

  // Arrays. Each fails unless the value is an array.
  std::size_t size() const;
  JsonCursor item(std::size_t index) const;
  // Fails unless the value is an array of `lo`..`hi` elements.
  void expect_array_size(std::size_t lo, std::size_t hi) const;

  // Scalars: each fails with "expected ..., got <value>" on a wrong type or range.
  std::string as_string() const;
  bool as_bool() const;
  std::int64_t as_int(std::int64_t lo = std::numeric_limits<std::int64_t>::min(),
                      std::int64_t hi = std::numeric_limits<std::int64_t>::max()) const;
  int as_int32(int lo = std::numeric_limits<int>::min(), int hi = std::numeric_limits<int>::max()) const;
  double as_number() const;  // finite
  Bytes as_bytes() const;    // >= 0: "32KiB" or an integer
  Cycles as_cycles() const;  // >= 0: "100cycles" or a number

 private:
  JsonCursor(const nlohmann::json& value, const JsonCursor& parent, std::string_view step);
  void expect_object() const;
  void expect_array() const;

  const nlohmann::json* value_;
  std::string origin_;
  std::string pointer_;
};

// A short rendering of a JSON value for error messages ("got ...").
std::string describe(const nlohmann::json& value);

// " (did you mean \"x\"?)" when one of `candidates` is a likely typo of `word`, else "".
std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates);

// Reads a string naming one of `values` (spelled as to_string spells them); fails listing them.
template <class E, std::size_t N>
E read_enum(const JsonCursor& c, const std::array<E, N>& values, std::string_view what) {
  const std::string s = c.as_string();
  std::array<std::string_view, N> names{};
  for (std::size_t i = 0; i < N; ++i) {
    names[i] = to_string(values[i]);
    if (names[i] == s) return values[i];
  }
  std::string list;
  for (std::string_view name : names) list += (list.empty() ? "" : ", ") + std::string(name);
  c.fail("unknown " + std::string(what) + " \"" + s + "\"" + did_you_mean(s, names) + "; expected one of " + list);
}

// Names of one kind of thing (roles, nodes, tensors, ...) in declaration order, for resolving
// references by name. `what` ("node") and `key` ("id") appear in the error messages.
class NameTable {
 public:
  explicit NameTable(std::string what, std::string key = "name") : what_(std::move(what)), key_(std::move(key)) {}
  // Adds `name` read at `at`; fails if it is empty or already taken.
  void add(const JsonCursor& at, const std::string& name);
  // The index of the name `at` holds; fails naming the unknown name, followed by `context`
  // ("in edge a -> b") if given.
  int resolve(const JsonCursor& at, std::string_view context = {}) const;
  std::size_t size() const { return names_.size(); }

 private:
  std::string what_;
  std::string key_;
  std::vector<std::string> names_;
  std::vector<std::string> pointers_;
  std::unordered_map<std::string, int> index_;
};

}  // namespace tgsim::graph::detail
