#include "frontend/sweep/evaluator.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

#include "sim/units/error.h"

namespace tgsim::sweep {

const Evaluator& EvaluatorRegistry::get(const std::string& op, const std::string& where) const {
  const auto it = by_op_.find(op);
  if (it == by_op_.end())
    throw InputError(fmt::format("{}: unknown op \"{}\" (known: {})", where, op, fmt::join(ops(), ", ")));
  return *it->second;
}

std::vector<std::string> EvaluatorRegistry::ops() const {
  std::vector<std::string> out;
  for (const auto& [op, _] : by_op_) out.push_back(op);
  return out;
}

void register_builtin_evaluators(EvaluatorRegistry& r) {
  r.add("gemm", make_gemm_evaluator());
  r.add("attention", make_attention_evaluator());
}

std::int64_t int_param(const nlohmann::json& p, const std::string& name, std::int64_t fallback) {
  const auto it = p.find(name);
  return it == p.end() ? fallback : it->get<std::int64_t>();
}

bool bool_param(const nlohmann::json& p, const std::string& name, bool fallback) {
  const auto it = p.find(name);
  if (it == p.end()) return fallback;
  return it->is_boolean() ? it->get<bool>() : it->get<std::int64_t>() != 0;
}

std::string text_param(const nlohmann::json& p, const std::string& name, const std::string& fallback) {
  const auto it = p.find(name);
  return it == p.end() ? fallback : it->get<std::string>();
}

std::string path_param(const nlohmann::json& p, const std::string& name, const std::string& dir) {
  const std::string s = text_param(p, name, "");
  if (s.empty() || std::filesystem::path(s).is_absolute()) return s;
  return (std::filesystem::path(dir) / s).string();
}

}  // namespace tgsim::sweep
