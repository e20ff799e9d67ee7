#include "frontend/llm/model.h"

#include <fstream>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/hw/json_reader.h"
#include "sim/units/error.h"

namespace tgsim::llm {
namespace {

nlohmann::json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw InputError(fmt::format("{}: cannot open model file", file.string()));
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(fmt::format("{}: invalid JSON: {}", file.string(), e.what()));
  }
}

std::int64_t positive(const hw::ObjectReader& r, std::string_view key) {
  const std::int64_t v = r.integer(key);
  if (v <= 0) r.context().fail(r.child(key), fmt::format("must be positive, got {}", v));
  return v;
}

}  // namespace

ModelConfig load_model(const std::string& name_or_path, const std::filesystem::path& config_dir) {
  std::filesystem::path file = name_or_path;
  if (!std::filesystem::exists(file)) {
    file = config_dir / "models" / (name_or_path + ".json");
    if (!std::filesystem::exists(file)) {
      std::vector<std::string> names;
      if (std::filesystem::is_directory(config_dir / "models")) {
        for (const auto& e : std::filesystem::directory_iterator(config_dir / "models"))
          if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
      }
      std::sort(names.begin(), names.end());
      const std::string hint = hw::closest_match(name_or_path, names);
      throw InputError(fmt::format("--model: no model \"{}\"{} (presets: {})", name_or_path,
                                   hint.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", hint), fmt::join(names, ", ")));
    }
  }
  return parse_model(read_json(file), file.string());
}

ModelConfig parse_model(const nlohmann::json& j, const std::string& origin) {
  hw::ReadContext ctx(origin);
  const hw::ObjectReader r(j, "", ctx,
                           {"name", "dtype", "hidden", "layers", "heads", "kv_heads", "head_dim", "intermediate", "vocab", "moe", "mla"});
  ModelConfig m;
  m.name = r.text("name");
  const std::string dtype = r.text("dtype");
  const auto t = parse_dtype(dtype);
  if (!t) ctx.fail("/dtype", fmt::format("unknown dtype \"{}\"", dtype));
  m.dtype = *t;
  m.hidden = positive(r, "hidden");
  m.layers = static_cast<int>(positive(r, "layers"));
  m.heads = positive(r, "heads");
  m.kv_heads = positive(r, "kv_heads");
  m.head_dim = positive(r, "head_dim");
  m.intermediate = positive(r, "intermediate");
  m.vocab = positive(r, "vocab");
  if (m.heads % m.kv_heads != 0) ctx.fail("/kv_heads", fmt::format("heads ({}) must be a multiple of kv_heads ({})", m.heads, m.kv_heads));
  if (r.has("moe")) {
    const auto s = r.section("moe", {"experts", "top_k", "expert_intermediate", "shared_experts", "first_dense_layers"});
    MoeConfig moe;
    moe.experts = static_cast<int>(positive(s, "experts"));
    moe.top_k = static_cast<int>(positive(s, "top_k"));
    moe.expert_intermediate = positive(s, "expert_intermediate");
    moe.shared_experts = static_cast<int>(s.integer("shared_experts"));
    moe.first_dense_layers = static_cast<int>(s.integer("first_dense_layers"));
    if (moe.top_k > moe.experts) ctx.fail("/moe/top_k", "top_k exceeds the number of experts");
    m.moe = moe;
  }
  if (r.has("mla")) {
    const auto s = r.section("mla", {"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"});
    m.mla = MlaConfig{positive(s, "q_lora_rank"), positive(s, "kv_lora_rank"), positive(s, "qk_nope_head_dim"),
                      positive(s, "qk_rope_head_dim"), positive(s, "v_head_dim")};
  }
  m.sources = ctx.sources();
  return m;
}

}  // namespace tgsim::llm
