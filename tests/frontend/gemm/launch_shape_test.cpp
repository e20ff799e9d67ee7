// What a schedule takes from beyond its kernel name: the copy width of CUTLASS 2.x alignN kernels
// (narrow cp.async), and the cluster and persistence of xmma kernels from the recorded launch.
#include <gtest/gtest.h>

#include "frontend/gemm/lower.h"
#include "frontend/gemm/request.h"
#include "sim/engine/simulate.h"
#include "sim/hw/spec_json.h"
#include "tests/frontend/gemm/kernel_names_checks.h"

namespace tgsim::gemm {
namespace {

using test::has_note;
using test::parse_ok;

hw::GpuSpec h200() { return hw::load_gpu_preset("h200", TGSIM_SOURCE_DIR "/configs"); }

constexpr const char* kXmma =
    "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x256x32_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_"
    "cublas";

TEST(CopyWidth, Cutlass2AlignmentIsElementsTimesTheirBytes) {
  EXPECT_EQ(parse_ok("cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2").schedule.load_alignment, 4);
  EXPECT_EQ(parse_ok("cutlass_80_tensorop_s1688gemm_256x128_32x3_tn_align1", DType::tf32).schedule.load_alignment, 4);
  EXPECT_EQ(parse_ok("cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align4").schedule.load_alignment, 8);
  EXPECT_EQ(parse_ok("cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align8").schedule.load_alignment, 16);
  EXPECT_EQ(parse_ok("cutlass_80_tensorop_s1688gemm_256x128_32x3_tn_align4", DType::tf32).schedule.load_alignment, 16);
}

TEST(CopyWidth, LoweringMarksTheCopiesAndNarrowOnesAreSlower) {
  const hw::GpuSpec spec = h200();
  Request req;
  req.m = req.n = req.k = 2048;
  const auto time = [&](const char* kernel) {
    req.kernel = kernel;
    const Resolved r = resolve(req, spec);
    const LoweredGemm g = lower_gemm(r.problem, r.schedule, spec);
    int narrow = 0;
    for (const auto& n : g.graph.kernels[0].templates[0].nodes) narrow += n.access == 4;
    EXPECT_GT(narrow, 0) << kernel;
    return to_us(engine::simulate(g.graph, spec).latency);
  };
  req.kernel = "cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align8";
  const LoweredGemm wide = lower_gemm(resolve(req, spec).problem, resolve(req, spec).schedule, spec);
  for (const auto& n : wide.graph.kernels[0].templates[0].nodes) EXPECT_EQ(n.access, 16) << n.id;
  const double t_wide = to_us(engine::simulate(wide.graph, spec).latency);
  EXPECT_GT(time("cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2"), 1.2 * t_wide);
}

TEST(LaunchShape, XmmaTakesItsClusterAlongMAndPersistenceFromTheLaunch) {
  const hw::GpuSpec spec = h200();
  Request req;
  req.m = req.n = req.k = 4096;
  req.dtype = DType::tf32;
  req.kernel = kXmma;
  const Resolved plain = resolve(req, spec);
  EXPECT_EQ(plain.schedule.cluster, (ClusterShape{1, 1}));
  EXPECT_FALSE(plain.schedule.persistent);
  req.launch_cluster = {1, 2, 1};
  req.launch_grid = {66, 2, 1};  // 132 CTAs for 32 x 16 = 512 tiles
  const Resolved r = resolve(req, spec);
  EXPECT_EQ(r.schedule.cluster, (ClusterShape{2, 1}));
  EXPECT_TRUE(r.schedule.persistent);
  bool noted = false;
  for (const auto& n : r.notes) noted |= n.find("from the recorded launch") != std::string::npos;
  EXPECT_TRUE(noted);
  req.launch_grid = {256, 2, 1};  // one CTA per tile: not persistent
  EXPECT_FALSE(resolve(req, spec).schedule.persistent);
}

TEST(LaunchShape, Cutlass2GridZIsTheSplitKFactor) {
  // CUTLASS 2.x kernels launch (tiles, tiles, K slices). With a reduction kernel after the GEMM
  // the slices go to a workspace; without one they add into C in turn (serial split-K), waiting
  // on a per-tile semaphore.
  const hw::GpuSpec spec = h200();
  Request req;
  req.m = req.n = req.k = 2049;
  req.kernel = "cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1>";
  req.launch_grid = {136, 3, 4};
  const Resolved serial = resolve(req, spec);
  EXPECT_EQ(serial.schedule.split_k, 4);
  EXPECT_TRUE(serial.schedule.split_k_serial);
  const LoweredGemm g = lower_gemm(serial.problem, serial.schedule, spec);
  ASSERT_EQ(g.graph.kernels.size(), 1U);  // no reduction kernel
  ASSERT_EQ(g.graph.flags.size(), 1U);
  int waits = 0, signals = 0;
  for (const auto& t : g.graph.kernels[0].templates) {
    for (const auto& n : t.nodes) {
      waits += n.kind == graph::NodeKind::wait;
      signals += n.kind == graph::NodeKind::signal;
    }
  }
  EXPECT_EQ(waits, 3);    // slices 1..3 wait (one template per slice)
  EXPECT_EQ(signals, 4);  // every slice releases the next
  // Grid z is the slowest index: every tile's first slice is launched before any second slice.
  const auto& grid = g.graph.kernels[0].grid;
  ASSERT_EQ(grid.size(), 4U);
  for (const auto& group : grid) EXPECT_EQ(group.count, 17 * 17);
  EXPECT_GT(to_us(engine::simulate(g.graph, spec).latency), 0);
  req.kernel += ";cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float, __nv_bfloat16, false>";
  const Resolved parallel = resolve(req, spec);
  EXPECT_EQ(parallel.schedule.split_k, 4);
  EXPECT_FALSE(parallel.schedule.split_k_serial);
  EXPECT_EQ(lower_gemm(parallel.problem, parallel.schedule, spec).graph.kernels.size(), 2U);
  req.launch_grid = {136, 3, 1};  // z = 1 and a reduction kernel: the factor is picked as before
  EXPECT_TRUE(resolve(req, spec).schedule.split_k_runtime);
}

TEST(LaunchShape, NamesThatCarryTheClusterIgnoreTheLaunch) {
  const hw::GpuSpec spec = h200();
  Request req;
  req.m = req.n = req.k = 4096;
  req.kernel = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT";
  const ClusterShape from_name = resolve(req, spec).schedule.cluster;
  req.launch_cluster = {8, 1, 1};
  req.launch_grid = {2, 66, 1};
  EXPECT_EQ(resolve(req, spec).schedule.cluster, from_name);
  EXPECT_FALSE(has_note(parse_ok(req.kernel), "recorded launch"));
}

TEST(KStepFloor, SmallTilesGetTheFloorLargeOnesDoNot) {
  hw::GpuSpec spec = h200();
  ASSERT_GT(spec.tensor.ws_k_step_floor.value, 0);
  const auto steps = [&](const char* kernel, std::int64_t m, std::int64_t n, std::int64_t k) {
    Request req;
    req.m = m;
    req.n = n;
    req.k = k;
    req.kernel = kernel;
    const Resolved r = resolve(req, spec);
    const LoweredGemm g = lower_gemm(r.problem, r.schedule, spec);
    int floor_nodes = 0;
    for (const auto& t : g.graph.kernels[0].templates)
      for (const auto& nd : t.nodes) floor_nodes += nd.id.rfind("kstep", 0) == 0;
    return std::pair{floor_nodes, to_us(engine::simulate(g.graph, spec).latency)};
  };
  // 64x48 tiles: 4 x m64n48k16 per K step = 4 x 28 cycles, under the 241-cycle floor
  const char* small = "nvjet_sm90_tst_64x48_64x15_2x4_h_bz_TNT";
  const auto [small_nodes, small_t] = steps(small, 512, 512, 2048);
  EXPECT_GT(small_nodes, 0);
  // 256x128 cooperative: 16 x m64n128k16 = 1024 cycles per K step, above it: no extra nodes
  EXPECT_EQ(steps("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT", 4096, 4096, 4096).first, 0);
  // the floor only adds time
  spec.tensor.ws_k_step_floor = Cycles{0};
  const auto [no_nodes, no_floor_t] = steps(small, 512, 512, 2048);
  EXPECT_EQ(no_nodes, 0);
  EXPECT_GT(small_t, no_floor_t);
}

}  // namespace
}  // namespace tgsim::gemm

