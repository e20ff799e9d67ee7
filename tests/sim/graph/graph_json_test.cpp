#include "sim/graph/graph_json.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "sim/graph/validate.h"
#include "sim/units/error.h"
#include "tests/sim/graph/graph_test_util.h"

namespace tgsim::graph {
namespace {

using nlohmann::json;
using testing::small_graph;

// A valid document touching most of the format: two roles, a flag, per-CTA params, `after`.
json base_doc() {
  return json::parse(R"({
    "format": "tgsim-tile-graph/1", "name": "t", "gpus": 2,
    "flags": [{"name": "ready"}],
    "kernels": [
      {"name": "k0", "cta": {"threads": 256, "cluster": [2, 1, 1]},
       "tensors": [{"name": "A", "bytes": 1024}],
       "templates": [{"name": "main",
         "roles": [{"name": "producer"}, {"name": "consumer", "first_warp": 4, "warps": 4}],
         "nodes": [
           {"id": "ld0", "kind": "load", "role": "producer", "bytes": 4096,
            "tile": {"tensor": "A", "coords": ["p0", 0]}},
           {"id": "mma0", "kind": "mma", "role": "consumer", "shape": [64, 256, 16], "count": 4},
           {"id": "sig", "kind": "signal", "role": "consumer", "flag": "ready", "index": "p0"}],
         "edges": [{"from": "ld0", "to": "mma0"}, {"from": "mma0", "to": "sig", "kind": "order"}]}],
       "grid": [{"template": "main", "count": 2, "params": [[0], [1]]}]},
      {"name": "k1", "after": ["k0"],
       "templates": [{"name": "t", "roles": [{"name": "r"}],
                      "nodes": [{"id": "w", "kind": "wait", "flag": "ready", "index": 1}]}],
       "grid": [{"template": "t"}]}]})");
}

TileGraph parse(const json& j) { return parse_tile_graph(j, "test.json"); }

std::string error_of(const json& j) {
  try {
    parse(j);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

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

// A graph using every node kind and non-default values of every field.
TileGraph every_field_graph() {
  TileGraph g = small_graph();
  g.name = "every";
  g.gpus = 2;
  g.flags.push_back(Flag{"peer_ready", FlagScope::system});
  g.flags.push_back(Flag{"local", FlagScope::cta});
  Kernel& k = g.kernels[0];
  k.stream = 1;
  k.gpu = 1;
  k.in_cuda_graph = true;
  k.programmatic = true;
  k.cta.registers_per_thread = 168;
  CtaTemplate& t = k.templates[0];
  t.nodes[0].engine = MemEngine::tma;
  t.nodes[0].multicast = 2;
  t.nodes[0].cycles = Cycles{3.5};
  t.nodes[1].inst = TensorInst::tcgen05;
  t.nodes[1].dtype = DType::fp8_e4m3;
  Node simt;
  simt.id = "softmax";
  simt.kind = NodeKind::simt;
  simt.role = 1;
  simt.pipe = SimtPipe::sfu;
  simt.ops = 2.5;
  simt.threads = 64;
  Node smem;
  smem.id = "stage";
  smem.kind = NodeKind::smem;
  smem.role = 1;
  smem.bytes = Bytes{8192};
  Node put;
  put.id = "put";
  put.kind = NodeKind::remote_put;
  put.bytes = Bytes{4096};
  put.engine = MemEngine::copy_engine;
  put.peer = 1;
  put.tile = TileRef{1, {Coord{0, 1}, Coord{1, -1}, Coord{-1, 5}}};
  Node get = put;
  get.id = "get";
  get.kind = NodeKind::remote_get;
  get.engine = MemEngine::plain;
  get.tile = TileRef{};
  Node sig;
  sig.id = "sig";
  sig.kind = NodeKind::signal;
  sig.flag = FlagRef{1, Coord{0, 1}};
  sig.value = 3;
  Node wait;
  wait.id = "wait";
  wait.kind = NodeKind::wait;
  wait.flag = FlagRef{2, Coord{}};
  wait.value = 0;
  Node delay;
  delay.id = "delay";
  delay.kind = NodeKind::delay;
  delay.cycles = Cycles{12.25};
  Node hot;  // an untracked load of data known to be in L2
  hot.id = "hot";
  hot.kind = NodeKind::load;
  hot.engine = MemEngine::plain;
  hot.bytes = Bytes{1024};
  hot.tile.resident = true;
  Node narrow;  // a cp.async of 4 bytes per thread (CUTLASS align1/align2 kernels)
  narrow.id = "narrow";
  narrow.kind = NodeKind::load;
  narrow.engine = MemEngine::cp_async;
  narrow.bytes = Bytes{2048};
  narrow.access = 4;
  Node oob;  // a TMA box wholly outside its tensor: zero-filled
  oob.id = "oob";
  oob.kind = NodeKind::load;
  oob.bytes = Bytes{8192};
  oob.tile.zero_fill = true;
  Node staged;  // ld.global of 2 bytes per thread (CUTLASS sm75 align1 kernels), rows 8 KiB apart
  staged.id = "staged";
  staged.kind = NodeKind::load;
  staged.engine = MemEngine::plain;
  staged.bytes = Bytes{8192};
  staged.access = 2;
  staged.pitch_alignment = 128;
  for (const Node& n : {simt, smem, put, get, sig, wait, delay, hot, narrow, oob, staged}) t.nodes.push_back(n);
  t.edges.push_back(Edge{2, 3, EdgeKind::order});
  t.edges.push_back(Edge{8, 9, EdgeKind::order});
  k.grid[0].params = {0, 0, 5, 1, 1, 0, 7, 1};  // not a box: written row by row
  k.grid.push_back(CtaGroup{0, 2, 2, {3, 0, 3, 1}});
  CtaTemplate idle;  // reads no params: its group may declare a width and give none
  idle.name = "idle";
  idle.roles = {Role{"all", 0, 8}};
  idle.nodes = {delay};
  k.templates.push_back(idle);
  k.grid.push_back(CtaGroup{1, 2, 3, {}});
  Kernel second = k;
  second.after = {0};
  g.kernels.push_back(second);  // same name "gemm": `after` must be written by index
  return g;
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

class TempDir {
 public:
  TempDir() {
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ = std::filesystem::temp_directory_path() / ("tgsim_graph_json_test_" + std::to_string(stamp));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::set<std::string> files_in(const std::filesystem::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.insert(entry.path().filename().string());
  return names;
}

TEST(GraphJson, WritesAndReadsFilesAtomically) {
  TempDir dir;
  const auto path = dir.path() / "g.json";
  const TileGraph first = small_graph();
  write_tile_graph(first, path);
  EXPECT_EQ(read_tile_graph(path), first);
  const TileGraph second = every_field_graph();
  write_tile_graph(second, path);  // replaces the file
  EXPECT_EQ(read_tile_graph(path), second);
  EXPECT_EQ(files_in(dir.path()), (std::set<std::string>{"g.json"}));  // no temporary left behind
}

TEST(GraphJson, WriteIntoMissingDirectoryFails) {
  TempDir dir;
  EXPECT_THROW_MSG(write_tile_graph(small_graph(), dir.path() / "missing" / "g.json"), InputError, "cannot write");
}

TEST(GraphJson, ReadMissingFileFails) {
  EXPECT_THROW_MSG(read_tile_graph("/nonexistent/g.json"), InputError, "cannot read /nonexistent/g.json");
}

void write_text(const std::filesystem::path& path, std::string_view text) { std::ofstream(path) << text; }

TEST(GraphJson, MalformedJsonNamesLineAndColumn) {
  TempDir dir;
  const auto path = dir.path() / "bad.json";
  write_text(path, "{\n  \"format\": \"tgsim-tile-graph/1\",\n  \"kernels\": [1,, 2]\n}\n");
  EXPECT_THROW_MSG(read_tile_graph(path), InputError, path.string() + ":3:17: syntax error");
}

TEST(GraphJson, RepeatedKeyInFileIsAnError) {
  TempDir dir;
  const auto path = dir.path() / "dup.json";
  write_text(path, R"({"format": "tgsim-tile-graph/1", "kernels": [{"name": "a", "grid": [], "name": "b"}]})");
  EXPECT_THROW_MSG(read_tile_graph(path), InputError, path.string() + ": /kernels/0/name: duplicate key \"name\"");
}

TEST(GraphJson, ErrorsInFilesNameTheFile) {
  TempDir dir;
  const auto path = dir.path() / "gemm.json";
  json doc = base_doc();
  doc["/kernels/0/templates/0/nodes/0/bytes"_json_pointer] = -5;
  write_text(path, doc.dump());
  EXPECT_THROW_MSG(
      read_tile_graph(path), InputError,
      path.string() + ": /kernels/0/templates/0/nodes/0/bytes: expected a size like \"32KiB\" or an integer, got -5");
}

// Every example graph shipped in configs/graphs parses, validates and round-trips.
TEST(GraphJson, ExampleGraphsParseAndValidate) {
  const std::filesystem::path dir = std::filesystem::path(TGSIM_SOURCE_DIR) / "configs" / "graphs";
  std::set<std::string> seen;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().string());
    seen.insert(entry.path().filename().string());
    TileGraph g;
    ASSERT_NO_THROW(g = read_tile_graph(entry.path()));
    EXPECT_NO_THROW(validate_tile_graph(g, entry.path().string()));
    EXPECT_EQ(parse(json::parse(format_tile_graph(g))), g);
  }
  for (const char* name : {"single_load.json", "load_mma.json", "pipeline.json", "two_kernels.json", "signal_wait.json",
                           "deadlock.json"}) {
    EXPECT_TRUE(seen.count(name)) << "missing configs/graphs/" << name;
  }
}

// Each case edits base_doc() and names the error message (or the part of it that matters).
struct ErrorCase {
  const char* name;
  std::function<void(json&)> edit;
  std::string message;
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }

class GraphJsonError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(GraphJsonError, NamesPathAndProblem) {
  json doc = base_doc();
  GetParam().edit(doc);
  const std::string message = error_of(doc);
  EXPECT_TRUE(testing::contains(message, GetParam().message))
      << "message: " << message << "\nexpected to contain: " << GetParam().message;
}

json::json_pointer ptr(const std::string& s) { return json::json_pointer(s); }

const std::string kNode0 = "test.json: /kernels/0/templates/0/nodes/0";

INSTANTIATE_TEST_SUITE_P(
    Cases, GraphJsonError,
    ::testing::Values(
        ErrorCase{"NegativeBytes", [](json& d) { d[ptr("/kernels/0/templates/0/nodes/0/bytes")] = -5; },
                  kNode0 + "/bytes: expected a size like \"32KiB\" or an integer, got -5"},
        ErrorCase{"AmbiguousSizeUnit", [](json& d) { d[ptr("/kernels/0/templates/0/nodes/0/bytes")] = "4KB"; },
                  kNode0 + "/bytes: expected a size like \"50MiB\", got \"4KB\" (\"KB\" is ambiguous"},
        ErrorCase{"BadCycles", [](json& d) { d[ptr("/kernels/0/templates/0/nodes/0/cycles")] = "fast"; },
                  kNode0 + "/cycles: expected a cycle count like \"656cycles\", got \"fast\""},
        ErrorCase{"MissingBytes", [](json& d) { d[ptr("/kernels/0/templates/0/nodes/0")].erase("bytes"); },
                  kNode0 + ": missing key \"bytes\""},
        ErrorCase{"MisspelledKey", [](json& d) { d[ptr("/kernels/0/templates/0/nodes/0/bites")] = 1; },
                  kNode0 + "/bites: unknown key \"bites\" (did you mean \"bytes\"?)"},
        ErrorCase{"KeyOfAnotherKind", [](json& d) { d[ptr("/kernels/0/templates/0/nodes/0/ops")] = 1; },
                  kNode0 + "/ops: \"ops\" does not apply to a load node (it is a field of simt nodes)"},
        ErrorCase{"UnknownTopLevelKey", [](json& d) { d["kernel"] = 1; },
                  "test.json: /kernel: unknown key \"kernel\" (did you mean \"kernels\"?)"},
        ErrorCase{
            "UnknownNodeKind", [](json& d) { d[ptr("/kernels/0/templates/0/nodes/0/kind")] = "lod"; },
            kNode0 + "/kind: unknown node kind \"lod\" (did you mean \"load\"?); expected one of load, store, mma"},
        ErrorCase{"EdgeToUnknownNode", [](json& d) { d[ptr("/kernels/0/templates/0/edges/0/to")] = "mma9"; },
                  "test.json: /kernels/0/templates/0/edges/0/to: unknown node \"mma9\" in edge ld0 -> mma9 "
                  "(did you mean \"mma0\"?)"},
        ErrorCase{"EdgeKind", [](json& d) { d[ptr("/kernels/0/templates/0/edges/0/kind")] = "control"; },
                  "/edges/0/kind: unknown edge kind \"control\"; expected one of data, order"},
        ErrorCase{"DuplicateNodeId", [](json& d) { d[ptr("/kernels/0/templates/0/nodes/1/id")] = "ld0"; },
                  "test.json: /kernels/0/templates/0/nodes/1/id: duplicate node id \"ld0\" "
                  "(first defined at /kernels/0/templates/0/nodes/0/id)"},
        ErrorCase{"UnknownRole", [](json& d) { d[ptr("/kernels/0/templates/0/nodes/1/role")] = "consumr"; },
                  "/nodes/1/role: unknown role \"consumr\" (did you mean \"consumer\"?); defined: producer, consumer"},
        ErrorCase{"DuplicateRole", [](json& d) { d[ptr("/kernels/0/templates/0/roles/1/name")] = "producer"; },
                  "/roles/1/name: duplicate role name \"producer\""},
        ErrorCase{"UnknownTensor", [](json& d) { d[ptr("/kernels/0/templates/0/nodes/0/tile/tensor")] = "B"; },
                  kNode0 + "/tile/tensor: unknown tensor \"B\"; defined: A"},
        ErrorCase{"UnknownFlag", [](json& d) { d[ptr("/kernels/0/templates/0/nodes/2/flag")] = "redy"; },
                  "/nodes/2/flag: unknown flag \"redy\" (did you mean \"ready\"?)"},
        ErrorCase{"SignalWithoutFlag", [](json& d) { d[ptr("/kernels/0/templates/0/nodes/2")].erase("flag"); },
                  "/nodes/2: missing key \"flag\""},
        ErrorCase{"UnknownTemplate", [](json& d) { d[ptr("/kernels/0/grid/0/template")] = "mian"; },
                  "test.json: /kernels/0/grid/0/template: unknown template \"mian\" (did you mean \"main\"?)"},
        ErrorCase{"BadCoordinate", [](json& d) { d[ptr("/kernels/0/templates/0/nodes/0/tile/coords/0")] = "q1"; },
                  kNode0 + "/tile/coords/0: expected a coordinate: an integer, \"p0\", \"p1+3\" or"},
        ErrorCase{"TooManyCoordinates",
                  [](json& d) {
                    d[ptr("/kernels/0/templates/0/nodes/0/tile/coords")] = {1, 2, 3, 4};
                  },
                  kNode0 + "/tile/coords: expected an array of 1 to 3 elements, got 4"},
        ErrorCase{"ZeroShape", [](json& d) { d[ptr("/kernels/0/templates/0/nodes/1/shape/2")] = 0; },
                  "/nodes/1/shape/2: expected an integer in [1, 2147483647], got 0"},
        ErrorCase{"NegativeCycles", [](json& d) { d[ptr("/kernels/0/templates/0/nodes/1/cycles")] = -1; },
                  "/nodes/1/cycles: expected a cycle count like \"100cycles\" or a number, got -1"},
        ErrorCase{"ParamRowCount", [](json& d) { d[ptr("/kernels/0/grid/0/params")] = json::parse("[[0]]"); },
                  "test.json: /kernels/0/grid/0/params: expected 2 rows (one per CTA of the group), got 1"},
        ErrorCase{"ParamRowWidth", [](json& d) { d[ptr("/kernels/0/grid/0/params")] = json::parse("[[0], [1, 2]]"); },
                  "test.json: /kernels/0/grid/0/params/1: expected 1 params (params_per_cta), got 2"},
        ErrorCase{"RowMajorBoxSize",
                  [](json& d) { d[ptr("/kernels/0/grid/0/params")] = json::parse(R"({"row_major": [3]})"); },
                  "/grid/0/params/row_major: the box has 3 points but the group has 2 CTAs"},
        ErrorCase{"CountNotAnInteger", [](json& d) { d[ptr("/kernels/0/grid/0/count")] = "two"; },
                  "/kernels/0/grid/0/count: expected an integer in [1, 2147483647], got \"two\""},
        ErrorCase{"WrongFormat", [](json& d) { d["format"] = "tgsim-tile-graph/2"; },
                  "test.json: /format: unsupported format \"tgsim-tile-graph/2\"; expected \"tgsim-tile-graph/1\""},
        ErrorCase{"MissingFormat", [](json& d) { d.erase("format"); }, "test.json: missing key \"format\""},
        ErrorCase{"UnknownAfter", [](json& d) { d[ptr("/kernels/1/after/0")] = "kk0"; },
                  "test.json: /kernels/1/after/0: unknown kernel \"kk0\" (did you mean \"k0\"?)"},
        ErrorCase{"AmbiguousAfter", [](json& d) { d[ptr("/kernels/1/name")] = "k0"; },
                  "/kernels/1/after/0: kernel name \"k0\" is used by several kernels (e.g. 0 and 1); refer to it by "
                  "index"},
        ErrorCase{"KernelGpuOutOfRange", [](json& d) { d[ptr("/kernels/0/gpu")] = 2; },
                  "/kernels/0/gpu: expected an integer in [0, 1], got 2"},
        ErrorCase{"FlagScope", [](json& d) { d[ptr("/flags/0/scope")] = "global"; },
                  "/flags/0/scope: unknown flag scope \"global\"; expected one of cta, gpu, system"},
        ErrorCase{"NodeNotAnObject", [](json& d) { d[ptr("/kernels/0/templates/0/nodes/0")] = 5; },
                  kNode0 + ": expected an object, got 5"},
        ErrorCase{"EmptyNodeId", [](json& d) { d[ptr("/kernels/0/templates/0/nodes/0/id")] = ""; },
                  kNode0 + "/id: a node id must not be empty"}),
    [](const ::testing::TestParamInfo<ErrorCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tgsim::graph
