// GPU specs from JSON (configs/gpus/*.json; format in docs/gpu-specs.md) and back.
//
// Every field is a plain value or {"value": "4.8TB/s", "source": "H200 datasheet"}; sources land in
// GpuSpec::sources keyed by JSON pointer ("/hbm/bandwidth"). Unknown keys, missing fields, bad
// types or units and inconsistent values (SMs per GPC not summing to sm.count, ...) throw
// InputError naming the file (or the --set override) and the JSON pointer.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/hw/gpu_spec.h"

namespace tgsim::hw {

// Reads, overrides ("hbm.bandwidth=5TB/s", see json_overrides.h), parses and validates one file.
GpuSpec load_gpu_spec(const std::filesystem::path& file, const std::vector<std::string>& overrides = {});

// Parses an in-memory document; `origin` names it in messages (usually the file name).
GpuSpec parse_gpu_spec(const nlohmann::json& doc, std::string_view origin,
                       const std::vector<std::string>& overrides = {});

// The resolved spec, with canonical unit strings and the sources, for embedding in reports;
// parse_gpu_spec(to_json(spec), ...) == spec.
nlohmann::json to_json(const GpuSpec& spec);

// The preset names: stems of config_dir/gpus/*.json, sorted. Empty if the folder does not exist.
std::vector<std::string> list_gpu_presets(const std::filesystem::path& config_dir);

// A preset name ("h100": config_dir/gpus/h100.json) or, if the argument contains a '/' or ends in
// ".json", a path. An unknown name throws InputError listing the valid names.
GpuSpec load_gpu_preset(std::string_view name_or_path, const std::filesystem::path& config_dir,
                        const std::vector<std::string>& overrides = {});

}  // namespace tgsim::hw
