// Kernel-name import: real names from public profiles (sources in docs/kernel-names.md), field by field.
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
  EXPECT_EQ(s.raster, Raster::heuristic);  // `h` is not the tile order (docs/kernel-names.md: DRAM counters)
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

// ---------------------------------------------------------------- CUTLASS library names

TEST(CutlassNames, Sm90Cooperative) {
  const auto r = parse_ok(
      "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_bf16_bf16_128x128x64_2x1x1_0_tnt_align8_warpspecialized_"
      "cooperative_epi_tma");
  const Schedule& s = r.schedule;
  EXPECT_EQ(s.family, Family::hopper_warpspecialized);
  EXPECT_EQ(s.tile, (TileShape{128, 128, 64}));
  EXPECT_EQ(s.cluster, (ClusterShape{2, 1}));
  EXPECT_EQ(s.warp_specialization, WarpSpecialization::cooperative);
  EXPECT_EQ(s.consumer_warpgroups, 2);
  EXPECT_EQ(s.coop_split, CoopSplit::along_m);
  EXPECT_TRUE(s.persistent);
  EXPECT_FALSE(s.stream_k);
  EXPECT_EQ(s.layout_a, 'T');
  EXPECT_EQ(s.layout_b, 'N');
  EXPECT_TRUE(has_note(r, "stage count 0"));
}

TEST(CutlassNames, Sm90PingPongWithInstructionShape) {
  const Schedule s = parse_ok(
                         "cutlass3x_sm90_tensorop_s64x128x16gemm_bf16_bf16_f32_void_bf16_128x128x64_1x1x1_0_tnn_"
                         "align8_warpspecialized_pingpong_epi_tma")
                         .schedule;
  EXPECT_EQ(s.warp_specialization, WarpSpecialization::pingpong);
  EXPECT_EQ(s.c_type, DType::bf16);  // C is void, D is bf16
  EXPECT_EQ(s.cluster, (ClusterShape{1, 1}));
}

TEST(CutlassNames, Sm90StreamK) {
  const Schedule s = parse_ok(
                         "cutlass3x_sm90_tensorop_s64x128x16gemm_bf16_bf16_f32_bf16_bf16_128x128x64_2x1x1_0_nnn_"
                         "align8_stream_k_warpspecialized_cooperative_epi_tma")
                         .schedule;
  EXPECT_TRUE(s.stream_k);
  EXPECT_TRUE(s.persistent);
  EXPECT_EQ(s.layout_a, 'N');
}

TEST(CutlassNames, Sm90GroupedFp8) {
  const Schedule s = parse_ok(
                         "cutlass3x_sm90_tensorop_gemm_grouped_e5m2_e5m2_f32_f16_f16_128x128x128_2x1x1_0_tnn_align16_"
                         "warpspecialized_pingpong_fp8_fastaccum_epi_tma",
                         DType::fp8_e5m2)
                         .schedule;
  EXPECT_TRUE(s.grouped);
  EXPECT_EQ(s.a_type, DType::fp8_e5m2);
  EXPECT_EQ(s.c_type, DType::fp16);
  EXPECT_EQ(s.tile, (TileShape{128, 128, 128}));
  EXPECT_EQ(s.warp_specialization, WarpSpecialization::pingpong);
}

TEST(CutlassNames, MangledBasicWarpSpecialized) {
  const auto r = parse_ok(
      "_ZN7cutlass13device_kernelI117cutlass3x_sm90_tensorop_s64x128x16gemm_bf16_bf16_f32_f32_f32_256x128x64_2x1x1_"
      "0_nnn_align8_warpspecialized_epi_nosmemEEvNT_6ParamsE");
  EXPECT_EQ(r.schedule.warp_specialization, WarpSpecialization::none);
  EXPECT_EQ(r.schedule.consumer_warpgroups, 1);
  EXPECT_FALSE(r.schedule.persistent);
  EXPECT_EQ(r.schedule.c_type, DType::fp32);
  EXPECT_EQ(r.schedule.name.find("cutlass3x_sm90"), 0U);  // the library name, without the mangling
}

