#include "frontend/llm/step.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/units/error.h"

namespace tgsim::llm {
namespace {

struct Ctx {
  const ModelConfig& m;
  const StepRequest& r;
  std::int64_t tokens;
  double e;  // bytes per element
};

Op gemm(std::string name, std::int64_t m, std::int64_t n, std::int64_t k, int calls = 1) {
  Op o;
  o.name = std::move(name);
  o.kind = OpKind::gemm;
  o.m = m;
  o.n = n;
  o.k = k;
  o.calls = calls;
  return o;
}

Op elementwise(std::string name, double elements, double reads, double writes, double ops, std::int64_t rows = 0) {
  Op o;
  o.name = std::move(name);
  o.kind = OpKind::elementwise;
  o.elementwise = Elementwise{elements, reads, writes, ops, rows};
  return o;
}

// RMSNorm over `hidden`: read x and the weight, write y; per element square, sum, scale, multiply.
Op rms_norm(const Ctx& c, std::string name, std::int64_t hidden) {
  const double n = static_cast<double>(c.tokens * hidden);
  return elementwise(std::move(name), n, n * c.e + static_cast<double>(hidden) * c.e, n * c.e, 5, c.tokens);
}

Op residual_add(const Ctx& c) {
  const double n = static_cast<double>(c.tokens * c.m.hidden);
  return elementwise("residual_add", n, 2 * n * c.e, n * c.e, 1);
}

Op all_reduce(const Ctx& c, std::string name) {
  Op o;
  o.name = std::move(name);
  o.kind = OpKind::all_reduce;
  o.bytes = static_cast<double>(c.tokens * c.m.hidden) * c.e;
  return o;
}

Op attention_op(const Ctx& c, std::int64_t heads, std::int64_t kv_heads, std::int64_t head_dim) {
  Op o;
  o.name = "attention";
  o.kind = OpKind::attention;
  auto& p = o.attention;
  p.batch = c.r.batch;
  p.heads = heads;
  p.heads_kv = kv_heads;
  p.head_dim = head_dim;
  p.dtype = c.m.dtype;
  if (c.r.phase == Phase::prefill) {
    p.seq_q = p.seq_kv = c.r.seq;
    p.causal = true;
  } else {
    p.seq_q = 1;
    p.seq_kv = c.r.context + 1;
  }
  return o;
}

void attention_block(const Ctx& c, std::vector<Op>& ops) {
  const auto& m = c.m;
  const int tp = c.r.tp;
  ops.push_back(rms_norm(c, "input_norm", m.hidden));
  if (m.mla) {  // DeepSeek MLA, prefill form: low-rank Q and KV, decompressed per head
    const auto& a = *m.mla;
    const std::int64_t h = m.heads / tp, qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
    ops.push_back(gemm("q_a_proj", c.tokens, a.q_lora_rank, m.hidden));
    ops.push_back(rms_norm(c, "q_a_norm", a.q_lora_rank));
    ops.push_back(gemm("q_b_proj", c.tokens, h * qk, a.q_lora_rank));
    ops.push_back(gemm("kv_a_proj", c.tokens, a.kv_lora_rank + a.qk_rope_head_dim, m.hidden));
    ops.push_back(rms_norm(c, "kv_a_norm", a.kv_lora_rank));
    ops.push_back(gemm("kv_b_proj", c.tokens, h * (a.qk_nope_head_dim + a.v_head_dim), a.kv_lora_rank));
    const double rope = static_cast<double>(c.tokens * (h + 1) * a.qk_rope_head_dim);
    ops.push_back(elementwise("rope", rope, rope * c.e, rope * c.e, 4));
    ops.push_back(attention_op(c, h, h, qk));  // v_head_dim < qk: padded to qk (docs/llm.md)
    ops.push_back(gemm("o_proj", c.tokens, m.hidden, h * a.v_head_dim));
  } else {
    const std::int64_t h = m.heads / tp, kv = std::max<std::int64_t>(1, m.kv_heads / tp);
    ops.push_back(gemm("qkv_proj", c.tokens, (h + 2 * kv) * m.head_dim, m.hidden));
    const double rope = static_cast<double>(c.tokens * (h + kv) * m.head_dim);
    ops.push_back(elementwise("rope", rope, rope * c.e, rope * c.e, 4));
    ops.push_back(attention_op(c, h, kv, m.head_dim));
    ops.push_back(gemm("o_proj", c.tokens, m.hidden, h * m.head_dim));
  }
  if (tp > 1) ops.push_back(all_reduce(c, "attention_all_reduce"));
  ops.push_back(residual_add(c));
  ops.push_back(rms_norm(c, "post_attention_norm", m.hidden));
}

void dense_mlp(const Ctx& c, std::vector<Op>& ops, std::int64_t intermediate, const std::string& prefix, int calls = 1,
               std::int64_t tokens = -1) {
  const std::int64_t t = tokens < 0 ? c.tokens : tokens;
  const std::int64_t i = intermediate;
  ops.push_back(gemm(prefix + "gate_up_proj", t, 2 * i, c.m.hidden, calls));
  const double n = static_cast<double>(t * i);
  Op act = elementwise(prefix + "silu_mul", n, 2 * n * c.e, n * c.e, 6);
  act.calls = calls;
  ops.push_back(act);
  ops.push_back(gemm(prefix + "down_proj", t, c.m.hidden, i, calls));
}

// MoE: router GEMM, top-k, one GEMM pair per active expert (uniform routing: every expert gets
// tokens * top_k / experts tokens, or one token each for the first tokens * top_k experts),
// shared experts as a dense MLP, the weighted combine.
void moe_mlp(const Ctx& c, std::vector<Op>& ops, std::vector<std::string>& notes) {
  const auto& moe = *c.m.moe;
  ops.push_back(gemm("router", c.tokens, moe.experts, c.m.hidden));
  const double scores = static_cast<double>(c.tokens * moe.experts);
  ops.push_back(elementwise("topk_softmax", scores, scores * 4, static_cast<double>(c.tokens * moe.top_k) * 8, 8, c.tokens));
  const std::int64_t assignments = c.tokens * moe.top_k;
  const int active = static_cast<int>(std::min<std::int64_t>(moe.experts, assignments));
  const std::int64_t per_expert = (assignments + active - 1) / active;
  const std::int64_t i = moe.expert_intermediate / c.r.tp;
  dense_mlp(c, ops, i, "expert_", active, per_expert);
  if (moe.shared_experts > 0) dense_mlp(c, ops, moe.expert_intermediate * moe.shared_experts / c.r.tp, "shared_expert_");
  const double n = static_cast<double>(assignments * c.m.hidden);
  ops.push_back(elementwise("moe_combine", n, n * c.e, static_cast<double>(c.tokens * c.m.hidden) * c.e, 2, c.tokens));
  if (notes.empty())
    notes.push_back(fmt::format("MoE: uniform routing, {} active experts x {} tokens each, one GEMM pair per expert (as an "
                                "eager expert loop runs them)", active, per_expert));
}

}  // namespace

StepPlan plan_step(const ModelConfig& m, const StepRequest& r) {
  if (r.batch <= 0) throw InputError("--batch must be positive");
  if (r.tp <= 0 || m.heads % r.tp != 0)
    throw InputError(fmt::format("--tp {}: must divide the model's {} heads", r.tp, m.heads));
  if (m.kv_heads % r.tp != 0 && r.tp % m.kv_heads != 0)
    throw InputError(fmt::format("--tp {}: must divide the {} KV heads or be a multiple of them", r.tp, m.kv_heads));
  if (r.phase == Phase::prefill && r.seq <= 0) throw InputError("--seq must be positive");
  if (r.phase == Phase::decode && r.context < 0) throw InputError("--context must not be negative");
  StepPlan plan;
  const Ctx c{m, r, r.phase == Phase::prefill ? r.batch * r.seq : r.batch, dtype_bits(m.dtype) / 8.0};
  plan.tokens = c.tokens;
  const int layers = r.layers > 0 ? std::min(r.layers, m.layers) : m.layers;
  const int dense_layers = m.moe ? std::min(layers, m.moe->first_dense_layers) : layers;
  if (dense_layers > 0) {
    LayerGroup g{"dense layer", dense_layers, {}};
    attention_block(c, g.ops);
    dense_mlp(c, g.ops, m.intermediate / r.tp, "");
    if (r.tp > 1) g.ops.push_back(all_reduce(c, "mlp_all_reduce"));
    g.ops.push_back(residual_add(c));
    plan.groups.push_back(std::move(g));
  }
  if (layers > dense_layers) {
    LayerGroup g{"moe layer", layers - dense_layers, {}};
    attention_block(c, g.ops);
    moe_mlp(c, g.ops, plan.notes);
    if (r.tp > 1) g.ops.push_back(all_reduce(c, "mlp_all_reduce"));
    g.ops.push_back(residual_add(c));
    plan.groups.push_back(std::move(g));
  }
  // Final norm and LM head on the last token of each sequence.
  LayerGroup head{"lm head", 1, {}};
  const Ctx last{m, r, r.batch, c.e};
  head.ops.push_back(rms_norm(last, "final_norm", m.hidden));
  head.ops.push_back(gemm("lm_head", r.batch, m.vocab / r.tp, m.hidden));
  plan.groups.push_back(std::move(head));
  if (m.mla) plan.notes.push_back("MLA in its prefill form (K/V decompressed per head, head_dim 192 for Q/K; V padded to 192)");
  if (r.tp > 1) plan.notes.push_back(fmt::format("tensor parallel over {} GPUs: per-GPU shapes; all-reduces of the hidden state", r.tp));
  return plan;
}

}  // namespace tgsim::llm
