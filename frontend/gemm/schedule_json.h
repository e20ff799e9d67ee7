// GEMM schedules as JSON (--schedule FILE; docs/gemm.md lists the fields). Unknown keys and bad
// values are InputErrors naming the file and JSON path; missing keys keep the Schedule defaults.
#pragma once

#include <filesystem>
#include <string_view>

#include <nlohmann/json.hpp>

#include "frontend/gemm/schedule.h"

namespace tgsim::gemm {

Schedule parse_schedule(const nlohmann::json& j, std::string_view origin);
Schedule read_schedule(const std::filesystem::path& file);
nlohmann::json to_json(const Schedule& s);

std::string_view to_string(Family f);
std::string_view to_string(WarpSpecialization w);

}  // namespace tgsim::gemm
