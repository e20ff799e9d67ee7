#include "sim/hw/json_reader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/units/error.h"
#include "sim/units/parse.h"

namespace tgsim::hw {
namespace {

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// A short rendering of a JSON value for "got ..." messages.
std::string show(const nlohmann::json& value) {
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

bool is_prefix_pointer(const std::string& parent, const std::string& child) {
  return child.size() > parent.size() && child.starts_with(parent) && child[parent.size()] == '/';
}

}  // namespace

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string lower = lowercase(word);
  // Allow about one typo per four letters: "bandwith" -> "bandwidth", but "sm" never -> "l2".
  const std::size_t limit = std::max<std::size_t>(1, word.size() / 4);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t d = edit_distance(lower, lowercase(candidate));
    if (d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

ReadContext::ReadContext(std::string origin, std::map<std::string, std::string> overridden)
    : origin_(std::move(origin)), overridden_(std::move(overridden)) {}

void ReadContext::fail(const std::string& pointer, std::string_view message) const {
  std::string origin = origin_;
  for (const auto& [set_pointer, text] : overridden_) {
    if (pointer.empty()) break;
    if (pointer == set_pointer || is_prefix_pointer(pointer, set_pointer) || is_prefix_pointer(set_pointer, pointer)) {
      origin = text;
      break;
    }
  }
  if (pointer.empty()) throw InputError(fmt::format("{}: {}", origin, message));
  throw InputError(fmt::format("{}: {}: {}", origin, pointer, message));
}

std::string ReadContext::describe(const std::string& pointer) const {
  for (const auto& [set_pointer, text] : overridden_) {
    if (pointer == set_pointer || is_prefix_pointer(set_pointer, pointer)) {
      return fmt::format("{} (set by {})", pointer, text);
    }
  }
  return pointer;
}

std::string pointer_escape(std::string_view key) {
  std::string out;
  for (const char c : key) {
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

const nlohmann::json& unwrap_leaf(const nlohmann::json& node, const std::string& pointer, ReadContext& ctx) {
  if (!node.is_object()) return node;
  const ObjectReader field(node, pointer, ctx, {"value", "source"});
  if (!node.contains("value")) {
    ctx.fail(pointer, "expected a value or {\"value\": ..., \"source\": \"...\"}, got an object without \"value\"");
  }
  if (node.contains("source")) {
    const nlohmann::json& source = node.at("source");
    if (!source.is_string()) ctx.fail(pointer + "/source", fmt::format("expected a string, got {}", show(source)));
    ctx.sources()[pointer] = source.get<std::string>();
  }
  return node.at("value");
}

ObjectReader::ObjectReader(const nlohmann::json& value, std::string pointer, ReadContext& ctx,
                           const std::vector<std::string_view>& allowed_keys)
    : value_(&value), pointer_(std::move(pointer)), ctx_(&ctx), allowed_(allowed_keys.begin(), allowed_keys.end()) {
  if (!value.is_object()) ctx.fail(pointer_, fmt::format("expected an object, got {}", show(value)));
  for (const auto& item : value.items()) {
    const std::string& key = item.key();
    if (std::find(allowed_.begin(), allowed_.end(), key) != allowed_.end()) continue;
    const std::string suggestion = closest_match(key, allowed_);
    if (!suggestion.empty()) ctx.fail(child(key), fmt::format("unknown key (did you mean \"{}\"?)", suggestion));
    ctx.fail(child(key), fmt::format("unknown key; expected one of: {}", fmt::join(allowed_, ", ")));
  }
}

bool ObjectReader::has(std::string_view key) const { return value_->contains(key); }

ObjectReader ObjectReader::section(std::string_view key, const std::vector<std::string_view>& allowed_keys) const {
  return ObjectReader(object(key), child(key), *ctx_, allowed_keys);
}

const nlohmann::json& ObjectReader::object(std::string_view key) const {
  if (!has(key)) ctx_->fail(child(key), "missing required section");
  const nlohmann::json& node = value_->at(std::string(key));
  if (!node.is_object()) ctx_->fail(child(key), fmt::format("expected an object, got {}", show(node)));
  return node;
}

const nlohmann::json& ObjectReader::leaf(std::string_view key) const {
  if (!has(key)) ctx_->fail(child(key), "missing required field");
  return unwrap_leaf(value_->at(std::string(key)), child(key), *ctx_);
}

std::string ObjectReader::text(std::string_view key) const {
  const nlohmann::json& node = leaf(key);
  if (!node.is_string()) ctx_->fail(child(key), fmt::format("expected a string, got {}", show(node)));
  return node.get<std::string>();
}

std::int64_t ObjectReader::integer(std::string_view key) const {
  const nlohmann::json& node = leaf(key);
  if (node.is_number_unsigned() && node.get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max()) {
    ctx_->fail(child(key), fmt::format("integer too large: {}", show(node)));
  }
  if (node.is_number_integer()) return node.get<std::int64_t>();
  if (node.is_number_float()) {
    const double v = node.get<double>();
    if (std::trunc(v) == v && std::abs(v) < 9.2e18) return static_cast<std::int64_t>(v);
  }
  ctx_->fail(child(key), fmt::format("expected an integer, got {}", show(node)));
}

int ObjectReader::small_integer(std::string_view key) const {
  const std::int64_t v = integer(key);
  if (v > std::numeric_limits<int>::max() || v < std::numeric_limits<int>::min()) {
    ctx_->fail(child(key), fmt::format("integer out of range: {}", v));
  }
  return static_cast<int>(v);
}

double ObjectReader::number(std::string_view key) const {
  const nlohmann::json& node = leaf(key);
  if (!node.is_number()) ctx_->fail(child(key), fmt::format("expected a number, got {}", show(node)));
  return node.get<double>();
}

bool ObjectReader::boolean(std::string_view key) const {
  const nlohmann::json& node = leaf(key);
  if (!node.is_boolean()) ctx_->fail(child(key), fmt::format("expected true or false, got {}", show(node)));
  return node.get<bool>();
}

std::vector<int> ObjectReader::integer_list(std::string_view key) const {
  const nlohmann::json& node = leaf(key);
  if (!node.is_array()) ctx_->fail(child(key), fmt::format("expected a list of integers, got {}", show(node)));
  std::vector<int> out;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const nlohmann::json& item = node[i];
    if (!item.is_number_integer() || item.get<std::int64_t>() > std::numeric_limits<int>::max() ||
        item.get<std::int64_t>() < std::numeric_limits<int>::min()) {
      ctx_->fail(fmt::format("{}/{}", child(key), i), fmt::format("expected an integer, got {}", show(item)));
    }
    out.push_back(item.get<int>());
  }
  return out;
}

// Unit fields take a string ("4.8TB/s"); any other JSON value is handed to the parser as its JSON
// text, so a bare number works where the unit is implied (bytes, cycles) and anything else gets
// the parser's "expected a bandwidth like ..." message.
template <typename Parse>
auto ObjectReader::unit_leaf(std::string_view key, Parse parse) const {
  const nlohmann::json& node = leaf(key);
  try {
    return parse(node.is_string() ? node.get<std::string>() : node.dump());
  } catch (const InputError& e) {
    ctx_->fail(child(key), e.what());
  }
}

Bytes ObjectReader::bytes(std::string_view key) const { return unit_leaf(key, parse_bytes); }
BytesPerSecond ObjectReader::bandwidth(std::string_view key) const { return unit_leaf(key, parse_bandwidth); }
Hertz ObjectReader::frequency(std::string_view key) const { return unit_leaf(key, parse_frequency); }
Duration ObjectReader::duration(std::string_view key) const { return unit_leaf(key, parse_duration); }
Cycles ObjectReader::cycles(std::string_view key) const { return unit_leaf(key, parse_cycles); }
double ObjectReader::bytes_per_cycle(std::string_view key) const { return unit_leaf(key, parse_bytes_per_cycle); }

}  // namespace tgsim::hw
