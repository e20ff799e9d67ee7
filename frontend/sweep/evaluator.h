// One op a sweep can run ("gemm", "attention"; later "moe", "llm"): the parameters it takes and
// how it turns one point's parameters plus a GPU spec into a result. Evaluators are kept in an
// explicit registry filled by register_builtin_evaluators(); a sweep spec's "op" picks one.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/graph/graph_size.h"
#include "sim/hw/gpu_spec.h"

namespace tgsim::sweep {

enum class ParamKind { integer, boolean, text };

struct ParamInfo {
  std::string name;  // as the CLI flag without dashes, '-' written '_' (seq_q for --seq-q)
  ParamKind kind = ParamKind::integer;
};

struct Outcome {
  double latency_us = 0;
  std::optional<double> tflops;  // when the op has a FLOP count
  std::string bottleneck;
  std::string schedule;
};

// What every evaluation shares: the spec file's folder (for relative paths in parameters such as
// schedule files) and the run limits (a point too big for the machine is an error row).
struct EvalContext {
  std::string dir;
  graph::Limits limits = graph::default_limits();
};

// Contract: evaluate() is called concurrently from several threads with distinct arguments and
// must not keep state between calls; the same (params, spec) always give the same Outcome. It
// throws InputError (a point the op cannot run) or SimulationError (deadlock); the sweep records
// either as that point's error. `params` holds every declared parameter the spec states (base
// merged with the point), values already checked against ParamInfo::kind; `dir` is the spec
// file's folder, for relative paths in parameters such as schedule files.
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual std::vector<ParamInfo> params() const = 0;
  virtual Outcome evaluate(const nlohmann::json& params, const hw::GpuSpec& spec, const EvalContext& ctx) const = 0;
};

class EvaluatorRegistry {
 public:
  void add(std::string op, std::unique_ptr<Evaluator> e) { by_op_[std::move(op)] = std::move(e); }
  // Throws InputError naming `where` and listing the registered ops when `op` is unknown.
  const Evaluator& get(const std::string& op, const std::string& where) const;
  std::vector<std::string> ops() const;

 private:
  std::map<std::string, std::unique_ptr<Evaluator>> by_op_;
};

std::unique_ptr<Evaluator> make_gemm_evaluator();
std::unique_ptr<Evaluator> make_attention_evaluator();
void register_builtin_evaluators(EvaluatorRegistry& r);

// Reading a checked parameter (evaluators): the value, or `fallback` when the spec omits it.
std::int64_t int_param(const nlohmann::json& p, const std::string& name, std::int64_t fallback);
bool bool_param(const nlohmann::json& p, const std::string& name, bool fallback);
std::string text_param(const nlohmann::json& p, const std::string& name, const std::string& fallback);
// A relative path resolved against the spec's folder; empty stays empty.
std::string path_param(const nlohmann::json& p, const std::string& name, const std::string& dir);

}  // namespace tgsim::sweep
