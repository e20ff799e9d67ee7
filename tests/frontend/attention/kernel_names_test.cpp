// Attention kernel-name import: real names from the H200 captures (traces/h200/attention.csv)
// and the FlashAttention-3 sources' template form.
#include <gtest/gtest.h>

#include "frontend/attention/kernel_names.h"

namespace tgsim::attention {
namespace {

const char* kFa2 =
    "pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t, "
    "Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, false, false, false, true, true, false, false>";
const char* kSplit =
    "pytorch_flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, cutlass::bfloat16_t, "
    "Flash_kernel_traits<128, 64, 128, 4, cutlass::bfloat16_t> >, false, false, false, false, true, false, true, false>;"
    "pytorch_flash::flash_fwd_splitkv_combine_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, "
    "cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 4, cutlass::bfloat16_t> >, 4, 5, true>";

TEST(AttentionKernelNames, FlashAttention2TraitsGiveTileWarpsAndHeadDim) {
  const auto r = parse_attention_kernel_names(kFa2);
  ASSERT_TRUE(r.supported) << r.reason;
  EXPECT_EQ(r.schedule.family, Family::fa2);
  EXPECT_EQ(r.head_dim, 128);
  EXPECT_EQ(r.schedule.block_m, 128);
  EXPECT_EQ(r.schedule.block_n, 64);
  EXPECT_EQ(r.schedule.warps, 4);
  EXPECT_FALSE(r.schedule.split_kernel);
  EXPECT_FALSE(r.has_combine);
}

TEST(AttentionKernelNames, SplitKvWithCombineLeavesTheSplitCountToTheHeuristic) {
  const auto r = parse_attention_kernel_names(kSplit);
  ASSERT_TRUE(r.supported) << r.reason;
  EXPECT_TRUE(r.schedule.split_kernel);
  EXPECT_TRUE(r.has_combine);
  EXPECT_EQ(r.schedule.splits, 0);
  EXPECT_EQ(r.schedule.block_m, 64);
  EXPECT_EQ(r.schedule.block_n, 128);
  EXPECT_EQ(r.kernels.size(), 2u);
}

TEST(AttentionKernelNames, FlashAttention3MainloopTupleGivesStagesAndTile) {
  const auto r = parse_attention_kernel_names(
      "cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash::CollectiveMainloopFwdSm90<2, "
      "cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >, cute::tuple<cute::C<128>, cute::C<176>, cute::C<128> >, 128, "
      "cutlass::bfloat16_t, float, cutlass::arch::Sm90, false, false> > > >");
  ASSERT_TRUE(r.supported) << r.reason;
  EXPECT_EQ(r.schedule.family, Family::fa3);
  EXPECT_EQ(r.schedule.stages, 2);
  EXPECT_EQ(r.schedule.block_m, 128);
  EXPECT_EQ(r.schedule.block_n, 176);
  EXPECT_EQ(r.head_dim, 128);
  EXPECT_EQ(r.schedule.consumer_warpgroups, 2);
}

TEST(AttentionKernelNames, CudnnSm90IsTwoPingPongWarpgroupsOf64Rows) {
  const auto r = parse_attention_kernel_names(
      "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_4x1x1_cga1x1x1_kernel0_0");
  ASSERT_TRUE(r.supported) << r.reason;
  EXPECT_EQ(r.schedule.family, Family::cudnn);
  EXPECT_EQ(r.schedule.block_m, 128);
  EXPECT_EQ(r.schedule.block_n, 128);
  EXPECT_EQ(r.schedule.consumer_warpgroups, 2);
  EXPECT_TRUE(r.schedule.pingpong);
  EXPECT_EQ(r.head_dim, 128);
}

TEST(AttentionKernelNames, CudnnSm80DecodeWithLeanReductionIsSplitAlongKv) {
  const auto r = parse_attention_kernel_names(
      "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_35_16x128x128_1x4x1_cga1x1x1_kernel0_0;"
      "cudnn::fusion::lean_reduction_kernel<false, false, false>");
  ASSERT_TRUE(r.supported) << r.reason;
  EXPECT_EQ(r.schedule.family, Family::cudnn_sm80);
  EXPECT_TRUE(r.schedule.warps_along_kv);
  EXPECT_EQ(r.schedule.warps, 4);
  EXPECT_EQ(r.schedule.block_m, 16);
  EXPECT_TRUE(r.schedule.split_kernel);
  EXPECT_TRUE(r.has_combine);
}

TEST(AttentionKernelNames, UnknownOrAmbiguousListsAreUnsupportedWithAReason) {
  auto r = parse_attention_kernel_names("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn");
  EXPECT_FALSE(r.supported);
  EXPECT_NE(r.reason.find("not a FlashAttention"), std::string::npos);
  r = parse_attention_kernel_names(std::string(kFa2) + ";" + kFa2);
  EXPECT_FALSE(r.supported);
  EXPECT_NE(r.reason.find("more than one"), std::string::npos);
  r = parse_attention_kernel_names("flash_fwd_splitkv_combine_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4>, 4, 5, true>");
  EXPECT_FALSE(r.supported);
  r = parse_attention_kernel_names("flash_fwd_kernel<Flash_fwd_kernel_traits<x, y>>");
  EXPECT_FALSE(r.supported);
}

TEST(AttentionKernelNames, TemplateArgsRespectNesting) {
  const auto a = template_args("f<A<1, 2>, (3, 4), 5>", 0);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0], "A<1, 2>");
  EXPECT_EQ(a[1], "(3, 4)");
  EXPECT_EQ(a[2], "5");
  EXPECT_TRUE(template_args("f<1, 2", 0).empty());  // unbalanced
}

}  // namespace
}  // namespace tgsim::attention
