// Tile-graph JSON files: writing and reading them, errors naming the file, the example graphs.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>

#include "sim/graph/graph_json.h"
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

}  // namespace
}  // namespace tgsim::graph