TEST(CutlassNames, Sm100TwoSm) {
  const Schedule s = parse_ok(
                         "cutlass3x_sm100_tensorop_s256x256x16gemm_bf16_bf16_f32_void_f32_256x256x64_2x1x1_0_tnt_"
                         "align8_2sm")
                         .schedule;
  EXPECT_EQ(s.family, Family::blackwell_tcgen05);
  EXPECT_TRUE(s.two_sm);
  EXPECT_EQ(s.tile, (TileShape{256, 256, 64}));
  EXPECT_EQ(s.c_type, DType::fp32);
}

TEST(CutlassNames, Sm100Tf32WithoutCluster) {
  const auto r = parse_ok("cutlass3x_sm100_tensorop_s128x64x8tf32gemm_f32_f32_f32_f32_f32_128x64x32_0_tnn_align4_2sm",
                          DType::fp32);
  EXPECT_EQ(r.schedule.a_type, DType::tf32);
  EXPECT_EQ(r.schedule.tile, (TileShape{128, 64, 32}));
  EXPECT_TRUE(has_note(r, "cluster is not in the name"));
}

TEST(CutlassNames, Cutlass2InWrapper) {
  const Schedule s =
      parse_ok("void cutlass::Kernel2<cutlass_80_tensorop_s16816gemm_bf16_64x64_64x6_tn_align8>(T1::Params)").schedule;
  EXPECT_EQ(s.family, Family::ampere_multistage);
  EXPECT_EQ(s.tile, (TileShape{64, 64, 64}));
  EXPECT_EQ(s.stages, 6);
  EXPECT_EQ(s.warps, 4);
  EXPECT_EQ(s.a_type, DType::bf16);
  EXPECT_EQ(s.c_type, DType::fp32);  // no C prefix: C has the accumulator's type
  EXPECT_EQ(s.name, "cutlass_80_tensorop_s16816gemm_bf16_64x64_64x6_tn_align8");
}

TEST(CutlassNames, Cutlass2MangledWithRelu) {
  const Schedule s =
      parse_ok("_ZN7cutlass7Kernel2I66cutlass_80_tensorop_f16_s16816gemm_relu_f16_256x128_32x3_tn_align8EEvNT_6ParamsE",
               DType::fp16)
          .schedule;
  EXPECT_EQ(s.tile, (TileShape{256, 128, 32}));
  EXPECT_EQ(s.stages, 3);
  EXPECT_EQ(s.warps, 8);
  EXPECT_EQ(s.epilogue, Epilogue::bias_activation);
  EXPECT_EQ(s.c_type, DType::fp16);
}

TEST(CutlassNames, Cutlass2Tf32AndWmma) {
  EXPECT_EQ(parse_ok("cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4", DType::fp32).schedule.a_type, DType::tf32);
  const auto r = parse_ok("cutlass_80_wmma_tensorop_s161616gemm_f16_32x32_64x2_nn_align2", DType::fp16);
  EXPECT_EQ(r.schedule.tile, (TileShape{32, 32, 64}));
  EXPECT_EQ(r.schedule.stages, 2);
  EXPECT_TRUE(has_note(r, "wmma"));
}

