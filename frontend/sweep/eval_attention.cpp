// The `attention` sweep op: parameters as `tgsim attention` takes them (batch, heads, heads_kv,
// seq_q, seq_kv, head_dim, causal, causal_align, dtype, kernel, schedule, family); resolve → lower →
// simulate.
#include <fmt/format.h>

#include "frontend/attention/lower.h"
#include "frontend/attention/request.h"
#include "frontend/sweep/evaluator.h"
#include "frontend/sweep/simulate_point.h"
#include "sim/units/error.h"

namespace tgsim::sweep {
namespace {

class AttentionEvaluator : public Evaluator {
 public:
  std::vector<ParamInfo> params() const override {
    return {{"batch", ParamKind::integer},  {"heads", ParamKind::integer},  {"heads_kv", ParamKind::integer},
            {"seq_q", ParamKind::integer},  {"seq_kv", ParamKind::integer}, {"head_dim", ParamKind::integer},
            {"causal", ParamKind::boolean}, {"dtype", ParamKind::text},     {"kernel", ParamKind::text},
            {"schedule", ParamKind::text},  {"family", ParamKind::text},   {"causal_align", ParamKind::text}};
  }

  Outcome evaluate(const nlohmann::json& p, const hw::GpuSpec& spec, const EvalContext& ctx) const override {
    attention::Request req;
    auto& prob = req.problem;
    prob.batch = int_param(p, "batch", 1);
    prob.heads = int_param(p, "heads", 0);
    prob.seq_q = int_param(p, "seq_q", 0);
    prob.head_dim = int_param(p, "head_dim", 128);
    prob.heads_kv = int_param(p, "heads_kv", prob.heads);
    prob.seq_kv = int_param(p, "seq_kv", prob.seq_q);
    prob.causal = bool_param(p, "causal", false);
    const std::string align = text_param(p, "causal_align", "bottom_right");
    const auto a = attention::parse_causal_align(align);
    if (!a) throw InputError(fmt::format("causal_align: \"{}\" is neither bottom_right nor top_left", align));
    prob.causal_align = *a;
    if (prob.batch <= 0 || prob.heads <= 0 || prob.heads_kv <= 0 || prob.seq_q <= 0 || prob.seq_kv <= 0 ||
        prob.head_dim <= 0)
      throw InputError("batch, heads, heads_kv, seq_q, seq_kv and head_dim must be positive");
    if (prob.heads % prob.heads_kv != 0)
      throw InputError(fmt::format("heads ({}) must be a multiple of heads_kv ({})", prob.heads, prob.heads_kv));
    const std::string dtype = text_param(p, "dtype", "bf16");
    const auto t = parse_dtype(dtype);
    if (!t) throw InputError(fmt::format("dtype: unknown type \"{}\"", dtype));
    prob.dtype = *t;
    req.kernel = text_param(p, "kernel", "");
    req.schedule_file = path_param(p, "schedule", ctx.dir);
    if (const std::string f = text_param(p, "family", ""); !f.empty()) {
      req.family = attention::parse_family(f);
      if (!req.family) throw InputError(fmt::format("family: unknown family \"{}\"", f));
    }
    const attention::Resolved r = attention::resolve(req, spec);
    const auto lowered = attention::lower_attention(r.problem, r.schedule, spec);
    return simulate_outcome(lowered.graph, spec, ctx.limits, r.problem.flops(), lowered.schedule.name);
  }
};

}  // namespace

std::unique_ptr<Evaluator> make_attention_evaluator() { return std::make_unique<AttentionEvaluator>(); }

}  // namespace tgsim::sweep