namespace tgsim::gemm {
namespace {

// cuBLAS's segment-K xmma GEMM of tf32 256x256x65536 (traces/h200/gemm.csv): 2 x 4 tiles of
// 128x64, launched as 120 CTAs in 4-CTA clusters, then its split-K kernel. The launch gives the
// segment count (120 / 8 = 15) and the cluster cannot lie along m (2 tiles): it goes along n.
TEST(LaunchShape, SegmentKTakesItsSplitFromTheLaunchAndAClusterThatFits) {
  const hw::GpuSpec spec = hw::load_gpu_preset("h200", TGSIM_SOURCE_DIR "/configs");
  Request req;
  req.m = req.n = 256;
  req.k = 65536;
  req.dtype = DType::tf32;
  req.kernel =
      "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x64x32_warpgroupsize1x1x1_execute_segment_k_on_kernel__5x_"
      "cublas;sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x64x32_warpgroupsize1x1x1_execute_split_k_kernel__5x_"
      "cublas";
  req.launch_grid = {120, 1, 1};
  req.launch_cluster = {4, 1, 1};
  const Resolved r = resolve(req, spec);
  EXPECT_EQ(r.schedule.split_k, 15);
  EXPECT_EQ(r.schedule.cluster, (ClusterShape{1, 4}));
  const LoweredGemm g = lower_gemm(r.problem, r.schedule, spec);
  ASSERT_EQ(g.graph.kernels.size(), 2U);  // the GEMM's segments, then their reduction
  std::int64_t ctas = 0;
  for (const auto& group : g.graph.kernels[0].grid) ctas += group.count;
  EXPECT_EQ(ctas, 120);
  // A cluster that fits neither way is not modelled.
  req.launch_cluster = {8, 1, 1};
  EXPECT_EQ(resolve(req, spec).schedule.cluster, (ClusterShape{1, 1}));
}

}  // namespace
}  // namespace tgsim::gemm
