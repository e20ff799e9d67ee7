// Command-line overrides of a JSON config: "--set hbm.bandwidth=5TB/s". They edit the JSON before
// it is parsed, so an override meets exactly the validation the file does; the returned map lets
// ReadContext name the override (not the file) in any error it causes.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tgsim::hw {

// Applies each "dotted.key=value" in order. A value that reads as a number becomes a JSON number,
// true and false become JSON booleans, one starting with '[' or '{' is parsed as JSON (e.g.
// "gpc.sms_per_gpc=[18,18,16]"), anything else is a string. A leaf gets {"value": v, "source": "--set key=value"}, so the resolved spec
// records that it was overridden. A missing key is created (the parser then rejects it if it is
// unknown). Returns JSON pointer -> "--set key=value". Throws InputError for malformed overrides.
std::map<std::string, std::string> apply_overrides(nlohmann::json& doc, const std::vector<std::string>& overrides);

// The JSON value an override's right-hand side stands for (see above).
nlohmann::json override_value(std::string_view text);

}  // namespace tgsim::hw
