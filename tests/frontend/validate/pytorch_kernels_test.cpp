// PyTorch kernel classes (frontend/pytorch_kernels.h): names map to the right template, and the
// classes order as measured (a strided kernel is never faster than the vectorized one).
#include <array>
#include <filesystem>

#include <gtest/gtest.h>

#include "frontend/elementwise.h"
#include "frontend/pytorch_kernels.h"
#include "sim/engine/simulate.h"
#include "sim/hw/spec_json.h"

namespace tgsim {
namespace {

using frontend::pytorch_kernel_class;

TEST(PytorchKernels, NamesPickTheirTemplate) {
  EXPECT_EQ(pytorch_kernel_class("void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int)", false).name, "vectorized");
  EXPECT_EQ(pytorch_kernel_class("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<...> >(int)", false).name, "generic");
  EXPECT_EQ(pytorch_kernel_class("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<...> >(int)", false).name, "generic_fp32");
  EXPECT_EQ(pytorch_kernel_class("void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda>", false).name, "unrolled");
  EXPECT_EQ(pytorch_kernel_class("void at::native::(anonymous namespace)::CatArrayBatchedCopy<...>", false).name, "cat");
  EXPECT_EQ(pytorch_kernel_class("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float> >", false).name, "reduce");
  EXPECT_EQ(pytorch_kernel_class("", true).name, "reduce");
  EXPECT_EQ(pytorch_kernel_class("some_custom_kernel", false).name, "vectorized");  // lower bound
}

double simulated_us(const hw::GpuSpec& spec, const frontend::Elementwise& e) {
  graph::TileGraph g;
  g.name = "t";
  g.kernels.push_back(frontend::elementwise_kernel("k", e));
  const auto r = engine::simulate(g, spec, {});
  return to_us(r.kernels[0].end - r.kernels[0].start);
}

double kernel_us(const hw::GpuSpec& spec, const frontend::PytorchKernelClass& c, double elements) {
  frontend::Elementwise e;
  e.elements = elements;
  e.read_bytes = 2 * elements;
  e.write_bytes = 2 * elements;
  frontend::apply_kernel_class(c, spec.sm.count, e);
  return simulated_us(spec, e);
}

TEST(PytorchKernels, StridedIsNeverFasterThanVectorized) {
  const auto spec = hw::load_gpu_preset("h200", std::filesystem::path(TGSIM_SOURCE_DIR) / "configs");
  for (double n : {4096.0, 1e6, 1e8}) {
    const double v = kernel_us(spec, pytorch_kernel_class("vectorized_elementwise_kernel<8", false), n);
    const double g = kernel_us(spec, pytorch_kernel_class("elementwise_kernel<128, 4", false), n);
    EXPECT_LE(v, g) << n;
  }
  // At 10^8 bf16 elements the strided kernel is issue-bound: 89 lane-ops per element on
  // 132 x 128 lanes at 1980 MHz is 266 us; moving 400 MB at 4.18 TB/s would take 96 us.
  const double big = kernel_us(spec, pytorch_kernel_class("elementwise_kernel<128, 4", false), 1e8);
  EXPECT_NEAR(big, 1e8 * 89 / (132 * 128 * 1.98e9) * 1e6, 0.1 * 266);
}

TEST(PytorchKernels, ReduceBlockFollowsPyTorchsConfig) {
  // as recorded on the H200 (traces/h200/elementwise.csv): 3 rows -> 256 x 2, many rows -> a warp per row
  EXPECT_EQ(frontend::pytorch_reduce_block(3, 5120), (std::array<int, 2>{256, 2}));
  EXPECT_EQ(frontend::pytorch_reduce_block(96, 5120), (std::array<int, 2>{32, 16}));
  EXPECT_EQ(frontend::pytorch_reduce_block(24576, 3072), (std::array<int, 2>{32, 16}));
  EXPECT_EQ(frontend::pytorch_reduce_block(1, 8), (std::array<int, 2>{8, 1}));
  // rows of 8192: 256 values per thread of a warp, so block.y splits the row (recorded in the
  // Llama-3-70B profiles: grid = rows, block 32 x 16, 2064 B of shared memory)
  EXPECT_EQ(frontend::pytorch_reduce_block(2048, 8192), (std::array<int, 2>{512, 1}));
  EXPECT_EQ(frontend::pytorch_reduce_block(2048, 4096), (std::array<int, 2>{32, 16}));
}

TEST(PytorchKernels, RecordedReduceLaunchGivesRowsPerCta) {
  const auto shape = [](std::int64_t rows, double row_length, std::array<int, 3> grid, std::array<int, 3> block) {
    frontend::Elementwise e;
    e.elements = static_cast<double>(rows) * row_length;
    e.rows = rows;
    frontend::apply_kernel_class(pytorch_kernel_class("", true), 132, e, grid, block);
    return std::array<double, 4>{static_cast<double>(e.row_threads), static_cast<double>(e.rows_per_cta),
                                 static_cast<double>(e.ctas), e.row_length};
  };
  // Llama-3-8B's RMSNorm mean (2048 rows of 4096): grid 128, block 32 x 16 -> 16 rows per CTA
  EXPECT_EQ(shape(2048, 4096, {128, 1, 1}, {32, 16, 1}), (std::array<double, 4>{32, 16, 128, 4096}));
  // Llama-3-70B's (2048 rows of 8192): grid 2048, the same block -> the whole CTA on one row
  EXPECT_EQ(shape(2048, 8192, {2048, 1, 1}, {32, 16, 1}), (std::array<double, 4>{512, 1, 2048, 8192}));
  // a row split across 4 CTAs (grid.y): each CTA walks a quarter of it
  EXPECT_EQ(shape(8, 65536, {8, 4, 1}, {32, 16, 1}), (std::array<double, 4>{512, 1, 32, 16384}));
}

double reduce_us(const hw::GpuSpec& spec, std::int64_t rows, double row_length, bool in_l2) {
  frontend::Elementwise e;
  e.elements = static_cast<double>(rows) * row_length;
  e.read_bytes = 4 * e.elements;
  e.write_bytes = 4.0 * static_cast<double>(rows);
  e.rows = rows;
  frontend::apply_kernel_class(pytorch_kernel_class("", true), spec.sm.count, e);
  e.inputs_in_l2 = in_l2;
  return simulated_us(spec, e);
}

TEST(PytorchKernels, FewRowReductionsAreLatencyChains) {
  const auto spec = hw::load_gpu_preset("h200", std::filesystem::path(TGSIM_SOURCE_DIR) / "configs");
  // 96 rows of 5120: 6 CTAs, a warp per row, 40 rounds of 4 loads per thread. Each round waits for
  // the previous one: ~40 L2 hits when the input is resident, ~40 HBM latencies when it is not.
  const double hot = reduce_us(spec, 96, 5120, true), cold = reduce_us(spec, 96, 5120, false);
  const double cycles_to_us = 1.0 / 1980.0;
  EXPECT_GT(hot, 40 * spec.l2.hit_latency.value * cycles_to_us);
  EXPECT_LT(hot, 40 * spec.hbm.latency.value * cycles_to_us);
  EXPECT_GT(cold, 40 * spec.hbm.latency.value * cycles_to_us);
  // a longer row is a longer chain (7168: still a warp per row, 224 values per thread)
  EXPECT_GT(reduce_us(spec, 96, 7168, true), hot);
}

TEST(PytorchKernels, ColdStartDelaysTheFirstCtaOfEachSm) {
  const auto spec = hw::load_gpu_preset("h200", std::filesystem::path(TGSIM_SOURCE_DIR) / "configs");
  const auto& c = pytorch_kernel_class("vectorized_elementwise_kernel<8", false);
  const auto run = [&](double elements, bool cold) {
    frontend::Elementwise e;
    e.elements = elements;
    e.read_bytes = 2 * elements;
    e.write_bytes = 2 * elements;
    frontend::apply_kernel_class(c, spec.sm.count, e);
    if (cold) frontend::apply_cold_start(c, spec.sm.count, e);
    return simulated_us(spec, e);
  };
  // One CTA: the cold start is its cold_cycles more, at the 1980 MHz the short kernel runs at.
  const double one_warm = run(1024, false), one_cold = run(1024, true);
  EXPECT_NEAR(one_cold - one_warm, c.cold_cycles / 1980.0, 0.01);
  // 4 waves of CTAs: only the first CTA on each SM starts cold, so the kernel is late by one
  // cold start, not four.
  const double n = 4.0 * spec.sm.count * 128 * 8;
  const double waves_warm = run(n, false), waves_cold = run(n, true);
  EXPECT_GT(waves_cold - waves_warm, 0.5 * c.cold_cycles / 1980.0);
  EXPECT_LT(waves_cold - waves_warm, 1.5 * c.cold_cycles / 1980.0);
}

}  // namespace
}  // namespace tgsim
