// Tile-graph JSON: parsing valid documents, the writer and round trips. Files on disk:
// graph_json_file_test.cpp; malformed documents: graph_json_error_test.cpp.
#include "sim/graph/graph_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/graph/validate.h"
#include "sim/units/error.h"
#include "tests/sim/graph/graph_json_test_util.h"
#include "tests/sim/graph/graph_test_util.h"

namespace tgsim::graph {
namespace {

using nlohmann::json;
using testing::base_doc;
using testing::every_field_graph;
using testing::parse;
using testing::small_graph;

TEST(GraphJson, ParsesBaseDocument) {
  const TileGraph g = parse(base_doc());
  EXPECT_EQ(g.name, "t");
  EXPECT_EQ(g.gpus, 2);
  ASSERT_EQ(g.flags.size(), 1u);
  EXPECT_EQ(g.flags[0].scope, FlagScope::gpu);
  ASSERT_EQ(g.kernels.size(), 2u);
  const Kernel& k = g.kernels[0];
  EXPECT_EQ(k.cta.threads, 256);
  EXPECT_EQ(k.cta.cluster, (std::array<int, 3>{2, 1, 1}));
  const CtaTemplate& t = k.templates[0];
  ASSERT_EQ(t.nodes.size(), 3u);
  EXPECT_EQ(t.nodes[0].role, 0);
  EXPECT_EQ(t.nodes[0].engine, MemEngine::tma);
  EXPECT_EQ(t.nodes[0].tile.tensor, 0);
  EXPECT_EQ(t.nodes[0].tile.coords[0], (Coord{0, 0}));
  EXPECT_EQ(t.nodes[0].tile.coords[2], (Coord{-1, 0}));
  EXPECT_EQ(t.nodes[1].role, 1);
  EXPECT_EQ(t.nodes[1].inst, TensorInst::wgmma);
  EXPECT_EQ(t.nodes[1].dtype, DType::bf16);
  EXPECT_EQ(t.nodes[1].count, 4);
  EXPECT_EQ(t.nodes[2].flag, (FlagRef{0, Coord{0, 0}}));
  EXPECT_EQ(t.edges[0], (Edge{0, 1, EdgeKind::data}));
  EXPECT_EQ(t.edges[1], (Edge{1, 2, EdgeKind::order}));
  EXPECT_EQ(k.grid[0].params_per_cta, 1);
  EXPECT_EQ(k.grid[0].params, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(g.kernels[1].after, (std::vector<int>{0}));
  EXPECT_EQ(g.kernels[1].templates[0].nodes[0].flag.index, (Coord{-1, 1}));
  EXPECT_EQ(g.kernels[1].grid[0].count, 1);
  EXPECT_NO_THROW(validate_tile_graph(g, "test.json"));
}

TEST(GraphJson, CoordinateForms) {
  json doc = base_doc();
  doc["/kernels/0/templates/0/nodes/0/tile/coords"_json_pointer] =
      json::parse(R"([7, "p0+3", {"param": 0, "offset": -2}])");
  doc["/kernels/0/templates/0/nodes/2/index"_json_pointer] = "p0-4";
  const TileGraph g = parse(doc);
  const CtaTemplate& t = g.kernels[0].templates[0];
  EXPECT_EQ(t.nodes[0].tile.coords[0], (Coord{-1, 7}));
  EXPECT_EQ(t.nodes[0].tile.coords[1], (Coord{0, 3}));
  EXPECT_EQ(t.nodes[0].tile.coords[2], (Coord{0, -2}));
  EXPECT_EQ(t.nodes[2].flag.index, (Coord{0, -4}));
}

TEST(GraphJson, AcceptsDtypeAndInstructionAliases) {
  json doc = base_doc();
  doc["/kernels/0/templates/0/nodes/1/dtype"_json_pointer] = "half";
  doc["/kernels/0/templates/0/nodes/1/inst"_json_pointer] = "mma.sync";
  const TileGraph g = parse(doc);
  const Node& mma = g.kernels[0].templates[0].nodes[1];
  EXPECT_EQ(mma.dtype, DType::fp16);
  EXPECT_EQ(mma.inst, TensorInst::mma_sync);
}

TEST(GraphJson, RowMajorParamsEnumerateABox) {
  json doc = base_doc();
  doc["/kernels/0/grid/0"_json_pointer] =
      json::parse(R"({"template": "main", "count": 6, "params": {"row_major": [2, 3]}})");
  const TileGraph g = parse(doc);
  const CtaGroup& group = g.kernels[0].grid[0];
  EXPECT_EQ(group.params_per_cta, 2);
  EXPECT_EQ(group.params, (std::vector<std::int64_t>{0, 0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 2}));
}

TEST(GraphJson, SizesAndCyclesTakeUnits) {
  json doc = base_doc();
  doc["/kernels/0/templates/0/nodes/0/bytes"_json_pointer] = "32KiB";
  doc["/kernels/0/templates/0/nodes/0/cycles"_json_pointer] = "100cycles";
  doc["/kernels/0/templates/0/nodes/1/cycles"_json_pointer] = 12.5;
  doc["/kernels/0/cta/shared_memory"_json_pointer] = "200KiB";
  const TileGraph g = parse(doc);
  EXPECT_EQ(g.kernels[0].templates[0].nodes[0].bytes, Bytes{32 * 1024});
  EXPECT_EQ(g.kernels[0].templates[0].nodes[0].cycles, Cycles{100});
  EXPECT_EQ(g.kernels[0].templates[0].nodes[1].cycles, Cycles{12.5});
  EXPECT_EQ(g.kernels[0].cta.shared_memory, Bytes{200 * 1024});
}

TEST(GraphJson, WriterSpellsWholeSizesWithUnits) {
  TileGraph g = small_graph();
  g.kernels[0].tensors[1].bytes = Bytes{12345};
  const json j = to_json(g);
  EXPECT_EQ(j["/kernels/0/templates/0/nodes/0/bytes"_json_pointer], "48KiB");
  EXPECT_EQ(j["/kernels/0/cta/shared_memory"_json_pointer], "200KiB");
  EXPECT_EQ(j["/kernels/0/tensors/0/bytes"_json_pointer], "1MiB");
  EXPECT_EQ(j["/kernels/0/tensors/1/bytes"_json_pointer], 12345);
}

TEST(GraphJson, AfterByIndex) {
  json doc = base_doc();
  doc["/kernels/1/after"_json_pointer] = json::array({0});
  EXPECT_EQ(parse(doc).kernels[1].after, (std::vector<int>{0}));
}

TEST(GraphJson, ForwardAfterIsLeftToValidate) {
  json doc = base_doc();
  doc["/kernels/0/after"_json_pointer] = json::array({"k1"});
  const TileGraph g = parse(doc);
  EXPECT_THROW_MSG(validate_tile_graph(g, "test.json"), InputError,
                   "test.json: /kernels/0/after/0: after names kernel 1 (\"k1\"), which is not an earlier kernel");
}

TEST(GraphJson, RoundTripsEveryField) {
  const TileGraph g = every_field_graph();
  ASSERT_NO_THROW(validate_tile_graph(g, "every"));
  EXPECT_EQ(parse(to_json(g)), g);
  EXPECT_EQ(parse(json::parse(format_tile_graph(g))), g);
  EXPECT_EQ(to_json(g)["/kernels/1/after/0"_json_pointer], 0);
}

TEST(GraphJson, RoundTripsSmallGraph) {
  const TileGraph g = small_graph();
  EXPECT_EQ(parse(to_json(g)), g);
}

TEST(GraphJson, WriterLeavesDefaultsOut) {
  const json j = to_json(small_graph());
  const json& k = j["kernels"][0];
  EXPECT_FALSE(k.contains("stream"));
  EXPECT_FALSE(k.contains("after"));
  EXPECT_FALSE(k["cta"].contains("registers_per_thread"));
  const json& ld = k["templates"][0]["nodes"][0];
  EXPECT_FALSE(ld.contains("engine"));
  EXPECT_FALSE(ld.contains("multicast"));
  EXPECT_FALSE(ld.contains("access"));
  EXPECT_FALSE(ld.contains("cycles"));
  EXPECT_EQ(ld["role"], "producer");  // written whenever the template has several roles
  EXPECT_EQ(ld["tile"]["coords"], json::parse(R"(["p0", 0, 0])"));
  EXPECT_EQ(k["grid"][0]["params"], json::parse(R"({"row_major": [2, 2]})"));
  EXPECT_EQ(j["format"], kTileGraphFormat);
}

TEST(GraphJson, FormattedTextKeepsOneNodePerLine) {
  const std::string text = format_tile_graph(small_graph());
  EXPECT_TRUE(testing::contains(
      text, R"({"id": "mma", "kind": "mma", "role": "consumer", "shape": [64, 256, 16], "count": 8})"))
      << text;
}

}  // namespace
}  // namespace tgsim::graph