TEST(CutlassNames, Sm75RegisterStagedAlign1) {
  // What cuBLASLt 13 runs for 16-bit GEMMs on 2-byte aligned rows: no <K>x<stages> in the name
  // (CUTLASS's sm75 tiles are K 32, 2 stages), HMMA.1688, one element per load.
  const auto r = parse_ok("void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_256x128_tn_align1>(T1::Params)");
  EXPECT_EQ(r.schedule.family, Family::ampere_multistage);
  EXPECT_EQ(r.schedule.tile, (TileShape{256, 128, 32}));
  EXPECT_EQ(r.schedule.stages, 2);
  EXPECT_EQ(r.schedule.warps, 8);
  EXPECT_EQ(r.schedule.mma_k, 8);
  EXPECT_EQ(r.schedule.load_alignment, 2);
  EXPECT_EQ(r.schedule.c_type, DType::bf16);
  EXPECT_TRUE(has_note(r, "sm75 kernel"));
  const auto f32_out = parse_ok("cutlass_75_tensorop_s1688gemm_f16_64x64_tn_align1", DType::fp16).schedule;
  EXPECT_EQ(f32_out.tile, (TileShape{64, 64, 32}));
  EXPECT_EQ(f32_out.c_type, DType::fp32);
  // tf32's s1688 is k8 by its type: nothing to override on the sm80 names.
  EXPECT_EQ(parse_ok("cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4", DType::fp32).schedule.mma_k, 0);
  expect_unsupported("cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align8", "16-byte accesses");
  expect_unsupported("cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_32x2_tn_align1", "expected <M>x<N>_<layout>");
  expect_unsupported("cutlass_70_tensorop_h884gemm_128x128_32x2_tn_align8", "sm70");
}

TEST(CutlassNames, Unsupported) {
  expect_unsupported("cutlass3x_sm90_tensorop_s64x128x16gemm_f16_f16_f32_f16_f16_128x128x64_1x2x1_0_nnn_align8",
                     "auto");
  expect_unsupported(
      "cutlass3x_sm100_tensorop_gemm_64x128f32xe4m3_1x128f32xe4m3_f32_f16_f16_64x128x128_1x1x1_0_nnn_align16_1sm",
      "element type");
  expect_unsupported("void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_tn_align1>(T1::Params)", "SIMT");
}

// ---------------------------------------------------------------- CUTLASS template form

// Laid out as nsys prints a CUTLASS 3 sm90 kernel (argument order of CollectiveMma / CollectiveEpilogue).
constexpr const char* kCooperativeTemplate =
    "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, "
    "cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<(int)4, "
    "cute::tuple<cute::C<(int)2>, cute::C<(int)1>, cute::C<(int)1>>, "
    "cutlass::gemm::KernelTmaWarpSpecializedCooperative>, "
    "cute::tuple<cute::C<(int)128>, cute::C<(int)256>, cute::C<(int)64>>, cutlass::bfloat16_t, cute::tuple<long, "
    "cute::C<(int)1>, long>, cutlass::bfloat16_t, cute::tuple<long, cute::C<(int)1>, long>, "
    "cute::TiledMMA<cute::MMA_Atom<cute::SM90::GMMA::MMA_64x256x16_F32BF16BF16_SS<(cute::SM90::GMMA::Major)0, "
    "(cute::SM90::GMMA::Major)0, (cute::SM90::GMMA::ScaleIn)1, (cute::SM90::GMMA::ScaleIn)1>>, "
    "cute::Layout<cute::tuple<cute::C<(int)2>, cute::C<(int)1>, cute::C<(int)1>>, cute::tuple<cute::C<(int)1>, "
    "cute::C<(int)0>, cute::C<(int)0>>>, cute::tuple<cute::Underscore, cute::Underscore, cute::Underscore>>, "
    "cute::SM90_TMA_LOAD_MULTICAST, void, void, cute::identity, cute::SM90_TMA_LOAD, void, void, cute::identity>, "
    "cutlass::epilogue::collective::CollectiveEpilogue<cutlass::epilogue::Sm90TmaWarpSpecialized<(int)4, (int)2, "
    "(int)32, (bool)1, (bool)0>, cute::tuple<cute::C<(int)128>, cute::C<(int)256>, cute::C<(int)64>>, "
    "cute::tuple<cute::C<(int)128>, cute::C<(int)32>>, cutlass::bfloat16_t, cute::tuple<long, cute::C<(int)1>, long>, "
    "cutlass::bfloat16_t, cute::tuple<long, cute::C<(int)1>, long>>, void, void>>(T1::Params)";

