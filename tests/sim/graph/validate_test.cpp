#include "sim/graph/validate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>

#include "sim/units/error.h"
#include "tests/sim/graph/graph_test_util.h"

namespace tgsim::graph {
namespace {

using testing::small_graph;

Node delay_node(std::string id) {
  Node n;
  n.id = std::move(id);
  n.kind = NodeKind::delay;
  n.cycles = Cycles{10};
  return n;
}

// A template of delay nodes a, b, c, d with the given edges.
CtaTemplate abcd(std::vector<Edge> edges) {
  CtaTemplate t;
  t.name = "t";
  t.roles = {Role{"all", 0, 4}};
  for (const char* id : {"a", "b", "c", "d"}) t.nodes.push_back(delay_node(id));
  t.edges = std::move(edges);
  return t;
}

TEST(Validate, SmallGraphIsValid) { EXPECT_NO_THROW(validate_tile_graph(small_graph(), "small")); }

TEST(Validate, TopologicalOrderPutsEveryEdgeForward) {
  const CtaTemplate t = abcd({Edge{3, 1}, Edge{1, 0}, Edge{3, 2}, Edge{2, 0}});
  const std::vector<int> order = topological_order(t);
  ASSERT_EQ(order.size(), 4u);
  std::vector<int> position(4);
  for (int i = 0; i < 4; ++i) position[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = i;
  for (const Edge& e : t.edges) {
    EXPECT_LT(position[static_cast<std::size_t>(e.from)], position[static_cast<std::size_t>(e.to)]);
  }
}

TEST(Validate, TopologicalOrderOfATemplateWithoutEdgesKeepsAllNodes) {
  std::vector<int> order = topological_order(abcd({}));
  std::sort(order.begin(), order.end());
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
}

TEST(Validate, TopologicalOrderRejectsACycle) {
  EXPECT_THROW_MSG(topological_order(abcd({Edge{0, 1}, Edge{1, 2}, Edge{2, 3}, Edge{3, 1}})), InputError,
                   "template \"t\": cycle: b -> c -> d -> b");
}

TEST(Validate, TopologicalOrderRejectsAnEdgeOutOfRange) {
  EXPECT_THROW_MSG(topological_order(abcd({Edge{0, 4}})), InputError,
                   "edge 0 (0 -> 4) names a node that does not exist");
}

TEST(Validate, FindCycleStartsAtLowestNode) {
  EXPECT_EQ(find_cycle(abcd({Edge{0, 1}, Edge{2, 3}})), std::vector<int>{});
  EXPECT_EQ(find_cycle(abcd({Edge{3, 1}, Edge{1, 2}, Edge{2, 3}})), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(find_cycle(abcd({Edge{2, 2}})), (std::vector<int>{2}));
}

TEST(Validate, CycleMessageNamesTheNodesInOrder) {
  TileGraph g = small_graph();
  g.kernels[0].templates[0].edges.push_back(Edge{2, 0, EdgeKind::order});
  EXPECT_THROW_MSG(validate_tile_graph(g, "gemm.json"), InputError,
                   "gemm.json: /kernels/0/templates/0: cycle: ld -> mma -> st -> ld");
}

TEST(Validate, SelfLoopIsACycle) {
  TileGraph g = small_graph();
  g.kernels[0].templates[0].edges.push_back(Edge{1, 1, EdgeKind::order});
  EXPECT_THROW_MSG(validate_tile_graph(g, "gemm.json"), InputError, "cycle: mma -> mma");
}

// Each case breaks small_graph() in one way and names the message (or the part that matters).
struct InvalidCase {
  const char* name;
  std::function<void(TileGraph&)> edit;
  std::string message;
};

void PrintTo(const InvalidCase& c, std::ostream* os) { *os << c.name; }

class ValidateError : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(ValidateError, NamesPathAndProblem) {
  TileGraph g = small_graph();
  GetParam().edit(g);
  EXPECT_THROW_MSG(validate_tile_graph(g, "g.json"), InputError, GetParam().message);
}

Kernel& k0(TileGraph& g) { return g.kernels[0]; }
CtaTemplate& t0(TileGraph& g) { return g.kernels[0].templates[0]; }
Node& node(TileGraph& g, std::size_t i) { return g.kernels[0].templates[0].nodes[i]; }

Node signal_node(int flag) {
  Node n;
  n.id = "sig";
  n.kind = NodeKind::signal;
  n.flag.flag = flag;
  return n;
}

constexpr auto kInt64Max = std::numeric_limits<std::int64_t>::max();
const std::string kLd = "g.json: /kernels/0/templates/0/nodes/0 (\"ld\"): ";
const std::string kMma = "g.json: /kernels/0/templates/0/nodes/1 (\"mma\"): ";

INSTANTIATE_TEST_SUITE_P(
    Cases, ValidateError,
    ::testing::Values(
        InvalidCase{"EdgeOutOfRange", [](TileGraph& g) { t0(g).edges.push_back(Edge{1, 3}); },
                    "g.json: /kernels/0/templates/0/edges/2: edge 1 -> 3 names a node index out of range (3 nodes)"},
        InvalidCase{"NegativeEdgeEnd", [](TileGraph& g) { t0(g).edges[0].from = -1; },
                    "/edges/0: edge -1 -> 1 names a node index out of range"},
        InvalidCase{"LoadWithoutBytes", [](TileGraph& g) { node(g, 0).bytes = Bytes{0}; },
                    kLd + "a load node needs bytes > 0, got 0"},
        InvalidCase{"NegativeStoreBytes", [](TileGraph& g) { node(g, 2).bytes = Bytes{-5}; },
                    "/nodes/2 (\"st\"): a store node needs bytes > 0, got -5"},
        InvalidCase{"SmemWithoutBytes",
                    [](TileGraph& g) {
                      node(g, 0).kind = NodeKind::smem;
                      node(g, 0).bytes = Bytes{};
                    },
                    kLd + "a smem node needs bytes > 0"},
        InvalidCase{"MmaZeroShape", [](TileGraph& g) { node(g, 1).shape = {64, 0, 16}; },
                    kMma + "an mma node needs a shape of positive (m, n, k), got [64, 0, 16]"},
        InvalidCase{"MmaZeroCount", [](TileGraph& g) { node(g, 1).count = 0; },
                    kMma + "an mma node needs count >= 1, got 0"},
        InvalidCase{"MmaFlopsOverflow", [](TileGraph& g) { node(g, 1).count = kInt64Max / 1000; },
                    kMma + "2 x 64 x 256 x 16 x 9223372036854775 FLOPs x 4 CTAs overflows a 64-bit integer"},
        InvalidCase{"BytesOverflowOverTheGrid", [](TileGraph& g) { node(g, 0).bytes = Bytes{kInt64Max / 2}; },
                    kLd + "4611686018427387903 bytes x 4 CTAs overflows a 64-bit integer"},
        InvalidCase{"SimtWithoutOps",
                    [](TileGraph& g) { node(g, 1).kind = NodeKind::simt; node(g, 1).ops = 0; },
                    kMma + "a simt node needs ops > 0, got 0"},
        InvalidCase{"SimtThreadsBeyondRole",
                    [](TileGraph& g) {
                      node(g, 1).kind = NodeKind::simt;
                      node(g, 1).ops = 1;
                      node(g, 1).threads = 256;
                    },
                    kMma + "threads must be in [0, 128] (role \"consumer\" has 4 warps), got 256"},
        InvalidCase{"SignalWithoutFlag", [](TileGraph& g) { t0(g).nodes.push_back(signal_node(-1)); },
                    "/nodes/3 (\"sig\"): a signal node needs a flag"},
        InvalidCase{"FlagOutOfRange", [](TileGraph& g) { t0(g).nodes.push_back(signal_node(1)); },
                    "/nodes/3 (\"sig\"): flag index 1 out of range (1 flags)"},
        InvalidCase{"SignalAddsNothing",
                    [](TileGraph& g) { t0(g).nodes.push_back(signal_node(0)); t0(g).nodes.back().value = 0; },
                    "a signal must add a positive value, got 0"},
        InvalidCase{"RoleOutOfRange", [](TileGraph& g) { node(g, 1).role = 2; },
                    kMma + "role index 2 out of range (2 roles)"},
        InvalidCase{"TensorOutOfRange", [](TileGraph& g) { node(g, 0).tile.tensor = 2; },
                    kLd + "tensor index 2 out of range (2 tensors)"},
        InvalidCase{"ZeroFillOnATrackedTile", [](TileGraph& g) { node(g, 0).tile.zero_fill = true; },
                    kLd + "\"zero_fill\" is for untracked, non-resident loads only"},
        InvalidCase{"ZeroFillOnAStore",
                    [](TileGraph& g) { node(g, 2).tile.tensor = -1; node(g, 2).tile.zero_fill = true; },
                    "/nodes/2 (\"st\"): \"zero_fill\" is for untracked, non-resident loads only"},
        InvalidCase{"NegativeCycles", [](TileGraph& g) { node(g, 1).cycles = Cycles{-1}; },
                    kMma + "cycles must be >= 0"},
        InvalidCase{"MulticastBeyondCluster", [](TileGraph& g) { node(g, 0).multicast = 4; },
                    kLd + "multicast 4 exceeds the cluster size 2"},
        InvalidCase{"MulticastWithoutTma",
                    [](TileGraph& g) { node(g, 0).multicast = 2; node(g, 0).engine = MemEngine::cp_async; },
                    kLd + "multicast needs a TMA load"},
        InvalidCase{"AccessNotAWidth", [](TileGraph& g) { node(g, 0).access = 12; },
                    kLd + "access (bytes per thread per copy) must be 2, 4, 8 or 16, got 12"},
        InvalidCase{"TwoByteAccessOnATmaLoad", [](TileGraph& g) { node(g, 0).access = 2; },
                    kLd + "access 2 needs a plain load or store"},
        InvalidCase{"PitchAlignmentOnACpAsyncLoad",
                    [](TileGraph& g) {
                      node(g, 0).engine = MemEngine::cp_async;
                      node(g, 0).pitch_alignment = 128;
                    },
                    kLd + "\"pitch_alignment\" is for access-2 loads and stores and for TMA loads only"},
        InvalidCase{"PitchAlignmentBelowATmaLoadsSixteenBytes", [](TileGraph& g) { node(g, 0).pitch_alignment = 8; },
                    kLd + "a TMA load's rows are at least 16-byte aligned (the tensor map's strides): pitch_alignment 8"},
        InvalidCase{"PitchAlignmentNotAPowerOfTwo", [](TileGraph& g) { node(g, 0).pitch_alignment = 24; },
                    kLd + "pitch_alignment must be 0 or a power of two from 2 to 128 (bytes), got 24"},
        InvalidCase{"NarrowAccessOnATmaLoad", [](TileGraph& g) { node(g, 0).access = 4; },
                    kLd + "access needs a cp_async load"},
        InvalidCase{"CopyEngineForALocalLoad", [](TileGraph& g) { node(g, 0).engine = MemEngine::copy_engine; },
                    kLd + "the copy engine only serves remote_put/remote_get nodes"},
        InvalidCase{"RemoteOnOneGpu", [](TileGraph& g) { node(g, 2).kind = NodeKind::remote_put; },
                    "/nodes/2 (\"st\"): a remote_put node needs a graph of at least 2 GPUs"},
        InvalidCase{"RemotePeerOutOfRange",
                    [](TileGraph& g) { g.gpus = 2; node(g, 2).kind = NodeKind::remote_get; node(g, 2).peer = 2; },
                    "peer must be in [1, 1] (GPUs - 1), got 2"},
        InvalidCase{"DuplicateNodeId", [](TileGraph& g) { node(g, 2).id = "ld"; },
                    "g.json: /kernels/0/templates/0/nodes/2 (\"ld\"): duplicate node id \"ld\""},
        InvalidCase{"EmptyNodeId", [](TileGraph& g) { node(g, 2).id = ""; }, "a node id must not be empty"},
        InvalidCase{"DuplicateRoleName", [](TileGraph& g) { t0(g).roles[1].name = "producer"; },
                    "g.json: /kernels/0/templates/0/roles/1: duplicate role name \"producer\""},
        InvalidCase{"RoleBeyondCtaWarps", [](TileGraph& g) { t0(g).roles[1].warps = 8; },
                    "/roles/1: role \"consumer\" uses warps 4..11 but the CTA has 256 threads (8 warps)"},
        InvalidCase{"DuplicateFlagName", [](TileGraph& g) { g.flags.push_back(g.flags[0]); },
                    "g.json: /flags/1: duplicate flag name \"done\""},
        InvalidCase{"DuplicateTemplateName", [](TileGraph& g) { k0(g).templates.push_back(t0(g)); },
                    "g.json: /kernels/0/templates/1: duplicate template name \"main\""},
        InvalidCase{"NegativeTensorBytes", [](TileGraph& g) { k0(g).tensors[1].bytes = Bytes{-1}; },
                    "g.json: /kernels/0/tensors/1: bytes must be >= 0, got -1"},
        InvalidCase{"NegativeSharedMemory", [](TileGraph& g) { k0(g).cta.shared_memory = Bytes{-1}; },
                    "g.json: /kernels/0/cta: shared_memory must be >= 0, got -1"},
        InvalidCase{"ZeroClusterDim", [](TileGraph& g) { k0(g).cta.cluster = {2, 0, 1}; },
                    "g.json: /kernels/0/cta: cluster dims must be >= 1, got [2, 0, 1]"},
        InvalidCase{"GridNotAMultipleOfTheCluster", [](TileGraph& g) { k0(g).cta.cluster = {3, 1, 1}; },
                    "g.json: /kernels/0/grid: the grid has 4 CTAs, not a multiple of the cluster size 3"},
        InvalidCase{"ParamsWidthMismatch", [](TileGraph& g) { k0(g).grid[0].params.pop_back(); },
                    "g.json: /kernels/0/grid/0: params holds 7 values; expected count x params_per_cta = 4 x 2 = 8"},
        InvalidCase{"CoordBeyondParams",
                    [](TileGraph& g) {
                      k0(g).grid[0].params_per_cta = 1;
                      k0(g).grid[0].params = {0, 1, 2, 3};
                    },
                    "g.json: /kernels/0/grid/0: node \"st\" of template \"main\" reads param 1, but the group has "
                    "params_per_cta 1"},
        InvalidCase{"ParamsMissing", [](TileGraph& g) { k0(g).grid[0].params.clear(); },
                    "node \"st\" of template \"main\" reads param 1, but the group gives no params"},
        InvalidCase{"ZeroCtaCount", [](TileGraph& g) { k0(g).grid[0].count = 0; },
                    "g.json: /kernels/0/grid/0: count must be >= 1, got 0"},
        InvalidCase{"TemplateOutOfRange", [](TileGraph& g) { k0(g).grid[0].template_index = 1; },
                    "g.json: /kernels/0/grid/0: template index 1 out of range (1 templates)"},
        InvalidCase{"EmptyGrid", [](TileGraph& g) { k0(g).grid.clear(); },
                    "g.json: /kernels/0/grid: a kernel needs at least one CTA group"},
        InvalidCase{"AfterALaterKernel",
                    [](TileGraph& g) {
                      g.kernels.push_back(k0(g));
                      k0(g).after = {1};
                    },
                    "g.json: /kernels/0/after/0: after names kernel 1 (\"gemm\"), which is not an earlier kernel"},
        InvalidCase{"AfterItself", [](TileGraph& g) { k0(g).after = {0}; }, "which is not an earlier kernel"},
        InvalidCase{"AfterUnknownKernel", [](TileGraph& g) { k0(g).after = {7}; },
                    "g.json: /kernels/0/after/0: after names kernel 7, which does not exist (1 kernels)"},
        InvalidCase{"KernelGpuOutOfRange", [](TileGraph& g) { k0(g).gpu = 1; },
                    "g.json: /kernels/0: gpu 1 out of range (1 GPUs)"},
        InvalidCase{"NegativeStream", [](TileGraph& g) { k0(g).stream = -1; }, "stream must be >= 0, got -1"},
        InvalidCase{"NoGpus", [](TileGraph& g) { g.gpus = 0; }, "g.json: /gpus: gpus must be >= 1, got 0"}),
    [](const ::testing::TestParamInfo<InvalidCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tgsim::graph
