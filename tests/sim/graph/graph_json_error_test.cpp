// Tile-graph JSON: each malformed document is refused with its JSON path and the problem.
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "sim/graph/graph_json.h"
#include "sim/units/error.h"
#include "tests/sim/graph/graph_json_test_util.h"
#include "tests/sim/graph/graph_test_util.h"

namespace tgsim::graph {
namespace {

using nlohmann::json;
using testing::base_doc;
using testing::parse;

std::string error_of(const json& j) {
  try {
    parse(j);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
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
