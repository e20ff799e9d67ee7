// The MoE layer frontend (docs/moe.md): routing, placement and bytes by hand, schedule
// invariants on small layers, and Weave's premise (the cost model's C moves with skew).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>

#include "frontend/moe/expert_tiles.h"
#include "frontend/moe/run.h"
#include "sim/hw/spec_json.h"
#include "sim/hw/system_json.h"
#include "sim/units/error.h"

namespace tgsim::moe {
namespace {

const std::filesystem::path kConfigDir = std::filesystem::path(TGSIM_SOURCE_DIR) / "configs";

// Qwen3-30B-A3B's MoE shape (configs/models/qwen3-30b-a3b.json): balanced comm and compute at
// 2048 tokens per GPU on 4 x H100.
const MoeShape kQwen{"qwen3", 2048, 768, 128, 8};
// A small layer for quick runs.
const MoeShape kSmall{"small", 1024, 512, 8, 2};

struct Machine {
  hw::SystemSpec sys = hw::load_system_preset("4xh100", kConfigDir);
  hw::GpuSpec gpu = hw::load_gpu_preset(sys.gpu, kConfigDir);
};

LayerRun run(const MoeLayer& l, const std::string& schedule, const Machine& m) {
  return run_layer(l, lower_layer(l, parse_schedule(schedule), m.gpu, m.sys), m.gpu, m.sys);
}

TEST(MoeRouting, DeterministicAndConservesPairs) {
  for (const std::string spec : {"uniform", "zipf:1.2", "zipf:0"}) {
    const Routing a = make_routing(spec, 4, 16, 4, 1000), b = make_routing(spec, 4, 16, 4, 1000);
    EXPECT_EQ(a.tokens, b.tokens) << spec;
    for (const auto& row : a.tokens) {
      EXPECT_EQ(std::accumulate(row.begin(), row.end(), std::int64_t{0}), 4000) << spec;  // each pair once
      for (std::int64_t n : row) EXPECT_LE(n, 1000) << spec;  // k distinct experts per token
    }
  }
  const Routing z = make_routing("zipf:1.2", 1, 16, 4, 1000);
  for (std::size_t e = 1; e < 16; ++e) EXPECT_LE(z.tokens[0][e], z.tokens[0][e - 1]);
  EXPECT_EQ(z.tokens[0][0], 1000);  // capped at the tokens: the excess went to the others
}

TEST(MoeRouting, BadSpecsNameTheFlagOrFile) {
  try {
    make_routing("zipf:x", 4, 8, 2, 10);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--routing"), std::string::npos) << e.what();
  }
  const auto path = std::filesystem::temp_directory_path() / "tgsim_moe_routing.json";
  std::ofstream(path) << R"({"tokens": [[10, 10], [20, 0]]})";
  const Routing r = make_routing(path.string(), 2, 2, 1, 20);
  EXPECT_EQ(r.tokens[1][0], 20);
  EXPECT_THROW(make_routing(path.string(), 2, 2, 2, 20), InputError);  // rows sum to 20, not 40
  std::filesystem::remove(path);
  const auto csv = std::filesystem::temp_directory_path() / "tgsim_moe_routing.csv";
  std::ofstream(csv) << "src,expert,tokens\n0,0,15\n0,1,5\n1,1,20\n";
  EXPECT_EQ(make_routing(csv.string(), 2, 2, 1, 20).tokens, (std::vector<std::vector<std::int64_t>>{{15, 5}, {0, 20}}));
  std::ofstream(csv) << "src,expert,tokens\n0,2,20\n";
  EXPECT_THROW(make_routing(csv.string(), 2, 2, 1, 20), InputError);  // expert 2 of 2
  std::filesystem::remove(csv);
}

TEST(MoeLayer, BytesPerPairByHand) {
  // 2 GPUs, 4 experts (0, 1 on GPU 0; 2, 3 on GPU 1), top-2, 10 tokens per GPU, uniform: every
  // expert gets 5 pairs from each source. GPU 0 sends experts 2 and 3 their 10 pairs:
  // 10 x 1024 x 2 B = 20480 B; it pushes that in dispatch and as much back in combine.
  const MoeLayer l = make_layer(MoeShape{"t", 1024, 512, 4, 2}, 2, 10, "uniform");
  EXPECT_EQ(l.tokens(0, 3), 5);
  EXPECT_EQ(l.pair_tokens(0, 1), 10);
  EXPECT_EQ(l.pair_bytes(0, 1), 20480);
  EXPECT_EQ(l.push_bytes(0), 40960);
  EXPECT_EQ(l.expert_rows(2), 10);
  // GEMM0 2 x 10 x 1024 x 1024 + GEMM1 2 x 10 x 1024 x 512, for two experts.
  EXPECT_DOUBLE_EQ(l.expert_flops(1), 2 * (2.0 * 10 * 1024 * 1024 + 2.0 * 10 * 1024 * 512));
  EXPECT_THROW(make_layer(MoeShape{"t", 1024, 512, 6, 2}, 4, 10, "uniform"), InputError);  // 6 experts, 4 GPUs
}

TEST(MoeSchedule, ParsesNamesAndRejectsOthers) {
  EXPECT_EQ(parse_schedule("fixed-split:24").comm_sms, 24);
  EXPECT_EQ(parse_schedule("tile-overlap").comm_sms, kDefaultCommSms);
  EXPECT_TRUE(parse_schedule("dynamic").steal);
  EXPECT_EQ(parse_schedule("tile-overlap:8,10,10,12").comm_per_gpu, (std::vector<int>{8, 10, 10, 12}));
  EXPECT_EQ(to_string(parse_schedule("tile-overlap:8,10,10,12")), "tile-overlap:8,10,10,12");
  const Machine m;
  const MoeLayer l = make_layer(kSmall, 4, 64, "uniform");
  EXPECT_EQ(lower_layer(l, parse_schedule("fixed-split:3,4,5,6"), m.gpu, m.sys).comm_sms, (std::vector<int>{3, 4, 5, 6}));
  EXPECT_THROW(lower_layer(l, parse_schedule("fixed-split:3,4"), m.gpu, m.sys), InputError);  // 2 values, 4 GPUs
  for (const std::string bad : {"fixed-split", "fixed-split:0", "overlap", "dynamic:3", "tile-overlap:8,,9"}) {
    try {
      parse_schedule(bad);
      FAIL() << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--schedule"), std::string::npos) << e.what();
    }
  }
}

TEST(MoeRun, SequentialIsAtLeastItsParts) {
  const Machine m;
  const MoeLayer l = make_layer(kSmall, 4, 1024, "uniform");
  const LayerRun r = run(l, "sequential", m);
  const double latency = to_us(r.result.latency);
  double gpu0_kernels = 0;
  for (const auto& k : r.result.kernels) gpu0_kernels += k.gpu == 0 ? to_us(k.end - k.start) : 0;
  EXPECT_GE(latency, gpu0_kernels - 1e-6);  // one stream: the kernels run one after another
  EXPECT_GE(latency, to_us(r.gpus[0].compute_active));
  // Comm part: GPU 0's bytes over its SM-reachable egress link, both all-to-alls.
  EXPECT_GE(latency, static_cast<double>(l.push_bytes(0)) / link_rate(m.sys) * 1e6);
  EXPECT_EQ(r.gpus[0].overlap, 0.0);
}

TEST(MoeRun, TileOverlapNoSlowerThanSequentialWhenBalanced) {
  const Machine m;
  const MoeLayer l = make_layer(kQwen, 4, 2048, "uniform");
  const double seq = to_us(run(l, "sequential", m).result.latency);
  const LayerRun tile = run(l, "tile-overlap", m);
  EXPECT_LE(to_us(tile.result.latency), seq);
  EXPECT_GT(tile.gpus[0].overlap, 0.5);
}

TEST(MoeRun, MoreNvlinkBandwidthIsNeverSlower) {
  const Machine m;
  Machine fast = m;
  fast.sys.nvlink.bandwidth = fast.sys.nvlink.bandwidth * 2.0;
  const MoeLayer l = make_layer(kSmall, 4, 2048, "zipf:1.0");
  for (const std::string s : {"sequential", "fixed-split:8", "tile-overlap", "dynamic"}) {
    EXPECT_LE(run(l, s, fast).result.latency.count(), run(l, s, m).result.latency.count() + 1000) << s;
  }
}

TEST(MoeCostModel, ChosenCMovesWithRoutingSkew) {
  // Weave's premise: the best C differs between the GPUs of one layer once routing is skewed.
  // With zipf the first GPU holds the hot experts: much more compute and combine traffic, but
  // relatively less to send, so it gets fewer communication SMs than the cold GPUs.
  const Machine m;
  const MoeLayer uniform = make_layer(kQwen, 4, 4096, "uniform");
  const MoeLayer skewed = make_layer(kQwen, 4, 4096, "zipf:1.0");
  std::vector<CostModelTerms> u, z;
  for (int g = 0; g < 4; ++g) {
    u.push_back(choose_comm_sms(uniform, g, m.gpu, m.sys, kCtaThreads));
    z.push_back(choose_comm_sms(skewed, g, m.gpu, m.sys, kCtaThreads));
  }
  for (int g = 1; g < 4; ++g) EXPECT_EQ(u[static_cast<std::size_t>(g)].chosen, u[0].chosen);
  EXPECT_LT(z[0].c_star, z[3].c_star);
  EXPECT_LT(z[0].chosen, z[3].chosen);
  // Mixtral-like shapes are compute-heavy: C* is small, and still differs under skew.
  const MoeShape mixtral{"mixtral", 4096, 14336, 8, 2};
  const MoeLayer mz = make_layer(mixtral, 4, 4096, "zipf:1.0");
  EXPECT_LT(choose_comm_sms(mz, 0, m.gpu, m.sys, kCtaThreads).c_star,
            choose_comm_sms(mz, 3, m.gpu, m.sys, kCtaThreads).c_star);
}

TEST(MoeRun, DynamicUsesTheCostModelAndSteals) {
  const Machine m;
  // Compute-heavy (I = 16H) and little to combine: the communication SMs are free early and steal.
  const MoeLayer l = make_layer(MoeShape{"wide", 1024, 16384, 8, 2}, 4, 1024, "uniform");
  const LoweredLayer lowered = lower_layer(l, parse_schedule("dynamic"), m.gpu, m.sys);
  std::int64_t stolen = 0;
  for (int g = 0; g < 4; ++g) {
    EXPECT_EQ(lowered.comm_sms[static_cast<std::size_t>(g)], lowered.cost[static_cast<std::size_t>(g)].chosen);
    stolen += lowered.stolen[static_cast<std::size_t>(g)];
  }
  EXPECT_GT(stolen, 0);
  EXPECT_GT(to_us(run_layer(l, lowered, m.gpu, m.sys).result.latency), 0);
}

}  // namespace
}  // namespace tgsim::moe
