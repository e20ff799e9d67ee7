#include "frontend/multigpu/collectives.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "sim/engine/simulate.h"
#include "sim/graph/validate.h"
#include "sim/hw/spec_json.h"
#include "sim/hw/system_json.h"
#include "sim/units/error.h"

namespace tgsim::multigpu {
namespace {

const std::filesystem::path kConfigDir = std::filesystem::path(TGSIM_SOURCE_DIR) / "configs";

double simulate_us(const CollectiveParams& p, const std::string& system) {
  const hw::SystemSpec sys = hw::load_system_preset(system, kConfigDir);
  const hw::GpuSpec gpu = hw::load_gpu_preset(sys.gpu, kConfigDir);
  const graph::TileGraph g = lower_collective(p, plan_collective(p, gpu, sys), gpu, sys);
  graph::validate_tile_graph(g, g.name);
  engine::SimOptions o;
  o.system = &sys;
  o.critical_path = false;
  return to_us(engine::simulate(g, gpu, o).latency);
}

TEST(Collectives, LargeAllToAllIsLinkBound) {
  // 2 GPUs, 256 MiB each way: 268435456 B / (396 GB/s x 0.936) = 724 us plus overheads.
  CollectiveParams p;
  p.kind = Collective::all_to_all;
  p.gpus = 2;
  p.bytes = 256 << 20;
  const double t = simulate_us(p, "2xh200");
  EXPECT_GT(t, 724.2);
  EXPECT_LT(t, 724.2 + 30);
}

TEST(Collectives, RingAllReduceMovesTwiceTheShareOfEachGpu) {
  // 2 GPUs, 1 GiB: 2 steps of 512 MiB each way = 1 GiB per direction: 2897 us at the SM rate.
  CollectiveParams p;
  p.kind = Collective::all_reduce;
  p.gpus = 2;
  p.bytes = 1 << 30;
  const double t = simulate_us(p, "2xh200");
  EXPECT_GT(t, 2897);
  EXPECT_LT(t, 2897 + 40);
}

TEST(Collectives, TimeGrowsWithSizeAndFasterLinksHelp) {
  for (Collective kind : {Collective::all_to_all, Collective::all_reduce}) {
    CollectiveParams p;
    p.kind = kind;
    p.gpus = 8;
    double prev = 0;
    for (std::int64_t bytes : {std::int64_t{1} << 16, std::int64_t{1} << 22, std::int64_t{1} << 26}) {
      p.bytes = bytes;
      const double t = simulate_us(p, "8xh100");
      EXPECT_GE(t, prev);
      prev = t;
      EXPECT_LE(simulate_us(p, "8xb200"), t * (1 + 1e-9));
    }
  }
}

TEST(Collectives, SendsAreSplitOverChannelsAsNcclDoes) {
  // NCCL 2.28 on one node, 32 p2p channels, 32 per peer, 512 KiB steps: 2 ranks use at most 16
  // channels, one per 64 KiB, doubled once a channel's part passes 16 MiB; 8 ranks at most 4.
  const hw::NcclSpec n{32, 32, 640};
  constexpr std::int64_t step = 512 * 1024, KiB = 1024, MiB = 1024 * 1024;
  EXPECT_EQ(nccl_p2p_channels(4 * KiB, 2, n, step), 1);
  EXPECT_EQ(nccl_p2p_channels(64 * KiB, 2, n, step), 1);
  EXPECT_EQ(nccl_p2p_channels(128 * KiB, 2, n, step), 2);
  EXPECT_EQ(nccl_p2p_channels(512 * KiB, 2, n, step), 8);
  EXPECT_EQ(nccl_p2p_channels(1 * MiB, 2, n, step), 16);
  EXPECT_EQ(nccl_p2p_channels(256 * MiB, 2, n, step), 16);   // 16 MiB parts: not above the limit
  EXPECT_EQ(nccl_p2p_channels(512 * MiB, 2, n, step), 32);   // 32 MiB parts: doubled
  EXPECT_EQ(nccl_p2p_channels(1 * MiB, 8, n, step), 4);
  EXPECT_EQ(nccl_p2p_channels(2048 * MiB, 8, n, step), 32);  // 4 -> 8 -> 16 -> 32 (at most 32 / 2 before doubling)
  EXPECT_EQ(nccl_send_threads(640), 320);  // 20 warps: 9 receive, 10 send
  EXPECT_EQ(nccl_send_threads(512), 256);
  EXPECT_EQ(nccl_send_threads(128), 64);
  // all_to_all plans take the rule and the system's threads; all_reduce keeps its default
  const hw::SystemSpec sys = hw::load_system_preset("2xh200", kConfigDir);
  const hw::GpuSpec gpu = hw::load_gpu_preset(sys.gpu, kConfigDir);
  CollectiveParams p;
  p.kind = Collective::all_to_all;
  p.bytes = 256 * KiB;
  const CollectivePlan plan = plan_collective(p, gpu, sys);
  EXPECT_EQ(plan.channels, 4);
  EXPECT_EQ(plan.threads, 640);
  EXPECT_EQ(plan.send_threads, 320);
  p.kind = Collective::all_reduce;
  EXPECT_EQ(plan_collective(p, gpu, sys).channels, 16);
}

TEST(Collectives, RejectsMoreGpusThanTheSystemHas) {
  const hw::SystemSpec sys = hw::load_system_preset("2xh200", kConfigDir);
  const hw::GpuSpec gpu = hw::load_gpu_preset("h200", kConfigDir);
  CollectiveParams p;
  p.gpus = 4;
  p.bytes = 4096;
  EXPECT_THROW(plan_collective(p, gpu, sys), InputError);
}

}  // namespace
}  // namespace tgsim::multigpu
