// Small text helpers shared by the kernel-name grammars and the measurement readers.
#include "frontend/text.h"

#include <cctype>

namespace tgsim::frontend {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::optional<int> to_int(std::string_view s) {
  // Tile sizes and stage counts are small; 7 digits keeps the sum below INT_MAX.
  if (s.empty() || s.size() > 7) return std::nullopt;
  int v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

namespace {

template <std::size_t N>
std::optional<std::array<int, N>> dims(std::string_view s) {
  const auto parts = split(s, 'x');
  if (parts.size() != N) return std::nullopt;
  std::array<int, N> out{};
  for (std::size_t i = 0; i < N; ++i) {
    const auto v = to_int(parts[i]);
    if (!v) return std::nullopt;
    out[i] = *v;
  }
  return out;
}

}  // namespace

std::optional<std::array<int, 2>> dims2(std::string_view s) { return dims<2>(s); }
std::optional<std::array<int, 3>> dims3(std::string_view s) { return dims<3>(s); }

}  // namespace tgsim::frontend
