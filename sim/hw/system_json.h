// Multi-GPU system specs from JSON (configs/systems/*.json; format in docs/multigpu.md) and back.
// Same conventions as GPU specs (spec_json.h): value/source leaves, unknown keys rejected with a
// did-you-mean, --set style overrides, every error names the file (or override) and JSON pointer.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "sim/hw/system_spec.h"

namespace tgsim::hw {

SystemSpec parse_system_spec(const nlohmann::json& doc, std::string_view origin,
                             const std::vector<std::string>& overrides = {});
SystemSpec load_system_spec(const std::filesystem::path& file, const std::vector<std::string>& overrides = {});

// The preset names: stems of config_dir/systems/*.json, sorted.
std::vector<std::string> list_system_presets(const std::filesystem::path& config_dir);

// A preset name ("2xh200": config_dir/systems/2xh200.json) or a path (contains '/' or ends in
// ".json"). An unknown name throws InputError listing the valid names.
SystemSpec load_system_preset(std::string_view name_or_path, const std::filesystem::path& config_dir,
                              const std::vector<std::string>& overrides = {});

// The resolved spec with canonical unit strings and sources; parse_system_spec(to_json(s)) == s.
nlohmann::json to_json(const SystemSpec& spec);

}  // namespace tgsim::hw
