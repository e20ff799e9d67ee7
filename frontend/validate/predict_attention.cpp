// Predicting an `attention` measurement row: batch, heads, heads_kv, seq_q, seq_kv, head_dim,
// causal (with the optional causal_align: bottom_right, the default, or top_left) and dtype give
// the problem; the kernel name(s) give the schedule; without them the
// optional `family` column (fa2, fa3, cudnn, cudnn_sm80) picks that family's default schedule,
// else the default rule (FlashAttention-2, as PyTorch's flash backend runs it).
#include <fmt/format.h>

#include "frontend/attention/lower.h"
#include "frontend/attention/request.h"
#include "frontend/validate/validate.h"
#include "sim/engine/simulate.h"
#include "sim/units/error.h"

namespace tgsim::validate {

Prediction predict_attention(const Row& row, const std::string& origin, const SpecLoader& specs) {
  Prediction p;
  attention::Request req;
  auto& prob = req.problem;
  const auto need = [&](const char* col) -> std::optional<std::int64_t> {
    const auto v = row.number(col, origin);
    if (!v) return std::nullopt;
    return static_cast<std::int64_t>(*v);
  };
  const auto batch = need("batch"), heads = need("heads"), seq_q = need("seq_q"), d = need("head_dim");
  if (!batch || !heads || !seq_q || !d) {
    p.skip_reason = "attention row without batch, heads, seq_q and head_dim";
    return p;
  }
  prob.batch = *batch;
  prob.heads = *heads;
  prob.seq_q = *seq_q;
  prob.head_dim = *d;
  prob.heads_kv = need("heads_kv").value_or(prob.heads);
  prob.seq_kv = need("seq_kv").value_or(prob.seq_q);
  prob.causal = need("causal").value_or(0) != 0;
  // Optional: where the causal diagonal sits when seq_q != seq_kv (PyTorch's SDPA: top_left).
  if (const std::string align = row.get("causal_align"); !align.empty()) {
    const auto a = attention::parse_causal_align(align);
    if (!a) {
      p.skip_reason = fmt::format("unknown causal_align \"{}\" (bottom_right, top_left)", align);
      return p;
    }
    prob.causal_align = *a;
  }
  const std::string dtype = row.get("dtype").empty() ? "bf16" : row.get("dtype");
  const auto t = parse_dtype(dtype);
  if (!t) {
    p.skip_reason = fmt::format("unknown dtype \"{}\"", dtype);
    return p;
  }
  prob.dtype = *t;
  req.kernel = row.get("kernel");
  if (req.kernel.empty() && !row.get("family").empty()) {
    req.family = attention::parse_family(row.get("family"));
    if (!req.family) {
      p.skip_reason = fmt::format("unknown family \"{}\" (fa2, fa3, cudnn, cudnn_sm80)", row.get("family"));
      return p;
    }
  }
  const std::string gpu = row.get("gpu").empty() ? "h100" : row.get("gpu");
  const hw::GpuSpec& spec = specs(gpu);
  attention::Resolved r;
  attention::LoweredAttention lowered;
  try {
    r = attention::resolve(req, spec);
    lowered = attention::lower_attention(r.problem, r.schedule, spec);
  } catch (const InputError& e) {
    p.skip_reason = e.what();
    return p;
  }
  apply_row_timing(row, lowered.graph);
  p.predicted_us = to_us(engine::simulate(lowered.graph, spec, measurement_options(row, origin, spec)).latency);
  p.ok = true;
  p.category = fmt::format("{}_{}", to_string(lowered.schedule.family), prob.seq_q == 1 ? "decode" : "prefill");
  p.schedule = lowered.schedule.name;
  return p;
}

}  // namespace tgsim::validate
