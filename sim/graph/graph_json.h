// The JSON form of a tile graph (format "tgsim-tile-graph/1", docs/tile-graph-format.md).
// Reading resolves names (nodes, roles, tensors, flags, templates, kernels) to indices and checks
// the document's shape; it does not call validate_tile_graph (sim/graph/validate.h): callers do.
// Every error is an InputError naming the origin and the JSON pointer of the offending value:
//   gemm.json: /kernels/0/templates/1/nodes/7/bytes: expected a size like "32KiB" or an integer, got -5
#pragma once

#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "sim/graph/tile_graph.h"

namespace tgsim::graph {

inline constexpr std::string_view kTileGraphFormat = "tgsim-tile-graph/1";

// `origin` (usually the file name) starts every error message.
TileGraph parse_tile_graph(const nlohmann::json& j, std::string_view origin);

// Reads and parses a file. Malformed JSON gives "file:line:col: ..."; a key repeated within one
// object is an error (plain JSON parsers silently keep the last one).
TileGraph read_tile_graph(const std::filesystem::path& path);

// Fields equal to their defaults, and fields that do not apply to a node's kind, are left out
// (a node's role is written whenever its template has more than one).
// For a graph that passes validate_tile_graph, parse_tile_graph(to_json(g)) == g.
nlohmann::json to_json(const TileGraph& g);

// The text write_tile_graph writes: indented JSON that keeps each value on one line where it
// fits in 120 columns (one node or edge per line), so that large graphs stay readable and diffable.
std::string format_tile_graph(const TileGraph& g);

// Writes to a temporary file next to `path`, then renames it over `path`: readers see either the
// old file or the complete new one. Throws InputError when the file cannot be written.
void write_tile_graph(const TileGraph& g, const std::filesystem::path& path);

}  // namespace tgsim::graph
