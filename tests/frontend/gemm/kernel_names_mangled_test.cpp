// Kernel-name import of Itanium-mangled CUTLASS templates (kernel_names_mangled.cpp), with the
// names PyTorch's profiler printed for torch._grouped_mm on the H200.
#include <string>

#include "tests/frontend/gemm/kernel_names_checks.h"

namespace tgsim::gemm {
namespace {

using test::expect_unsupported;
using test::parse_ok;

// torch._grouped_mm's kernels as PyTorch 2.11's profiler printed them (traces/h200/grouped_gemm.csv):
// libstdc++'s demangler refuses them, so the fields are read from the mangled text.
constexpr const char* kTorchGroupedPingpong =
    "_ZN7cutlass13device_kernelIN2at4cuda6detail25enable_3x_kernel_for_sm9xINS_4gemm6kernel13GemmUniversalINS5_17Gr"
    "oupProblemShapeIN4cute5tupleIJiiiEEEEENS5_10collective13CollectiveMmaINS5_39MainloopSm90ArrayTmaGmmaWarpSpecia"
    "lizedILi4ENSA_IJNS9_1CILi2EEENSG_ILi1EEESI_EEENS5_40KernelPtrArrayTmaWarpSpecializedPingpongEEENSA_IJNSG_ILi64"
    "EEENSG_ILi128EEESN_EEENS_10bfloat16_tEPNSA_IJlSI_NSG_ILi0EEEEEESP_SS_NS9_8TiledMMAINS9_8MMA_AtomIJNS9_4SM904GM"
    "MA28MMA_64x128x16_F32BF16BF16_SSILNSW_5MajorE0ELSY_0ELNSW_7ScaleInE1ELSZ_1EEEEEENS9_6LayoutINSA_IJSI_SI_SI_EEE"
    "NSA_IJSQ_SQ_SQ_EEEEENSA_IJNS9_10UnderscoreES16_S16_EEEEENS9_13SM90_TMA_LOADENS9_14ComposedLayoutINS9_7SwizzleI"
    "Li3ELi4ELi3EEENS9_18smem_ptr_flag_bitsILi16EEENS12_INSA_IJNSG_ILi8EEESM_EEENSA_IJSM_SI_EEEEEEEvNS9_8identityEN"
    "S9_23SM90_TMA_LOAD_MULTICASTES1J_vS1K_EENS_8epilogue10collective18CollectiveEpilogueINS1N_30Sm90PtrArrayTmaWar"
    "pSpecializedILi4ELi2ELi16ELb0ELb0ELi2EEEJSO_NSA_IJSM_NSG_ILi32EEEEEEvSS_SP_SS_NS1N_6fusion15FusionCallbacksIS1"
    "R_NS1U_17LinearCombinationISP_fSP_fLNS_15FloatRoundStyleE2EEESO_S1T_JEEES19_NS1A_INS1B_ILi2ELi4ELi3EEES1E_NS12"
    "_INSA_IJS1F_S1S_EEENSA_IJS1S_SI_EEEEEEENS9_17SM75_U32x4_LDSM_NENS9_14SM90_TMA_STOREES24_NS9_17SM90_U32x4_STSM_"
    "NENS9_9Copy_AtomIJS27_NS_6half_tEEEEvEEEvvEEEEEEvNT_6ParamsE";
constexpr const char* kTorchGroupedCooperative =
    "_ZN7cutlass13device_kernelIN2at4cuda6detail25enable_3x_kernel_for_sm9xINS_4gemm6kernel13GemmUniversalINS5_17Gr"
    "oupProblemShapeIN4cute5tupleIJiiiEEEEENS5_10collective13CollectiveMmaINS5_39MainloopSm90ArrayTmaGmmaWarpSpecia"
    "lizedILi4ENSA_IJNS9_1CILi2EEENSG_ILi1EEESI_EEENS5_43KernelPtrArrayTmaWarpSpecializedCooperativeEEENSA_IJNSG_IL"
    "i128EEENSG_ILi256EEENSG_ILi64EEEEEENS_10bfloat16_tEPNSA_IJlSI_NSG_ILi0EEEEEESQ_ST_NS9_8TiledMMAINS9_8MMA_AtomI"
    "JNS9_4SM904GMMA28MMA_64x256x16_F32BF16BF16_SSILNSX_5MajorE0ELSZ_0ELNSX_7ScaleInE1ELS10_1EEEEEENS9_6LayoutISJ_N"
    "SA_IJSI_SR_SR_EEEEENSA_IJNS9_10UnderscoreES16_S16_EEEEENS9_13SM90_TMA_LOADENS9_14ComposedLayoutINS9_7SwizzleIL"
    "i3ELi4ELi3EEENS9_18smem_ptr_flag_bitsILi16EEENS13_INSA_IJNSG_ILi8EEESO_EEENSA_IJSO_SI_EEEEEEEvNS9_8identityENS"
    "9_23SM90_TMA_LOAD_MULTICASTES1J_vS1K_EENS_8epilogue10collective18CollectiveEpilogueINS1N_30Sm90PtrArrayTmaWarp"
    "SpecializedILi4ELi2ELi16ELb0ELb0ELi2EEEJSP_NSA_IJSM_NSG_ILi32EEEEEEvST_SQ_ST_NS1N_6fusion15FusionCallbacksIS1R"
    "_NS1U_17LinearCombinationISQ_fSQ_fLNS_15FloatRoundStyleE2EEESP_S1T_JEEES19_NS1A_INS1B_ILi2ELi4ELi3EEES1E_NS13_"
    "INSA_IJS1F_S1S_EEENSA_IJS1S_SI_EEEEEEENS9_17SM75_U32x4_LDSM_NENS9_14SM90_TMA_STOREES24_NS9_17SM90_U32x4_STSM_N"
    "ENS9_9Copy_AtomIJS27_NS_6half_tEEEEvEEEvvEEEEEEvNT_6ParamsE";
constexpr const char* kTorchGroupedSetup =
    "at::cuda::detail::prepare_grouped_gemm_data<cutlass::bfloat16_t, cutlass::bfloat16_t, cutlass::bfloat16_t, "
    "float, cute::tuple<int, int, int>, cute::tuple<long, cute::C<1>, cute::C<0> >, cute::tuple<long, cute::C<1>, "
    "cute::C<0> >, cute::tuple<long, cute::C<1>, cute::C<0> > >";

TEST(CutlassMangled, TorchGroupedPingpong) {
  const auto r = parse_ok(kTorchGroupedPingpong);
  const Schedule& s = r.schedule;
  EXPECT_EQ(s.family, Family::hopper_warpspecialized);
  EXPECT_TRUE(s.grouped);
  EXPECT_EQ(s.warp_specialization, WarpSpecialization::pingpong);
  EXPECT_EQ(s.stages, 4);
  EXPECT_EQ(s.cluster, (ClusterShape{2, 1}));
  // K is a back-reference in the name: inferred from 4 stages of (64 + 128) x K bf16 in 227 KiB
  EXPECT_EQ(s.tile, (TileShape{64, 128, 128}));
  EXPECT_EQ(s.epilogue_tile_m, 64);
  EXPECT_EQ(s.epilogue_tile_n, 32);
  EXPECT_EQ(s.epilogue_stages, 2);
  EXPECT_FALSE(s.grouped_setup);
  EXPECT_EQ(s.name, "cutlass3x_sm90_ptr_array_pingpong_64x128x128_s4_c2x1 (mangled)");
  EXPECT_FALSE(r.notes.empty());
}

TEST(CutlassMangled, TorchGroupedCooperativeWithItsSetupKernel) {
  const auto r = parse_ok(std::string(kTorchGroupedSetup) + ";" + kTorchGroupedCooperative);
  const Schedule& s = r.schedule;
  EXPECT_EQ(s.warp_specialization, WarpSpecialization::cooperative);
  EXPECT_EQ(s.tile, (TileShape{128, 256, 64}));  // spelled out in this name
  EXPECT_EQ(s.cluster, (ClusterShape{2, 1}));
  EXPECT_TRUE(s.grouped);
  EXPECT_TRUE(s.grouped_setup);
  EXPECT_EQ(s.epilogue_stages, 2);
}

TEST(CutlassMangled, SetupKernelNeedsAGroupedGemmAfterIt) {
  expect_unsupported(kTorchGroupedSetup, "no GEMM");
  expect_unsupported(std::string(kTorchGroupedCooperative) + ";" + kTorchGroupedSetup, "comes after");
  expect_unsupported(std::string(kTorchGroupedSetup) + ";nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", "not grouped");
}

TEST(CutlassMangled, CutShortNamesAreRefused) {
  const std::string name = kTorchGroupedPingpong;
  // cut inside the cluster tuple: nothing readable past the stage count
  expect_unsupported(name.substr(0, name.find("NS9_1CILi2E") + 4), "cluster");
}

}  // namespace
}  // namespace tgsim::gemm
