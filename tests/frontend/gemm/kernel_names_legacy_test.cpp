// Kernel-name import, older cuBLAS names (sm90_xmma, ampere_*): real names from public profiles
// (sources in docs/kernel-names.md), field by field. Split by grammar: kernel_names_*_test.cpp.
#include "tests/frontend/gemm/kernel_names_checks.h"

namespace tgsim::gemm {
namespace {

using test::expect_unsupported;
using test::has_note;
using test::parse_ok;

// ---------------------------------------------------------------- xmma and Ampere cuBLAS

TEST(XmmaNames, HopperOneWarpgroup) {
  const auto r = parse_ok(
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
      "kernel__5x_cublas");
  const Schedule& s = r.schedule;
  EXPECT_EQ(s.family, Family::hopper_warpspecialized);
  EXPECT_EQ(s.tile, (TileShape{128, 128, 64}));
  EXPECT_EQ(s.warp_specialization, WarpSpecialization::none);
  EXPECT_EQ(s.consumer_warpgroups, 1);
  EXPECT_FALSE(s.persistent);
  EXPECT_EQ(s.layout_a, 'T');
  EXPECT_EQ(s.layout_b, 'N');
  EXPECT_EQ(s.c_type, DType::bf16);
  EXPECT_TRUE(has_note(r, "stage count"));
}

TEST(XmmaNames, HopperTwoWarpgroupsCooperative) {
  const Schedule s = parse_ok(
                         "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize256x128x64_warpgroupsize2x1x1_execute_"
                         "segment_k_off_kernel__5x_cublas",
                         DType::fp16)
                         .schedule;
  EXPECT_EQ(s.warp_specialization, WarpSpecialization::cooperative);
  EXPECT_EQ(s.consumer_warpgroups, 2);
  EXPECT_EQ(s.coop_split, CoopSplit::along_m);
  EXPECT_EQ(s.a_type, DType::fp16);
}

TEST(XmmaNames, Tf32AndFp32Output) {
  const Schedule tf32 = parse_ok(
                            "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize256x128x32_warpgroupsize2x1x1_execute_"
                            "segment_k_off_kernel__5x_cublas",
                            DType::fp32)
                            .schedule;
  EXPECT_EQ(tf32.a_type, DType::tf32);
  EXPECT_EQ(tf32.c_type, DType::fp32);
  EXPECT_EQ(tf32.tile.k, 32);
  const Schedule bf16_f32 = parse_ok(
                                "sm90_xmma_gemm_bf16f32_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_"
                                "execute_segment_k_off_kernel__5x_cublas")
                                .schedule;
  EXPECT_EQ(bf16_f32.a_type, DType::bf16);
  EXPECT_EQ(bf16_f32.c_type, DType::fp32);
}

TEST(XmmaNames, SegmentKOnIsNoted) {
  const auto r = parse_ok(
      "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_on_"
      "kernel__5x_cublas",
      DType::fp16);
  EXPECT_TRUE(has_note(r, "segment_k_on"));
}

// cuBLAS runs some segment-K GEMMs as two xmma kernels: the GEMM, then execute_split_k_kernel,
// which sums the K segments' partial tiles (traces/h200/gemm.csv, tf32 256x256x65536).
TEST(XmmaNames, SegmentKWithItsSplitKKernel) {
  const auto r = parse_ok(
      "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x64x32_warpgroupsize1x1x1_execute_segment_k_on_kernel__5x_"
      "cublas;sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x64x32_warpgroupsize1x1x1_execute_split_k_kernel__5x_"
      "cublas",
      DType::tf32);
  EXPECT_TRUE(r.has_splitk_reduce);
  EXPECT_TRUE(r.schedule.split_k_runtime);
  EXPECT_EQ(r.schedule.tile, (TileShape{128, 64, 32}));
  ASSERT_EQ(r.kernels.size(), 2U);
  // The split-K kernel alone is a reduction, not a GEMM to simulate.
  EXPECT_FALSE(parse_gemm_kernel_names(
                   "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x64x32_warpgroupsize1x1x1_execute_split_k_kernel__"
                   "5x_cublas",
                   DType::tf32)
                   .supported);
}

TEST(XmmaNames, AmpereWarps) {
  const Schedule s = parse_ok(
                         "sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize32x32x64_stage6_warpsize2x2x1_tensor16x8x16_"
                         "execute_kernel__5x_cublas",
                         DType::fp16)
                         .schedule;
  EXPECT_EQ(s.family, Family::ampere_multistage);
  EXPECT_EQ(s.tile, (TileShape{32, 32, 64}));
  EXPECT_EQ(s.stages, 6);
  EXPECT_EQ(s.warps, 4);
  EXPECT_EQ(s.warp_specialization, WarpSpecialization::none);
}

TEST(XmmaNames, AmpereFp16AccumulateTensorRt) {
  const Schedule s = parse_ok(
                         "sm80_xmma_gemm_f16f16_f16f16_f16_tn_n_tilesize32x32x64_stage6_warpsize2x2x1_tensor16x8x16_"
                         "execute_kernel_trt",
                         DType::fp16)
                         .schedule;
  EXPECT_EQ(s.accumulate, DType::fp16);
  EXPECT_EQ(s.c_type, DType::fp16);
}

TEST(XmmaNames, AmpereOddTile) {
  const Schedule s =
      parse_ok("sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize96x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
               DType::fp16)
          .schedule;
  EXPECT_EQ(s.tile, (TileShape{96, 128, 32}));
  EXPECT_EQ(s.layout_a, 'N');
  EXPECT_EQ(s.stages, 4);
}

TEST(XmmaNames, ConvolutionIsUnsupported) {
  expect_unsupported(
      "sm90_xmma_dgrad_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x64x32_warpgroupsize1x1x1_g1_"
      "execute_segment_k_on_kernel__5x_cudnn",
      "not a plain GEMM");
  // wgmma exists only on sm90.
  expect_unsupported(
      "sm100_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
      "kernel__5x_cublas",
      "sm100");
}

TEST(AmpereNames, Basic) {
  const Schedule s = parse_ok("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn").schedule;
  EXPECT_EQ(s.family, Family::ampere_multistage);
  EXPECT_EQ(s.tile, (TileShape{128, 128, 32}));
  EXPECT_EQ(s.stages, 5);
  EXPECT_EQ(s.warps, 4);
  EXPECT_EQ(s.a_type, DType::bf16);
  EXPECT_EQ(s.c_type, DType::bf16);
  EXPECT_EQ(s.accumulate, DType::fp32);
  EXPECT_EQ(s.layout_a, 'T');
  EXPECT_EQ(s.layout_b, 'N');
}

TEST(AmpereNames, LargeTileHasEightWarps) {
  EXPECT_EQ(parse_ok("ampere_bf16_s16816gemm_bf16_128x256_ldg8_f2f_stages_64x3_tn").schedule.warps, 8);
  const Schedule h = parse_ok("ampere_h16816gemm_256x128_ldg8_mods_stages_64x3_nt", DType::fp16).schedule;
  EXPECT_EQ(h.warps, 8);
  EXPECT_EQ(h.accumulate, DType::fp16);
  EXPECT_EQ(h.a_type, DType::fp16);
  EXPECT_EQ(h.layout_b, 'T');
}

TEST(AmpereNames, SlicedK) {
  const Schedule s = parse_ok("ampere_bf16_s16816gemm_bf16_64x64_sliced1x2_ldg8_f2f_stages_64x6_tn").schedule;
  EXPECT_EQ(s.warps, 2);
  EXPECT_EQ(s.stages, 6);
}

TEST(AmpereNames, Fp16With1688) {
  const Schedule s =
      parse_ok("ampere_fp16_s1688gemm_fp16_128x128_ldg8_f2f_stages_32x1_nn_kernel", DType::fp16).schedule;
  EXPECT_EQ(s.tile, (TileShape{128, 128, 32}));
  EXPECT_EQ(s.stages, 1);
  EXPECT_EQ(s.a_type, DType::fp16);
}

TEST(AmpereNames, SplitKInferredFromReduction) {
  const auto r = parse_ok(
      "ampere_s16816gemm_bf16_64x64_sliced1x2_ldg8_stages_64x6_nn; void cublasLt::splitKreduce_kernel<(int)32, "
      "(int)16, int, float, __nv_bfloat16, float, __nv_bfloat16, (bool)0, __nv_bfloat16, __nv_bfloat16, __nv_b...");
  EXPECT_TRUE(r.has_splitk_reduce);
  EXPECT_TRUE(r.schedule.split_k_runtime);
  EXPECT_TRUE(has_note(r, "inferred from the reduction"));
  EXPECT_EQ(r.schedule.c_type, DType::fp32);  // no output prefix: the GEMM writes fp32 partials
  ASSERT_EQ(r.kernels.size(), 2U);
  EXPECT_EQ(r.kernels[0], "ampere_s16816gemm_bf16_64x64_sliced1x2_ldg8_stages_64x6_nn");
}

TEST(AmpereNames, Unsupported) {
  expect_unsupported("ampere_sgemm_128x64_tn", "SIMT");
  expect_unsupported("ampere_int32_i16832gemm_int8_128x128_ldg16_mods_stages_64x3_nt", "int32");
}

}  // namespace
}  // namespace tgsim::gemm
