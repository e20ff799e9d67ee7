// LLM steps: model presets, the kernel sequence of a step (shapes by hand from the model
// configs), and simulated invariants.
#include <gtest/gtest.h>

#include <algorithm>

#include "frontend/llm/model.h"
#include "frontend/llm/run.h"
#include "frontend/llm/step.h"
#include "sim/hw/spec_json.h"
#include "sim/units/error.h"

namespace tgsim::llm {
namespace {

const std::filesystem::path kConfigs = TGSIM_SOURCE_DIR "/configs";

const Op& find(const LayerGroup& g, const std::string& name) {
  const auto it = std::find_if(g.ops.begin(), g.ops.end(), [&](const Op& o) { return o.name == name; });
  if (it == g.ops.end()) throw std::runtime_error("no op " + name);
  return *it;
}

TEST(LlmModels, EveryPresetLoadsWithSources) {
  for (const char* name : {"llama3-8b", "llama3-70b", "mixtral-8x7b", "qwen3-30b-a3b", "deepseek-v3"}) {
    const ModelConfig m = load_model(name, kConfigs);
    EXPECT_GT(m.layers, 0) << name;
    EXPECT_EQ(m.heads % m.kv_heads, 0) << name;
    EXPECT_FALSE(m.sources.empty()) << name;
  }
  EXPECT_TRUE(load_model("qwen3-30b-a3b", kConfigs).moe.has_value());
  EXPECT_TRUE(load_model("deepseek-v3", kConfigs).mla.has_value());
  try {
    load_model("llama3-8", kConfigs);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean \"llama3-8b\""), std::string::npos) << e.what();
  }
}

TEST(LlmStep, Llama8bPrefillShapes) {
  const ModelConfig m = load_model("llama3-8b", kConfigs);
  StepRequest r;
  r.batch = 2;
  r.seq = 1024;
  const StepPlan p = plan_step(m, r);
  ASSERT_EQ(p.groups.size(), 2u);  // 32 dense layers + the head
  const LayerGroup& l = p.groups[0];
  EXPECT_EQ(l.count, 32);
  EXPECT_EQ(p.tokens, 2048);
  const Op& qkv = find(l, "qkv_proj");
  EXPECT_EQ(qkv.m, 2048);
  EXPECT_EQ(qkv.n, (32 + 2 * 8) * 128);
  EXPECT_EQ(qkv.k, 4096);
  EXPECT_EQ(find(l, "gate_up_proj").n, 2 * 14336);
  EXPECT_EQ(find(l, "down_proj").k, 14336);
  const auto& a = find(l, "attention").attention;
  EXPECT_EQ(a.batch, 2);
  EXPECT_EQ(a.seq_q, 1024);
  EXPECT_TRUE(a.causal);
  EXPECT_EQ(find(p.groups[1], "lm_head").m, 2);  // the last token of each sequence
}

TEST(LlmStep, DecodeReadsTheContextAndTensorParallelSplitsHeads) {
  const ModelConfig m = load_model("llama3-70b", kConfigs);
  StepRequest r;
  r.phase = Phase::decode;
  r.batch = 16;
  r.context = 4095;
  r.tp = 4;
  const StepPlan p = plan_step(m, r);
  const LayerGroup& l = p.groups[0];
  const auto& a = find(l, "attention").attention;
  EXPECT_EQ(a.seq_q, 1);
  EXPECT_EQ(a.seq_kv, 4096);
  EXPECT_EQ(a.heads, 16);
  EXPECT_EQ(a.heads_kv, 2);
  EXPECT_EQ(find(l, "o_proj").k, 16 * 128);
  EXPECT_EQ(std::count_if(l.ops.begin(), l.ops.end(), [](const Op& o) { return o.kind == OpKind::all_reduce; }), 2);
  r.tp = 3;
  EXPECT_THROW(plan_step(m, r), InputError);
}

TEST(LlmStep, MoeUsesOneGemmPairPerActiveExpert) {
  const ModelConfig m = load_model("qwen3-30b-a3b", kConfigs);
  StepRequest r;
  r.seq = 512;
  const StepPlan p = plan_step(m, r);
  const LayerGroup& l = p.groups[0];
  EXPECT_EQ(l.name, "moe layer");
  const Op& up = find(l, "expert_gate_up_proj");
  EXPECT_EQ(up.calls, 128);
  EXPECT_EQ(up.m, 512 * 8 / 128);
  EXPECT_EQ(up.n, 2 * 768);
  r.phase = Phase::decode;
  r.batch = 4;  // 32 token-expert pairs: 32 experts with one token each
  const StepPlan d = plan_step(m, r);
  EXPECT_EQ(find(d.groups[0], "expert_down_proj").calls, 32);
  EXPECT_EQ(find(d.groups[0], "expert_down_proj").m, 1);
}

TEST(LlmSimulation, LayersScaleTheStepAndMoreBandwidthIsNeverSlower) {
  const ModelConfig m = load_model("llama3-8b", kConfigs);
  auto spec = hw::load_gpu_preset("h100", kConfigs);
  StepRequest r;
  r.phase = Phase::decode;
  r.batch = 8;
  r.context = 1024;
  r.layers = 1;
  StepOptions o;
  const double one = simulate_step(plan_step(m, r), m, spec, o).total_us;
  r.layers = 3;
  const StepResult three = simulate_step(plan_step(m, r), m, spec, o);
  // 3 layers + head vs 1 layer + head: the head is shared, so strictly between 1x and 3x.
  EXPECT_GT(three.total_us, one * 1.5);
  EXPECT_LT(three.total_us, one * 3);
  double sum = 0;
  for (const auto& row : three.rows) sum += row.total_us;
  EXPECT_NEAR(sum, three.kernel_us, 1e-6 * three.kernel_us);
  auto fast = spec;
  fast.hbm.bandwidth = BytesPerSecond{spec.hbm.bandwidth.value * 2};
  EXPECT_LE(simulate_step(plan_step(m, r), m, fast, o).total_us, three.total_us * 1.0001);
  // On the H200 the gap between queued kernels and between graph nodes are both the measured
  // 0.5 us: a CUDA graph is never slower.
  const auto h200 = hw::load_gpu_preset("h200", kConfigs);
  const double eager_gaps = simulate_step(plan_step(m, r), m, h200, o).gap_us;
  o.cuda_graph = true;
  EXPECT_LE(simulate_step(plan_step(m, r), m, h200, o).gap_us, eager_gaps);
}

TEST(LlmSimulation, TensorParallelNeedsAnAllReduceModel) {
  const ModelConfig m = load_model("llama3-8b", kConfigs);
  const auto spec = hw::load_gpu_preset("h100", kConfigs);
  StepRequest r;
  r.tp = 2;
  r.layers = 1;
  r.seq = 256;
  EXPECT_THROW(simulate_step(plan_step(m, r), m, spec, StepOptions{}), InputError);
  StepOptions o;
  o.all_reduce_us = [](double bytes) { return bytes / 1e6; };  // 1 byte per us: visible
  const StepResult res = simulate_step(plan_step(m, r), m, spec, o);
  const auto it = std::find_if(res.rows.begin(), res.rows.end(), [](const KernelRow& k) { return k.name == "mlp_all_reduce"; });
  ASSERT_NE(it, res.rows.end());
  EXPECT_DOUBLE_EQ(it->us_per_call, 256.0 * 4096 * 2 / 1e6);
}

}  // namespace
}  // namespace tgsim::llm
