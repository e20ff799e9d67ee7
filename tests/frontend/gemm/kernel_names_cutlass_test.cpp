// Kernel-name import, CUTLASS 2.x and 3.x names and templates: real names from public profiles
// (sources in docs/kernel-names.md), field by field. Split by grammar: kernel_names_*_test.cpp.
#include <string>

#include "tests/frontend/gemm/kernel_names_checks.h"

namespace tgsim::gemm {
namespace {

using test::expect_unsupported;
using test::has_note;
using test::parse_ok;

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

}  // namespace
}  // namespace tgsim::gemm
