// Kernel-name import, kernel lists and non-GEMM kernels: real names from public profiles
// (sources in docs/kernel-names.md), field by field. Split by grammar: kernel_names_*_test.cpp.
#include "tests/frontend/gemm/kernel_names_checks.h"

namespace tgsim::gemm {
namespace {

using test::expect_unsupported;

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
