// The `gemm` sweep op: parameters as `tgsim gemm` takes them (m, n, k, dtype, out_dtype, order,
// kernel, schedule); resolve → lower → simulate, as the command does.
#include <fmt/format.h>

#include "frontend/gemm/lower.h"
#include "frontend/gemm/request.h"
#include "frontend/sweep/evaluator.h"
#include "frontend/sweep/simulate_point.h"
#include "sim/units/error.h"

namespace tgsim::sweep {
namespace {

DType dtype_param(const nlohmann::json& p, const std::string& name, const std::string& fallback) {
  const std::string s = text_param(p, name, fallback);
  const auto t = parse_dtype(s);
  if (!t) throw InputError(fmt::format("{}: unknown type \"{}\"", name, s));
  return *t;
}

class GemmEvaluator : public Evaluator {
 public:
  std::vector<ParamInfo> params() const override {
    return {{"m", ParamKind::integer},   {"n", ParamKind::integer},      {"k", ParamKind::integer},
            {"dtype", ParamKind::text},  {"out_dtype", ParamKind::text}, {"order", ParamKind::text},
            {"kernel", ParamKind::text}, {"schedule", ParamKind::text}};
  }

  Outcome evaluate(const nlohmann::json& p, const hw::GpuSpec& spec, const EvalContext& ctx) const override {
    gemm::Request req;
    req.m = int_param(p, "m", 0);
    req.n = int_param(p, "n", 0);
    req.k = int_param(p, "k", 0);
    if (req.m <= 0 || req.n <= 0 || req.k <= 0)
      throw InputError(fmt::format("m, n and k must be positive (got {}, {}, {})", req.m, req.n, req.k));
    req.dtype = dtype_param(p, "dtype", "bf16");
    if (p.contains("out_dtype")) req.out_dtype = dtype_param(p, "out_dtype", "");
    const std::string order = text_param(p, "order", "row");
    if (order != "row" && order != "col") throw InputError(fmt::format("order must be row or col, got \"{}\"", order));
    req.row_major = order == "row";
    req.kernel = text_param(p, "kernel", "");
    req.schedule_file = path_param(p, "schedule", ctx.dir);
    const gemm::Resolved r = gemm::resolve(req, spec);
    const auto lowered = gemm::lower_gemm(r.problem, r.schedule, spec);
    return simulate_outcome(lowered.graph, spec, ctx.limits, r.problem.flops(), lowered.schedule.name);
  }
};

}  // namespace

std::unique_ptr<Evaluator> make_gemm_evaluator() { return std::make_unique<GemmEvaluator>(); }

}  // namespace tgsim::sweep
