#include "sim/graph/json_cursor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/units/error.h"
#include "sim/units/parse.h"

namespace tgsim::graph::detail {
namespace {

// RFC 6901: "~" and "/" inside a key are written "~0" and "~1".
std::string escape_pointer_step(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// neighbouring characters ("mian" -> "main") each count one.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

JsonCursor::JsonCursor(const nlohmann::json& value, const JsonCursor& parent, std::string_view step)
    : value_(&value), origin_(parent.origin_), pointer_(parent.pointer_ + "/" + escape_pointer_step(step)) {}

std::string JsonCursor::location() const { return pointer_.empty() ? origin_ : origin_ + ": " + pointer_; }

void JsonCursor::fail(std::string_view message) const { throw InputError(fmt::format("{}: {}", location(), message)); }

void JsonCursor::expect_object() const {
  if (!value_->is_object()) fail(fmt::format("expected an object, got {}", describe(*value_)));
}

void JsonCursor::expect_array() const {
  if (!value_->is_array()) fail(fmt::format("expected an array, got {}", describe(*value_)));
}

bool JsonCursor::has(std::string_view key) const {
  expect_object();
  return value_->contains(key);
}

JsonCursor JsonCursor::at(std::string_view key) const {
  expect_object();
  const auto it = value_->find(key);
  if (it == value_->end()) fail(fmt::format("missing key \"{}\"", key));
  return JsonCursor(*it, *this, key);
}

std::optional<JsonCursor> JsonCursor::find(std::string_view key) const {
  expect_object();
  const auto it = value_->find(key);
  if (it == value_->end()) return std::nullopt;
  return JsonCursor(*it, *this, key);
}

void JsonCursor::check_keys(std::span<const std::string_view> allowed) const {
  expect_object();
  for (const auto& [key, value] : value_->items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      JsonCursor(value, *this, key).fail(fmt::format("unknown key \"{}\"{}", key, did_you_mean(key, allowed)));
    }
  }
}

std::size_t JsonCursor::size() const {
  expect_array();
  return value_->size();
}

JsonCursor JsonCursor::item(std::size_t index) const {
  expect_array();
  return JsonCursor((*value_)[index], *this, std::to_string(index));
}

void JsonCursor::expect_array_size(std::size_t lo, std::size_t hi) const {
  const std::size_t n = size();
  if (n >= lo && n <= hi) return;
  if (lo == hi) fail(fmt::format("expected an array of {} elements, got {}", lo, n));
  fail(fmt::format("expected an array of {} to {} elements, got {}", lo, hi, n));
}

std::string JsonCursor::as_string() const {
  if (!value_->is_string()) fail(fmt::format("expected a string, got {}", describe(*value_)));
  return value_->get<std::string>();
}

bool JsonCursor::as_bool() const {
  if (!value_->is_boolean()) fail(fmt::format("expected true or false, got {}", describe(*value_)));
  return value_->get<bool>();
}

std::int64_t JsonCursor::as_int(std::int64_t lo, std::int64_t hi) const {
  std::optional<std::int64_t> v;
  if (value_->is_number_integer() && !value_->is_number_unsigned()) {
    v = value_->get<std::int64_t>();
  } else if (value_->is_number_unsigned()) {
    const auto u = value_->get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) v = static_cast<std::int64_t>(u);
  } else if (value_->is_number_float()) {
    // Whole numbers written as 1e6 are accepted up to 2^53, where doubles stop being exact.
    const double d = value_->get<double>();
    if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) <= 9007199254740992.0) v = static_cast<std::int64_t>(d);
  }
  if (!v || *v < lo || *v > hi) {
    constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
    constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
    std::string range;
    if (lo != kMin && hi != kMax) {
      range = fmt::format(" in [{}, {}]", lo, hi);
    } else if (lo != kMin) {
      range = fmt::format(" >= {}", lo);
    } else if (hi != kMax) {
      range = fmt::format(" <= {}", hi);
    }
    fail(fmt::format("expected an integer{}, got {}", range, describe(*value_)));
  }
  return *v;
}

int JsonCursor::as_int32(int lo, int hi) const { return static_cast<int>(as_int(lo, hi)); }

double JsonCursor::as_number() const {
  if (!value_->is_number() || !std::isfinite(value_->get<double>())) {
    fail(fmt::format("expected a number, got {}", describe(*value_)));
  }
  return value_->get<double>();
}

Bytes JsonCursor::as_bytes() const {
  if (value_->is_string()) {
    try {
      return parse_bytes(value_->get<std::string>());
    } catch (const InputError& e) {
      fail(e.what());
    }
  }
  if (value_->is_number_integer() && (value_->is_number_unsigned() || value_->get<std::int64_t>() >= 0) &&
      value_->get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return Bytes{value_->get<std::int64_t>()};
  }
  fail(fmt::format("expected a size like \"32KiB\" or an integer, got {}", describe(*value_)));
}

Cycles JsonCursor::as_cycles() const {
  if (value_->is_string()) {
    try {
      return parse_cycles(value_->get<std::string>());
    } catch (const InputError& e) {
      fail(e.what());
    }
  }
  if (value_->is_number() && std::isfinite(value_->get<double>()) && value_->get<double>() >= 0.0) {
    return Cycles{value_->get<double>()};
  }
  fail(fmt::format("expected a cycle count like \"100cycles\" or a number, got {}", describe(*value_)));
}

std::string describe(const nlohmann::json& value) {
  constexpr std::size_t kMaxChars = 40;
  std::string text = value.dump();
  if (text.size() > kMaxChars) text = text.substr(0, kMaxChars - 3) + "...";
  return text;
}

std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates) {
  // A typo is a few edits away: at most one per three characters, at least one. A one-letter
  // word is not a typo of another one ("B" would suggest "A").
  if (word.size() < 2) return {};
  std::size_t best = std::max<std::size_t>(1, word.size() / 3) + 1;
  std::string_view match;
  for (std::string_view c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best) {
      best = d;
      match = c;
    }
  }
  return match.empty() ? std::string() : fmt::format(" (did you mean \"{}\"?)", match);
}

void NameTable::add(const JsonCursor& at, const std::string& name) {
  if (name.empty()) at.fail(fmt::format("a {} {} must not be empty", what_, key_));
  const auto [it, inserted] = index_.emplace(name, static_cast<int>(names_.size()));
  if (!inserted) {
    const std::string& first = pointers_[static_cast<std::size_t>(it->second)];
    at.fail(fmt::format("duplicate {} {} \"{}\" (first defined at {})", what_, key_, name, first));
  }
  names_.push_back(name);
  pointers_.push_back(at.pointer());
}

int NameTable::resolve(const JsonCursor& at, std::string_view context) const {
  const std::string name = at.as_string();
  const auto it = index_.find(name);
  if (it != index_.end()) return it->second;
  std::vector<std::string_view> candidates(names_.begin(), names_.end());
  std::string message = fmt::format("unknown {} \"{}\"", what_, name);
  if (!context.empty()) message += fmt::format(" {}", context);
  message += did_you_mean(name, candidates);
  // Listing the valid names helps when there are few (roles, tensors); a node list would be noise.
  constexpr std::size_t kMaxListed = 8;
  if (names_.empty()) {
    message += fmt::format("; no {}s are defined", what_);
  } else if (names_.size() <= kMaxListed) {
    message += fmt::format("; defined: {}", fmt::join(names_, ", "));
  }
  at.fail(message);
}

}  // namespace tgsim::graph::detail
