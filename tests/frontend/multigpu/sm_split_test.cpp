// The SM-split lowering: the counter replay (round robin, steal plan), the tile cost model and
// whole-kernel invariants on the 2 x H200 presets.
#include "frontend/multigpu/sm_split.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>

#include "sim/engine/simulate.h"
#include "sim/graph/validate.h"
#include "sim/hw/spec_json.h"
#include "sim/hw/system_json.h"
#include "sim/units/error.h"

namespace tgsim::multigpu {
namespace {

const std::filesystem::path kConfigDir = std::filesystem::path(TGSIM_SOURCE_DIR) / "configs";

struct H200x2 {
  hw::GpuSpec gpu = sm_split_gpu(hw::load_gpu_preset("h200", kConfigDir));
  hw::SystemSpec sys = hw::load_system_preset("2xh200", kConfigDir);
};

double simulate_us(const SmSplitParams& p, const H200x2& m) {
  const graph::TileGraph g = lower_sm_split(p, plan_sm_split(p, m.gpu), m.gpu, m.sys);
  graph::validate_tile_graph(g, g.name);
  engine::SimOptions o;
  o.system = &m.sys;
  o.critical_path = false;
  return to_us(engine::simulate(g, m.gpu, o).latency);
}

TEST(SmSplit, ChunksAndTilesGoRoundRobin) {
  hw::GpuSpec gpu;
  gpu.sm.count = 6;
  gpu.sm.max_threads = 2048;
  gpu.tensor.mma_sync_latency = Cycles{24.7};
  SmSplitParams p;
  p.comm_blocks = 2;
  p.bytes = 5 * 100 + 30;  // 5 full chunks and a short one
  p.chunk_bytes = 100;
  p.tiles = 10;
  const SmSplitPlan plan = plan_sm_split(p, gpu);
  EXPECT_EQ(plan.chunks[0], (std::vector<std::int64_t>{100, 100, 100}));
  EXPECT_EQ(plan.chunks[1], (std::vector<std::int64_t>{100, 100, 30}));
  EXPECT_EQ(plan.tiles, (std::vector<std::int64_t>{0, 0, 3, 3, 2, 2}));
}

TEST(SmSplit, StealHandsTilesToWhoeverIsFreeFirst) {
  // 3 CTAs: CTA 0 communicates until 2.5 tile times; CTAs 1, 2 compute. 8 tiles: CTAs 1 and 2
  // take tiles at 0, 1, 2 (6 tiles), CTA 0 the 7th at 2.5, CTA 1 the 8th at 3.
  hw::GpuSpec gpu;
  gpu.sm.count = 3;
  gpu.sm.max_threads = 2048;
  gpu.tensor.mma_sync_latency = Cycles{24.7};
  SmSplitParams p;
  p.comm_blocks = 1;
  p.bytes = 1000;
  p.tiles = 8;
  p.steal = true;
  const SmSplitPlan plan = plan_steal(p, gpu, {Duration{2500}}, Duration{1000});
  EXPECT_EQ(plan.tiles, (std::vector<std::int64_t>{1, 4, 3}));
  EXPECT_EQ(plan.chunks[0], (std::vector<std::int64_t>{1000}));
}

TEST(SmSplit, TileCyclesCombineThroughputAndChainLatency) {
  const H200x2 m;
  SmSplitParams p;
  p.threads = 256;  // 8 warps: 2 per sub-partition
  p.mma_per_warp_per_tile = 1024;
  // Throughput: 1024 x 2 warps x 4096 FLOP / (2730 / 4) = 12291.0 clk; chains of 24.7 clk:
  // 4 chains 6323.2 clk, 1 chain 25292.8 clk; combined as (T^4 + L^4)^(1/4).
  p.mma_chains = 4;
  EXPECT_NEAR(sm_split_tile_cycles(p, m.gpu), 12500.81, 0.01);
  p.mma_chains = 1;
  EXPECT_NEAR(sm_split_tile_cycles(p, m.gpu), 25638.27, 0.01);
}

TEST(SmSplit, GraphHasOneCtaPerSmAndEveryByte) {
  const H200x2 m;
  SmSplitParams p;
  p.comm_blocks = 12;
  p.bytes = 16 << 20;
  p.chunk_bytes = 1 << 20;
  p.tiles = 830;
  const graph::TileGraph g = lower_sm_split(p, plan_sm_split(p, m.gpu), m.gpu, m.sys);
  EXPECT_NO_THROW(graph::validate_tile_graph(g, g.name));
  EXPECT_EQ(g.gpus, 2);
  ASSERT_EQ(g.kernels.size(), 1u);
  EXPECT_EQ(g.kernels[0].cta_count(), 132);
  std::int64_t bytes = 0, puts = 0;
  for (const auto& grp : g.kernels[0].grid) {
    for (const auto& n : g.kernels[0].templates[static_cast<std::size_t>(grp.template_index)].nodes) {
      if (n.kind != graph::NodeKind::remote_put) continue;
      EXPECT_EQ(n.peer, 1);
      bytes += n.bytes.value * grp.count;
      puts += grp.count;
    }
  }
  EXPECT_EQ(bytes, p.bytes);
  EXPECT_EQ(puts, 16);
}

TEST(SmSplit, MoreCommunicationCtasAreNeverSlowerForAPureCopy) {
  const H200x2 m;
  SmSplitParams p;
  p.bytes = 64 << 20;
  double prev = 1e30;
  for (int c : {1, 2, 4, 8, 16, 32, 64, 132}) {
    p.comm_blocks = c;
    const double t = simulate_us(p, m);
    EXPECT_LE(t, prev * (1 + 1e-9)) << c;
    prev = t;
  }
  // Link-bound at full width: 64 MiB over the SM-copy rate (396 GB/s x 0.936) plus overheads.
  EXPECT_NEAR(prev, 67108864 / (396e9 * 0.936) * 1e6 + 6, 2.0);
}

TEST(SmSplit, MoreNvlinkBandwidthIsNeverSlower) {
  H200x2 m;
  SmSplitParams p;
  p.comm_blocks = 32;
  p.bytes = 64 << 20;
  p.tiles = 2700;
  double prev = 1e30;
  for (double gbps : {100.0, 200.0, 396.0, 800.0}) {
    m.sys.nvlink.bandwidth = BytesPerSecond{gbps * 1e9};
    const double t = simulate_us(p, m);
    EXPECT_LE(t, prev * (1 + 1e-9)) << gbps;
    prev = t;
  }
}

TEST(SmSplit, RejectsImpossibleSplits) {
  const H200x2 m;
  SmSplitParams p;
  p.comm_blocks = 133;
  EXPECT_THROW(plan_sm_split(p, m.gpu), InputError);
  p.comm_blocks = 0;
  p.bytes = 1;
  EXPECT_THROW(plan_sm_split(p, m.gpu), InputError);
}

}  // namespace
}  // namespace tgsim::multigpu