TEST(CutlassTemplate, Cooperative) {
  const auto r = parse_ok(kCooperativeTemplate, DType::fp16);
  const Schedule& s = r.schedule;
  EXPECT_EQ(s.family, Family::hopper_warpspecialized);
  EXPECT_EQ(s.tile, (TileShape{128, 256, 64}));
  EXPECT_EQ(s.stages, 4);
  EXPECT_EQ(s.cluster, (ClusterShape{2, 1}));
  EXPECT_EQ(s.warp_specialization, WarpSpecialization::cooperative);
  EXPECT_TRUE(s.persistent);
  EXPECT_FALSE(s.grouped);
  EXPECT_EQ(s.a_type, DType::bf16);
  EXPECT_EQ(s.c_type, DType::bf16);  // from the epilogue, not from dtype
  EXPECT_EQ(s.accumulate, DType::fp32);
  EXPECT_EQ(s.layout_a, 'T');
  EXPECT_EQ(s.layout_b, 'N');
  EXPECT_TRUE(r.notes.empty());
}

TEST(CutlassTemplate, GroupedPingPongFp8) {
  const Schedule s = parse_ok(
                         "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::"
                         "GroupProblemShape<cute::tuple<int, int, int>>, cutlass::gemm::collective::CollectiveMma<"
                         "cutlass::gemm::MainloopSm90ArrayTmaGmmaWarpSpecialized<(int)5, cute::tuple<cute::C<(int)1>, "
                         "cute::C<(int)2>, cute::C<(int)1>>, cutlass::gemm::KernelPtrArrayTmaWarpSpecializedPingpong>, "
                         "cute::tuple<cute::C<(int)64>, cute::C<(int)128>, cute::C<(int)128>>, cutlass::float_e4m3_t, "
                         "cute::tuple<long, cute::C<(int)1>, cute::C<(int)0>>*, cutlass::float_e4m3_t, "
                         "cute::tuple<long, cute::C<(int)1>, cute::C<(int)0>>*, cute::TiledMMA<cute::MMA_Atom<cute::"
                         "SM90::GMMA::MMA_64x128x32_F32E4M3E4M3_SS_TN<(cute::SM90::GMMA::ScaleIn)1, "
                         "(cute::SM90::GMMA::ScaleIn)1>>>, cute::SM90_TMA_LOAD, void, void, cute::identity, "
                         "cute::SM90_TMA_LOAD_MULTICAST, void, void, cute::identity>, void, void>>(T1::Params)",
                         DType::fp8_e4m3)
                         .schedule;
  EXPECT_TRUE(s.grouped);
  EXPECT_EQ(s.warp_specialization, WarpSpecialization::pingpong);
  EXPECT_EQ(s.stages, 5);
  EXPECT_EQ(s.cluster, (ClusterShape{1, 2}));
  EXPECT_EQ(s.tile, (TileShape{64, 128, 128}));
  EXPECT_EQ(s.a_type, DType::fp8_e4m3);
  EXPECT_EQ(s.c_type, DType::fp8_e4m3);  // no CollectiveEpilogue in the name: from dtype (noted)
}

