#include "sim/hw/json_overrides.h"

#include <charconv>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "sim/hw/json_reader.h"
#include "sim/units/error.h"

namespace tgsim::hw {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

std::vector<std::string> split_key(std::string_view key) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = key.find('.', start);
    parts.emplace_back(key.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) return parts;
    start = dot + 1;
  }
}

// A value/source leaf, as opposed to a section.
bool is_wrapped_leaf(const nlohmann::json& node) { return node.is_object() && node.contains("value"); }

std::string apply_one(nlohmann::json& doc, const std::string& assignment) {
  const std::string label = fmt::format("--set {}", assignment);
  const std::size_t eq = assignment.find('=');
  const std::string_view key = trim(std::string_view(assignment).substr(0, eq));
  if (eq == std::string::npos || key.empty()) {
    throw InputError(fmt::format("{}: expected key=value, e.g. --set hbm.bandwidth=5TB/s", label));
  }
  const std::string_view value_text = trim(std::string_view(assignment).substr(eq + 1));
  if (value_text.empty()) throw InputError(fmt::format("{}: empty value", label));

  const std::vector<std::string> parts = split_key(key);
  std::string pointer;
  nlohmann::json* node = &doc;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    if (part.empty()) throw InputError(fmt::format("{}: empty key segment in \"{}\"", label, key));
    if (!node->is_object() || is_wrapped_leaf(*node)) {
      throw InputError(fmt::format("{}: {} is a value, not a section", label, pointer.empty() ? "/" : pointer));
    }
    pointer += fmt::format("/{}", pointer_escape(part));
    const bool last = i + 1 == parts.size();
    if (!last) {
      if (!node->contains(part)) (*node)[part] = nlohmann::json::object();
      node = &(*node)[part];
      continue;
    }
    nlohmann::json value = override_value(value_text);
    const auto existing = node->find(part);
    const bool is_section = existing != node->end() && existing->is_object() && !is_wrapped_leaf(*existing);
    (*node)[part] = is_section ? std::move(value) : nlohmann::json{{"value", std::move(value)}, {"source", label}};
  }
  return pointer;
}

}  // namespace

nlohmann::json override_value(std::string_view text) {
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  std::int64_t integer = 0;
  if (auto [ptr, ec] = std::from_chars(begin, end, integer); ec == std::errc{} && ptr == end) return integer;
  double real = 0;
  if (auto [ptr, ec] = std::from_chars(begin, end, real); ec == std::errc{} && ptr == end && std::isfinite(real)) {
    return real;
  }
  if (text == "true" || text == "false") return text == "true";
  if (!text.empty() && (text.front() == '[' || text.front() == '{')) {
    try {
      return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      throw InputError(fmt::format("invalid JSON value \"{}\": {}", text, e.what()));
    }
  }
  return std::string(text);
}

std::map<std::string, std::string> apply_overrides(nlohmann::json& doc, const std::vector<std::string>& overrides) {
  std::map<std::string, std::string> applied;
  for (const std::string& assignment : overrides) {
    try {
      applied[apply_one(doc, assignment)] = fmt::format("--set {}", assignment);
    } catch (const InputError& e) {
      const std::string message = e.what();
      if (message.starts_with("--set ")) throw;
      throw InputError(fmt::format("--set {}: {}", assignment, message));
    }
  }
  return applied;
}

}  // namespace tgsim::hw
