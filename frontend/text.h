// Small text helpers shared by the kernel-name grammars and the measurement readers.
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <vector>

namespace tgsim::frontend {

std::vector<std::string_view> split(std::string_view s, char sep);
std::string_view trim(std::string_view s);
std::optional<int> to_int(std::string_view s);                // decimal digits only, at most 7
std::optional<std::array<int, 2>> dims2(std::string_view s);  // "AxB"
std::optional<std::array<int, 3>> dims3(std::string_view s);  // "AxBxC"

}  // namespace tgsim::frontend
