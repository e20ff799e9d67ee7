// A KV length that is not a multiple of block_n: the last KV block's copies move only the keys
// that exist (FlashAttention-2's cp.async copies are predicated, a TMA box's out-of-range rows are
// zero-filled without a read), for the CTA (or split) that visits it.
#include <gtest/gtest.h>

#include <string>

#include "frontend/attention/lower.h"
#include "frontend/attention/lowering/work.h"
#include "frontend/attention/request.h"
#include "sim/engine/simulate.h"
#include "sim/hw/spec_json.h"

namespace tgsim::attention {
namespace {

hw::GpuSpec h200() { return hw::load_gpu_preset("h200", TGSIM_SOURCE_DIR "/configs"); }

Problem problem(std::int64_t sq, std::int64_t skv, std::int64_t d = 128) {
  Problem p;
  p.batch = 2;
  p.heads = 4;
  p.heads_kv = 4;
  p.seq_q = sq;
  p.seq_kv = skv;
  p.head_dim = d;
  return p;
}

// Bytes of the load node `id` in the template the CTAs of grid group 0 run.
double load_bytes(const graph::Kernel& k, const std::string& id) {
  const auto& t = k.templates.at(static_cast<std::size_t>(k.grid.at(0).template_index));
  for (const auto& n : t.nodes) {
    if (n.id == id) return static_cast<double>(n.bytes.value);
  }
  throw std::runtime_error("no node " + id);
}

TEST(RaggedKv, OnlyTheCtaVisitingTheLastBlockHasATail) {
  Schedule s;
  s.block_m = 128;
  s.block_n = 64;
  const Problem p = problem(128, 1000);  // 15 whole blocks and one of 40 keys
  const auto w = cta_work(p, s, make_tiling(p, s));
  ASSERT_EQ(w.size(), 8u);
  EXPECT_EQ(w[0].n_iters, 16);
  EXPECT_EQ(w[0].kv_tail, 40);
  Schedule split = s;
  split.splits = 4;  // 4 blocks per split: only the last split holds block 15
  const auto ws = cta_work(p, split, make_tiling(p, split));
  ASSERT_EQ(ws.size(), 32u);
  EXPECT_EQ(ws[0].kv_tail, 0);
  EXPECT_EQ(ws[3].kv_tail, 40);
  const Problem even = problem(128, 1024);
  EXPECT_EQ(cta_work(even, s, make_tiling(even, s))[0].kv_tail, 0);
}

TEST(RaggedKv, LastBlockCopiesMoveOnlyItsKeys) {
  const auto spec = h200();
  // FlashAttention-2 over 1000 keys: whole blocks of block_n keys, the last one the rest (256
  // tiles: enough to fill the SMs, so no split-KV).
  Problem p = problem(128, 1000);
  p.batch = 64;
  const Schedule s = default_schedule(p, Family::fa2, spec);
  const std::int64_t bn = s.block_n, last = (1000 + bn - 1) / bn - 1, tail = 1000 - last * bn;
  ASSERT_GT(tail, 0);
  ASSERT_LT(tail, bn);
  const auto fa2 = lower_attention(p, s, spec);
  EXPECT_EQ(load_bytes(fa2.graph.kernels[0], "ldK_0"), static_cast<double>(bn) * 128 * 2);
  EXPECT_EQ(load_bytes(fa2.graph.kernels[0], "ldK_" + std::to_string(last)), static_cast<double>(tail) * 128 * 2);
  EXPECT_EQ(load_bytes(fa2.graph.kernels[0], "ldV_" + std::to_string(last)), static_cast<double>(tail) * 128 * 2);
  // cuDNN's persistent kernel (128-key blocks): 64 keys fill half of the only block's box, and
  // the memory-bound one-block tiles run faster than with 128 keys.
  const std::string cudnn = "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_4x1x1_cga1x1x1_kernel0_0";
  const auto time_us = [&](std::int64_t skv) {
    Request req;
    req.problem = problem(128, skv);
    req.problem.batch = 528;
    req.kernel = cudnn;
    const auto r = resolve(req, spec);
    const auto l = lower_attention(r.problem, r.schedule, spec);
    if (skv == 64) {
      EXPECT_EQ(load_bytes(l.graph.kernels[0], "t0_ldK_0"), 64.0 * 128 * 2);
    }
    engine::SimOptions o;
    o.critical_path = false;
    return to_us(engine::simulate(l.graph, spec, o).latency);
  };
  EXPECT_LT(time_us(64), 0.9 * time_us(128));
}

}  // namespace
}  // namespace tgsim::attention