TEST(CutlassTemplate, StreamKAndShortShapeSpelling) {
  // cute::_128 spelling and a schedule named in the mainloop, as in the issue text.
  const Schedule s = parse_ok(
                         "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, "
                         "int>, cutlass::gemm::collective::CollectiveMma<cutlass::gemm::"
                         "MainloopSm90TmaGmmaWarpSpecializedCooperative<4, cute::tuple<cute::_2, cute::_1, cute::_1>>, "
                         "cute::tuple<cute::_128, cute::_256, cute::_64>, cutlass::half_t, cute::tuple<cute::_1, long, "
                         "long>, cutlass::half_t, cute::tuple<long, cute::_1, long>, cute::TiledMMA<cute::MMA_Atom<"
                         "cute::SM90::GMMA::MMA_64x256x16_F16F16F16_SS<(cute::SM90::GMMA::Major)1, "
                         "(cute::SM90::GMMA::Major)0>>>, cute::SM90_TMA_LOAD, void, void, cute::identity>, "
                         "cutlass::epilogue::collective::DefaultEpilogue<>, cutlass::gemm::StreamKScheduler>>",
                         DType::fp16)
                         .schedule;
  EXPECT_TRUE(s.stream_k);
  EXPECT_EQ(s.warp_specialization, WarpSpecialization::cooperative);
  EXPECT_EQ(s.tile, (TileShape{128, 256, 64}));
  EXPECT_EQ(s.layout_a, 'N');
  EXPECT_EQ(s.accumulate, DType::fp16);
}

TEST(CutlassTemplate, Unsupported) {
  // Profiler tables cut long names; nothing after the cut is guessed.
  expect_unsupported(std::string(kCooperativeTemplate).substr(0, 420) + "...", "truncated");
  expect_unsupported(
      "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, "
      "cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm100TmaUmmaWarpSpecialized<(int)4, (int)2, "
      "(int)2, cute::tuple<cute::C<(int)2>, cute::C<(int)1>, cute::C<(int)1>>>, cute::tuple<cute::C<(int)256>, ...",
      "Sm100");
  expect_unsupported(
      "void cutlass::device_kernel<vllm::cutlass_3x_gemm<cutlass::float_e4m3_t>::GemmKernel>(T1::Params)",
      "GEMM kernel of a family");
}

// ---------------------------------------------------------------- lists and non-GEMM kernels

TEST(KernelLists, Malformed) {
  expect_unsupported("", "no kernel name");
  expect_unsupported(" ; ", "no kernel name");
  expect_unsupported("splitKreduce_kernel", "before any GEMM");
  expect_unsupported("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT;nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT",
                     "more than one GEMM");
  expect_unsupported("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_splitK_TNT;splitKreduce_kernel;splitKreduce_kernel",
                     "more than one split-K");
}

TEST(KernelLists, KernelsKeptInOrderEvenWhenUnsupported) {
  const auto r = parse_gemm_kernel_names("flash_fwd_kernel; nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT", DType::bf16);
  EXPECT_FALSE(r.supported);
  ASSERT_EQ(r.kernels.size(), 2U);
  EXPECT_EQ(r.kernels[0], "flash_fwd_kernel");
}

TEST(NonGemmKernels, ReportedWithAReason) {
  expect_unsupported("flash_fwd_kernel", "attention");
  expect_unsupported(
      "void flash::flash_fwd_splitkv_mla_kernel<Flash_fwd_kernel_traits_mla<576, 64, 64, 8, cutlass::bfloat16_t, 512>, "
      "true, false>(Flash_fwd_mla_params)",
      "attention");
  expect_unsupported("fmhaSm100fKernel_QkvE4m3OBfloat16HQk128HV128HVPerCta128PersistentContext", "attention");
  expect_unsupported(
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> "
      ">(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
      "elementwise");
  expect_unsupported("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "communication");
  expect_unsupported("triton_poi_fused_mul_silu_2", "Triton");
  expect_unsupported("deep_gemm::sm90_fp8_gemm_1d2d_impl", "GEMM kernel of a family");
  expect_unsupported("gemmSN_NN_kernel", "GEMM kernel of a family");
  // flashinfer's CuTe-DSL GEMM: "flash" in the name does not make it attention.
  expect_unsupported("kernel_cutlass_kernel_flashinfergemmkernelsdense_blockscaled_gemm_sm100Sm100BlockScaledPer",
                     "GEMM kernel of a family");
  expect_unsupported("hello world", "not a recognised");
  expect_unsupported("xK9_q__zz", "not a recognised");
}


}  // namespace
}  // namespace tgsim::gemm
