// The default rule honours TMA's 16-byte stride alignment: problems whose rows are not 16-byte
// aligned get the CUTLASS 2.x cp.async fallback cuBLASLt runs, 16-bit operands on 2-byte
// boundaries (no cp.async kernel can run them) get its sm75 register-staged kernels, and
// misaligned fp8 is refused with the reason.
#include <gtest/gtest.h>

#include <string>

#include "frontend/gemm/default_schedule.h"
#include "frontend/gemm/lower.h"
#include "sim/engine/simulate.h"
#include "sim/hw/spec_json.h"
#include "sim/units/error.h"

namespace tgsim::gemm {
namespace {

hw::GpuSpec gpu(const std::string& name) { return hw::load_gpu_preset(name, TGSIM_SOURCE_DIR "/configs"); }

Problem row_major(std::int64_t M, std::int64_t N, std::int64_t K, DType t) {
  return from_row_major(M, N, K, t, default_output_type(t));
}

TEST(GemmAlignment, BytesOfTheLeadingDimensions) {
  EXPECT_EQ(operand_alignment_bytes(row_major(4096, 4096, 4096, DType::bf16)), 16);
  EXPECT_EQ(operand_alignment_bytes(row_major(2500, 2500, 2500, DType::bf16)), 8);   // 5000 B rows
  EXPECT_EQ(operand_alignment_bytes(row_major(333, 4444, 2222, DType::bf16)), 4);    // K: 4444 B
  EXPECT_EQ(operand_alignment_bytes(row_major(4097, 4097, 4097, DType::bf16)), 2);
  EXPECT_EQ(operand_alignment_bytes(row_major(4097, 4097, 4097, DType::tf32)), 4);
  // C's columns are the caller's N: K aligned, N odd is misaligned too.
  EXPECT_EQ(operand_alignment_bytes(row_major(64, 1001, 4096, DType::bf16)), 2);
  // The caller's M (the library's n) is no stride.
  EXPECT_EQ(operand_alignment_bytes(row_major(3001, 4096, 4096, DType::bf16)), 16);
}

TEST(GemmAlignment, AlignedProblemsKeepTheTmaSchedule) {
  const Schedule s = default_schedule(row_major(3001, 4096, 4096, DType::bf16), gpu("h200"));
  EXPECT_EQ(s.family, Family::hopper_warpspecialized);
  EXPECT_EQ(s.name.find("align"), std::string::npos);
}

TEST(GemmAlignment, MisalignedRowsOnHopperGetTheCutlass2Fallback) {
  const auto spec = gpu("h200");
  const Schedule s = default_schedule(row_major(2500, 2500, 2500, DType::bf16), spec);
  EXPECT_EQ(s.family, Family::ampere_multistage);
  EXPECT_EQ(s.tile.m, 256);
  EXPECT_EQ(s.tile.n, 128);
  EXPECT_EQ(s.tile.k, 64);  // 128 bytes of K
  EXPECT_EQ(s.stages, 3);
  EXPECT_EQ(s.warps, 8);
  EXPECT_EQ(s.load_alignment, 4);
  EXPECT_EQ(s.name, "default_256x128x64_s3_align4B");
  const Schedule t = default_schedule(row_major(4097, 4097, 4097, DType::tf32), spec);
  EXPECT_EQ(t.tile.k, 32);
  EXPECT_EQ(t.load_alignment, 4);
  // The fallback lowers and replays without deadlock.
  const auto l = lower_gemm(row_major(2500, 2500, 2500, DType::bf16), s, spec);
  EXPECT_GT(engine::simulate(l.graph, spec).latency.count(), 0);
}

TEST(GemmAlignment, TmaLoadsCarryTheirRowsAlignment) {
  // K = 1000 bf16: 2000-byte rows, 16-byte aligned; tf32: 4000 bytes, 32; K = 1024: 128.
  const auto spec = gpu("h200");
  const auto pitch_of = [&](std::int64_t k, DType t) {
    const Problem p = row_major(1024, 1024, k, t);
    const auto l = lower_gemm(p, default_schedule(p, spec), spec);
    for (const auto& n : l.graph.kernels.at(0).templates.at(0).nodes) {
      if (n.id.rfind("ldA", 0) == 0) return n.pitch_alignment;
    }
    return -1;
  };
  EXPECT_EQ(pitch_of(1000, DType::bf16), 16);
  EXPECT_EQ(pitch_of(1000, DType::tf32), 32);
  EXPECT_EQ(pitch_of(1024, DType::bf16), 128);
  // and such rows cost more than the 2.4% more work of 1024^3 with aligned rows
  const auto t = [&](std::int64_t n) {
    const Problem p = row_major(n, n, n, DType::bf16);
    return engine::simulate(lower_gemm(p, default_schedule(p, spec), spec).graph, spec).latency.count();
  };
  EXPECT_GT(t(1000), t(1024));
}

TEST(GemmAlignment, MisalignedRowsAreSlowerThanAlignedOnes) {
  // 2500^3 against 2496^3 (16-byte rows, 0.5% fewer FLOPs): no TMA, 4-byte copies.
  const auto spec = gpu("h200");
  const auto t = [&](std::int64_t n) {
    const Problem p = row_major(n, n, n, DType::bf16);
    return engine::simulate(lower_gemm(p, default_schedule(p, spec), spec).graph, spec).latency.count();
  };
  EXPECT_GT(t(2500), t(2496));
}

TEST(GemmAlignment, SixteenBitOperandsOnTwoByteBoundariesGetTheSm75RegisterStagedKernel) {
  const auto spec = gpu("h200");
  const Problem p = row_major(1023, 1023, 1023, DType::bf16);
  const Schedule s = default_schedule(p, spec);
  EXPECT_EQ(s.family, Family::ampere_multistage);
  EXPECT_EQ(s.load_alignment, 2);  // ld.global of one element per thread, staged through registers
  EXPECT_EQ(s.tile.m, 128);
  EXPECT_EQ(s.tile.n, 128);
  EXPECT_EQ(s.tile.k, 32);
  EXPECT_EQ(s.stages, 2);
  EXPECT_EQ(s.warps, 4);
  EXPECT_EQ(s.mma_k, 8);  // HMMA.1688
  EXPECT_EQ(s.split_k, 4);  // 64 tiles: slices until two waves of 2 CTAs per SM, at most 4
  EXPECT_TRUE(s.split_k_serial);  // slices add into C: no reduction kernel
  EXPECT_EQ(s.name, "default_sm75_128x128x32_s2_splitk4_serial_align2B");
  const Schedule big = default_schedule(row_major(4097, 4097, 4097, DType::bf16), spec);
  EXPECT_EQ(big.split_k, 1);  // 1089 tiles fill the GPU without a split
  EXPECT_EQ(big.name, "default_sm75_128x128x32_s2_align2B");
  const auto l = lower_gemm(p, s, spec);
  ASSERT_EQ(l.graph.kernels.size(), 1U);
  ASSERT_EQ(l.graph.flags.size(), 1U);  // the slices' semaphore
  EXPECT_GT(engine::simulate(l.graph, spec).latency.count(), 0);
  // Skinny n: 64 x 64 tiles, split-K into a workspace and a reduction kernel.
  const Schedule skinny = default_schedule(row_major(16, 4096, 4097, DType::bf16), spec);
  EXPECT_EQ(skinny.tile.m, 64);
  EXPECT_EQ(skinny.tile.n, 64);
  EXPECT_FALSE(skinny.split_k_serial);
  // The A100 preset and autotune take the same path; grouped GEMMs are refused.
  EXPECT_EQ(default_schedule(p, gpu("a100")).load_alignment, 2);
  for (const Schedule& c : candidate_schedules(p, spec)) {
    EXPECT_EQ(c.load_alignment, 2) << c.name;
    EXPECT_EQ(c.stages, 2) << c.name;
  }
  EXPECT_THROW(default_schedule(p, spec, true), InputError);
}

TEST(GemmAlignment, Sm75KernelNeverSlowerWithMoreSmsOrACheaperL1) {
  hw::GpuSpec spec = gpu("h200");
  const Problem p = row_major(2049, 2049, 2049, DType::bf16);
  const Schedule s = default_schedule(p, spec);
  const auto run = [&](const hw::GpuSpec& g) { return engine::simulate(lower_gemm(p, s, g).graph, g).latency.count(); };
  const auto base = run(spec);
  hw::GpuSpec fewer = spec;
  fewer.sm.count = 66;
  EXPECT_GE(run(fewer), base);
  hw::GpuSpec cheaper = spec;
  cheaper.sm.ldg_2b_cycles = Cycles{spec.sm.ldg_2b_cycles.value / 2};
  EXPECT_LE(run(cheaper), base);
  // Rows whose pitch is a multiple of 128 bytes pay the dearer per-load cost.
  const Problem aligned_pitch = row_major(2049, 2049, 2048, DType::bf16);  // K 2048: 4 KiB rows; N odd
  const Schedule sa = default_schedule(aligned_pitch, spec);
  ASSERT_EQ(sa.load_alignment, 2);
  hw::GpuSpec same = spec;
  same.sm.ldg_2b_aligned_pitch_cycles = spec.sm.ldg_2b_cycles;
  const auto t_aligned = engine::simulate(lower_gemm(aligned_pitch, sa, spec).graph, spec).latency.count();
  const auto t_same = engine::simulate(lower_gemm(aligned_pitch, sa, same).graph, same).latency.count();
  EXPECT_GT(t_aligned, t_same);
}

TEST(GemmAlignment, TwoByteLoadsAreSlowerThanCpAsyncOnes) {
  // 4097^3 (sm75 kernel) against 4100^3 (8-byte rows: cp.async), same tile and split.
  const auto spec = gpu("h200");
  const Problem odd = row_major(4097, 4097, 4097, DType::bf16);
  Schedule s = default_schedule(odd, spec);
  const auto staged = engine::simulate(lower_gemm(odd, s, spec).graph, spec).latency;
  s.load_alignment = 8;
  s.mma_k = 0;
  const auto cp_async = engine::simulate(lower_gemm(odd, s, spec).graph, spec).latency;
  EXPECT_GT(staged.count(), cp_async.count() * 3 / 2);
}

TEST(GemmAlignment, MisalignedFp8IsRefused) {
  EXPECT_THROW(default_schedule(row_major(64, 4100, 4096, DType::fp8_e4m3), gpu("h200")), InputError);
}

TEST(GemmAlignment, AutotuneCandidatesOfAMisalignedProblemAreCpAsyncOnes) {
  const auto all = candidate_schedules(row_major(1500, 2500, 3500, DType::bf16), gpu("h200"));
  ASSERT_GT(all.size(), 1U);
  EXPECT_EQ(all.front().load_alignment, 4);  // the default: cuBLASLt's align2 kernel
  for (std::size_t i = 1; i < all.size(); ++i) {  // the others copy what the 8-byte rows allow
    EXPECT_EQ(all[i].family, Family::ampere_multistage) << all[i].name;
    EXPECT_EQ(all[i].load_alignment, 8) << all[i].name;
  }
}

TEST(GemmAlignment, AmperePresetCopiesWhatTheAlignmentAllows) {
  const Schedule s = default_schedule(row_major(2500, 2500, 2500, DType::bf16), gpu("a100"));
  EXPECT_EQ(s.family, Family::ampere_multistage);
  EXPECT_EQ(s.load_alignment, 8);
}

}  // namespace
}  // namespace tgsim::gemm
