// One LLM forward step (prefill of batch x seq tokens, or decode of one token for each of batch
// sequences with `context` tokens cached) as the kernel sequence an inference engine runs per
// layer (docs/llm.md): RMSNorm, QKV GEMM, RoPE, attention, output projection, residual add,
// RMSNorm, gate/up GEMM, SiLU x mul, down GEMM (or the MoE layer), residual add; then the final
// norm and the LM head for the last token of each sequence. Tensor parallelism splits heads and
// the MLP across `tp` GPUs and adds an all-reduce after the output projection and the MLP.
#pragma once

#include <string>
#include <vector>

#include "frontend/attention/problem.h"
#include "frontend/elementwise.h"
#include "frontend/llm/model.h"

namespace tgsim::llm {

enum class Phase { prefill, decode };

struct StepRequest {
  Phase phase = Phase::prefill;
  std::int64_t batch = 1;
  std::int64_t seq = 2048;      // prefill: tokens per sequence
  std::int64_t context = 2048;  // decode: tokens already in the KV cache (attention reads context + 1)
  int tp = 1;
  int layers = 0;               // 0: the model's; else simulate this many layers
};

enum class OpKind { gemm, attention, elementwise, all_reduce };

using frontend::Elementwise;  // a memory-bound kernel: bytes moved, SIMT work per element

struct Op {
  std::string name;  // e.g. "qkv_proj", "expert_down"
  OpKind kind = OpKind::gemm;
  int calls = 1;     // kernels of this shape in a row (e.g. one per active expert)
  std::int64_t m = 0, n = 0, k = 0;  // gemm, row-major view: y[m, n] = x[m, k] W^T
  attention::Problem attention;
  Elementwise elementwise;
  double bytes = 0;  // all_reduce payload per GPU
};

struct LayerGroup {
  std::string name;  // "dense layer", "moe layer", "lm head"
  int count = 1;     // how many times it runs per step
  std::vector<Op> ops;
};

struct StepPlan {
  std::int64_t tokens = 0;  // tokens processed by the step
  std::vector<LayerGroup> groups;
  std::vector<std::string> notes;
};

// Throws InputError for requests the model cannot take (tp not dividing heads, ...).
StepPlan plan_step(const ModelConfig& m, const StepRequest& r);

}  // namespace tgsim::llm
