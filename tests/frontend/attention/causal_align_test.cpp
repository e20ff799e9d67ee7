// The causal mask's alignment when seq_q != seq_kv: bottom-right (FlashAttention's own API, the
// default) or top-left (PyTorch's scaled_dot_product_attention with is_causal=True). Hand-counted
// visible pairs, the KV blocks each Q tile visits, and a measurement row's `causal_align` column.
#include <gtest/gtest.h>

#include <filesystem>

#include "frontend/attention/lower.h"
#include "frontend/attention/lowering/work.h"
#include "frontend/attention/problem.h"
#include "frontend/attention/request.h"
#include "frontend/validate/measurements.h"
#include "frontend/validate/validate.h"
#include "sim/hw/spec_json.h"

namespace tgsim::attention {
namespace {

Problem rect(std::int64_t sq, std::int64_t skv, CausalAlign a) {
  Problem p{1, 1, 1, sq, skv, 64, true, DType::bf16, a};
  return p;
}

TEST(CausalAlign, VisiblePairsHandCounted) {
  // 2 queries, 4 keys. Bottom-right: row 0 sees keys 0..2, row 1 sees 0..3 (3 + 4). Top-left:
  // row 0 sees key 0, row 1 keys 0..1 (1 + 2).
  EXPECT_EQ(rect(2, 4, CausalAlign::bottom_right).visible_pairs(), 7.0);
  EXPECT_EQ(rect(2, 4, CausalAlign::top_left).visible_pairs(), 3.0);
  // 4 queries, 2 keys. Bottom-right: rows 0, 1 see nothing, rows 2, 3 see 1 and 2 (3). Top-left:
  // row 0 sees 1 key, rows 1..3 both (1 + 2 + 2 + 2).
  EXPECT_EQ(rect(4, 2, CausalAlign::bottom_right).visible_pairs(), 3.0);
  EXPECT_EQ(rect(4, 2, CausalAlign::top_left).visible_pairs(), 7.0);
  // Square problems are the same lower triangle either way.
  EXPECT_EQ(rect(4, 4, CausalAlign::top_left).visible_pairs(), rect(4, 4, CausalAlign::bottom_right).visible_pairs());
}

TEST(CausalAlign, TopLeftTileVisitsOnlyTheKeysUpToItsLastRow) {
  Schedule s;
  s.block_m = 128;
  s.block_n = 64;
  // One Q tile of 128 rows over 1024 keys (16 blocks).
  const Problem br = rect(128, 1024, CausalAlign::bottom_right);
  const auto wb = cta_work(br, s, make_tiling(br, s));
  ASSERT_EQ(wb.size(), 1u);
  EXPECT_EQ(wb[0].n_iters, 16);  // rows see keys up to 896 + row: every block, the last two masked
  EXPECT_EQ(wb[0].masked, 2);
  const Problem tl = rect(128, 1024, CausalAlign::top_left);
  const auto wt = cta_work(tl, s, make_tiling(tl, s));
  ASSERT_EQ(wt.size(), 1u);
  EXPECT_EQ(wt[0].n_iters, 2);  // rows 0..127 see keys 0..127: blocks 0 and 1, both on the diagonal
  EXPECT_EQ(wt[0].masked, 2);
}

TEST(CausalAlign, MeasurementRowReadsTheColumn) {
  const auto h200 = hw::load_gpu_spec(std::filesystem::path(TGSIM_SOURCE_DIR) / "configs/gpus/h200.json");
  validate::SpecLoader specs = [&](const std::string&) -> const hw::GpuSpec& { return h200; };
  const std::string head = "op,gpu,batch,heads,heads_kv,seq_q,seq_kv,head_dim,causal,time_us,causal_align\n";
  const std::string shape = "attention,h200,8,16,16,128,4096,128,1,100,";
  const auto t = validate::parse_csv(head + shape + "\n" + shape + "bottom_right\n" + shape + "top_left\n" + shape +
                                         "diagonal\n",
                                     "m.csv");
  const auto absent = validate::predict_attention(t.rows[0], "m.csv", specs);
  const auto br = validate::predict_attention(t.rows[1], "m.csv", specs);
  const auto tl = validate::predict_attention(t.rows[2], "m.csv", specs);
  ASSERT_TRUE(absent.ok && br.ok && tl.ok) << absent.skip_reason << br.skip_reason << tl.skip_reason;
  EXPECT_EQ(absent.predicted_us, br.predicted_us);  // bottom-right unless the row says otherwise
  // Top-left: each tile visits 2 of the 64 KV blocks.
  EXPECT_LT(tl.predicted_us, 0.25 * br.predicted_us);
  const auto bad = validate::predict_attention(t.rows[3], "m.csv", specs);
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.skip_reason.find("causal_align \"diagonal\""), std::string::npos) << bad.skip_reason;
}

}  // namespace
}  // namespace tgsim::attention
