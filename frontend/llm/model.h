// An LLM's shapes (configs/models/*.json): what a prefill or decode step's kernels are sized by.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/units/dtype.h"

namespace tgsim::llm {

struct MoeConfig {
  int experts = 0;
  int top_k = 0;
  std::int64_t expert_intermediate = 0;
  int shared_experts = 0;
  int first_dense_layers = 0;  // leading layers with a dense MLP (DeepSeek's first_k_dense_replace)
};

// DeepSeek multi-head latent attention (prefill form: K/V decompressed per head).
struct MlaConfig {
  std::int64_t q_lora_rank = 0;
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t qk_rope_head_dim = 0;
  std::int64_t v_head_dim = 0;
};

struct ModelConfig {
  std::string name;
  DType dtype = DType::bf16;
  std::int64_t hidden = 0;
  int layers = 0;
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;
  std::int64_t head_dim = 0;
  std::int64_t intermediate = 0;
  std::int64_t vocab = 0;
  std::optional<MoeConfig> moe;
  std::optional<MlaConfig> mla;
  std::map<std::string, std::string> sources;  // JSON pointer -> source text
};

// `name_or_path`: a preset in <config_dir>/models/ (e.g. llama3-8b) or a JSON file. InputError
// naming the file and JSON path on bad input.
ModelConfig load_model(const std::string& name_or_path, const std::filesystem::path& config_dir);
// The same from a parsed document; `origin` names it in errors.
ModelConfig parse_model(const nlohmann::json& j, const std::string& origin);

}  // namespace tgsim::llm
