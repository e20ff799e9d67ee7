// Kernel-name import, cuBLAS nvjet names: real names from public profiles
// (sources in docs/kernel-names.md), field by field. Split by grammar: kernel_names_*_test.cpp.
#include "tests/frontend/gemm/kernel_names_checks.h"

namespace tgsim::gemm {
namespace {

using test::expect_unsupported;
using test::has_note;
using test::parse_ok;

// ---------------------------------------------------------------- nvjet

TEST(NvjetNames, CooperativeAlongA) {
  const auto r = parse_ok("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
  const Schedule& s = r.schedule;
  EXPECT_EQ(s.family, Family::hopper_warpspecialized);
  EXPECT_EQ(s.tile, (TileShape{256, 128, 64}));
  EXPECT_EQ(s.stages, 4);
  EXPECT_EQ(s.cluster, (ClusterShape{1, 2}));
  EXPECT_EQ(s.raster, Raster::along_n);  // `h` walks along n (docs/kernel-names.md: DRAM counters, operand feed)
  EXPECT_EQ(s.warp_specialization, WarpSpecialization::cooperative);
  EXPECT_EQ(s.consumer_warpgroups, 2);
  EXPECT_EQ(s.coop_split, CoopSplit::along_m);
  EXPECT_TRUE(s.persistent);
  EXPECT_EQ(s.a_type, DType::bf16);
  EXPECT_EQ(s.b_type, DType::bf16);
  EXPECT_EQ(s.c_type, DType::bf16);
  EXPECT_EQ(s.accumulate, DType::fp32);
  EXPECT_EQ(s.layout_a, 'N');
  EXPECT_EQ(s.layout_b, 'N');
  EXPECT_FALSE(s.swap_ab);
  EXPECT_FALSE(s.reads_c);
  EXPECT_FALSE(s.split_k_runtime);
  EXPECT_EQ(s.name, "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
  EXPECT_TRUE(r.notes.empty());
  EXPECT_EQ(r.kernels.size(), 1U);
}

TEST(NvjetNames, CooperativeAlongBWithBias) {
  const Schedule s = parse_ok("nvjet_sm90_tst_192x208_64x4_2x1_v_bz_coopB_bias_TNT").schedule;
  EXPECT_EQ(s.raster, Raster::heuristic);  // `v`: CUTLASS's raster heuristic
  EXPECT_EQ(s.tile, (TileShape{192, 208, 64}));
  EXPECT_EQ(s.cluster, (ClusterShape{2, 1}));
  EXPECT_EQ(s.raster, Raster::heuristic);  // `v` too
  EXPECT_EQ(s.warp_specialization, WarpSpecialization::cooperative);
  EXPECT_EQ(s.coop_split, CoopSplit::along_n);
  EXPECT_EQ(s.epilogue, Epilogue::bias_activation);
  EXPECT_EQ(s.layout_a, 'T');
  EXPECT_EQ(s.layout_b, 'N');
}

TEST(NvjetNames, NoCoopIsPingPong) {
  const Schedule s = parse_ok("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT").schedule;
  EXPECT_EQ(s.tile, (TileShape{64, 8, 64}));
  EXPECT_EQ(s.stages, 16);
  EXPECT_EQ(s.cluster, (ClusterShape{4, 1}));
  EXPECT_EQ(s.warp_specialization, WarpSpecialization::pingpong);
  EXPECT_EQ(s.consumer_warpgroups, 2);
}

TEST(NvjetNames, SplitKWithoutFactor) {
  const Schedule s = parse_ok("nvjet_sm90_tst_128x72_64x8_1x2_h_bz_splitK_TNT").schedule;
  EXPECT_EQ(s.tile, (TileShape{128, 72, 64}));
  EXPECT_EQ(s.stages, 8);
  EXPECT_TRUE(s.split_k_runtime);
  EXPECT_EQ(s.split_k, 1);
}

TEST(NvjetNames, Fp8FiveLetterTypes) {
  const auto r = parse_ok("nvjet_sm90_qqtst_128x128_128x6_1x2_h_bz_ovscale_TNT", DType::fp8_e4m3);
  const Schedule& s = r.schedule;
  EXPECT_EQ(s.a_type, DType::fp8_e4m3);
  EXPECT_EQ(s.b_type, DType::fp8_e4m3);
  EXPECT_EQ(s.c_type, DType::bf16);
  EXPECT_EQ(s.accumulate, DType::fp32);
  EXPECT_EQ(s.tile, (TileShape{128, 128, 128}));
  EXPECT_EQ(s.stages, 6);
  EXPECT_TRUE(has_note(r, "'ovscale'"));
  EXPECT_FALSE(has_note(r, "'q'"));  // dtype said which fp8
}

TEST(NvjetNames, Fp8E5m2FromDtypeAndNoteOtherwise) {
  EXPECT_EQ(parse_ok("nvjet_sm90_qqtst_128x128_128x6_1x2_h_bz_ovscale_TNT", DType::fp8_e5m2).schedule.a_type,
            DType::fp8_e5m2);
  const auto r = parse_ok("nvjet_sm90_qqtst_128x128_128x6_1x2_h_bz_ovscale_TNT", DType::bf16);
  EXPECT_EQ(r.schedule.a_type, DType::fp8_e4m3);
  EXPECT_TRUE(has_note(r, "'q'"));
}

TEST(NvjetNames, NoArchSwapAndCoopA) {
  const auto r = parse_ok("nvjet_qqtst_112x128_128x7_2x1_v_bz_coopA_algo2_TNN", DType::fp8_e4m3);
  const Schedule& s = r.schedule;
  EXPECT_EQ(s.family, Family::hopper_warpspecialized);
  EXPECT_TRUE(has_note(r, "no arch tag"));
  EXPECT_TRUE(s.swap_ab);  // 112 is no multiple of the wgmma M of 64: the MMA's M runs along n
  EXPECT_EQ(s.coop_split, CoopSplit::along_n);
  EXPECT_EQ(s.tile, (TileShape{112, 128, 128}));
  EXPECT_TRUE(has_note(r, "'algo2'"));
}

TEST(NvjetNames, SwapAbForSmallM) {
  const Schedule s = parse_ok("nvjet_sm90_tst_96x128_64x7_2x1_v_bz_TNN").schedule;
  EXPECT_TRUE(s.swap_ab);
  EXPECT_EQ(s.tile, (TileShape{96, 128, 64}));
  EXPECT_EQ(s.stages, 7);
}

TEST(NvjetNames, HalfPrecisionNoArch) {
  const auto r = parse_ok("nvjet_hsh_256x128_64x4_1x2_h_bz_coopA_NNT", DType::fp16);
  EXPECT_EQ(r.schedule.a_type, DType::fp16);
  EXPECT_EQ(r.schedule.c_type, DType::fp16);
  EXPECT_EQ(r.schedule.accumulate, DType::fp32);
}

TEST(NvjetNames, BetaAddAndFp32Output) {
  const Schedule s = parse_ok("nvjet_tss_128x256_64x4_2x1_v_badd_coopA_NTN").schedule;
  EXPECT_TRUE(s.reads_c);
  EXPECT_EQ(s.c_type, DType::fp32);
  EXPECT_EQ(s.layout_a, 'N');
  EXPECT_EQ(s.layout_b, 'T');
  EXPECT_TRUE(s.swap_ab);
  EXPECT_EQ(s.coop_split, CoopSplit::along_n);
}

TEST(NvjetNames, BlackwellTwoCta) {
  const Schedule s = parse_ok("nvjet_sm100_tst_128x256_64x6_2x1_2cta_v_bz_TNT").schedule;
  EXPECT_EQ(s.family, Family::blackwell_tcgen05);
  EXPECT_TRUE(s.two_sm);
  EXPECT_EQ(s.warp_specialization, WarpSpecialization::none);
  EXPECT_EQ(s.tile, (TileShape{128, 256, 64}));
  EXPECT_EQ(s.stages, 6);
}

TEST(NvjetNames, NoArchTwoCtaIsBlackwell) {
  const auto r = parse_ok("nvjet_tst_64x32_64x16_2x2_2cta_h_bz_splitK_TNT");
  EXPECT_EQ(r.schedule.family, Family::blackwell_tcgen05);
  EXPECT_TRUE(r.schedule.two_sm);
  EXPECT_TRUE(r.schedule.split_k_runtime);
  EXPECT_EQ(r.schedule.cluster, (ClusterShape{2, 2}));
}

TEST(NvjetNames, Fp4BlockScaled) {
  const auto r = parse_ok("nvjet_sm100_oohsh_128x256_256x5_2x2_2cta_h_bz_Avec16UE4M3_Bvec16UE4M3_TNT", DType::fp4);
  EXPECT_EQ(r.schedule.a_type, DType::fp4);
  EXPECT_EQ(r.schedule.c_type, DType::fp16);
  EXPECT_EQ(r.schedule.tile.k, 256);
  EXPECT_TRUE(has_note(r, "'Avec16UE4M3'"));
}

TEST(NvjetNames, SplitKList) {
  const auto r = parse_ok(
      "nvjet_sm90_hss_64x8_64x16_1x1_h_bz_splitK_NNT;cublasLt::splitKreduce_kernel<32, 16, int, float, float, "
      "float, float, true, true, false>(cublasLt::cublasSplitKParams<float>, float const*, float const*, float*, "
      "float const*, float const*, float const*, float const*, float*, void*, long, float*, int*)",
      DType::fp16);
  EXPECT_TRUE(r.has_splitk_reduce);
  ASSERT_EQ(r.kernels.size(), 2U);
  EXPECT_EQ(r.kernels[0], "nvjet_sm90_hss_64x8_64x16_1x1_h_bz_splitK_NNT");
  EXPECT_TRUE(r.schedule.split_k_runtime);
  EXPECT_EQ(r.schedule.a_type, DType::fp16);
  EXPECT_EQ(r.schedule.c_type, DType::fp32);
}

TEST(NvjetNames, Unsupported) {
  expect_unsupported("nvjet_sm120_hsh_mma_96x256x64_2_48x64x64_tmaAB_alignCD4_bz_TNNN", "sm120");
  // Truncated by a profiler table: the layout letters are missing.
  expect_unsupported("nvjet_sm100_ootst_128x128_256x7_4x1_2cta_v_bx_Avec16UE4M3_Bvec16UE4M3_", "layout letters");
  expect_unsupported("nvjet_sm90_tst_128x8_TNT", "nvjet grammar");
  expect_unsupported("nvjet_sm90_xyz_128x128_64x4_1x1_h_bz_TNT", "type letter");
}

}  // namespace
}  // namespace tgsim::gemm
