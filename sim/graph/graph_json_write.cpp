// Writing the JSON form of a tile graph (graph_json.h). Builds ordered_json so that keys appear in
// the order docs/tile-graph-format.md describes them rather than alphabetically.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "sim/graph/graph_json.h"
#include "sim/graph/node_json.h"
#include "sim/units/atomic_file.h"
#include "sim/units/error.h"

namespace tgsim::graph {
namespace {

using Json = nlohmann::ordered_json;
using detail::bytes_to_json;

constexpr std::size_t kLineWidth = 120;  // as .clang-format
constexpr std::size_t kMaxRecordWidth = 200;

const std::string& node_id(const CtaTemplate& t, int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= t.nodes.size()) {
    throw std::invalid_argument(fmt::format("to_json: edge names node index {} of template \"{}\", which has {} nodes",
                                            index, t.name, t.nodes.size()));
  }
  return t.nodes[static_cast<std::size_t>(index)].id;
}

Json template_to_json(const CtaTemplate& t, const Kernel& k, const std::vector<Flag>& flags) {
  Json j;
  j["name"] = t.name;
  j["roles"] = Json::array();
  for (const Role& r : t.roles) {
    Json role;
    role["name"] = r.name;
    if (r.first_warp != Role{}.first_warp) role["first_warp"] = r.first_warp;
    if (r.warps != Role{}.warps) role["warps"] = r.warps;
    j["roles"].push_back(std::move(role));
  }
  j["nodes"] = Json::array();
  const detail::NodeNames names{t.roles, k.tensors, flags};
  for (const Node& n : t.nodes) j["nodes"].push_back(detail::node_to_json(n, names));
  for (const Edge& e : t.edges) {
    Json edge;
    edge["from"] = node_id(t, e.from);
    edge["to"] = node_id(t, e.to);
    if (e.kind != Edge{}.kind) edge["kind"] = to_string(e.kind);
    j["edges"].push_back(std::move(edge));
  }
  return j;
}

// The box whose row-major enumeration gives exactly g.params, if there is one.
std::optional<std::vector<std::int64_t>> row_major_box(const CtaGroup& g) {
  const auto width = static_cast<std::size_t>(g.params_per_cta);
  if (width == 0 || g.params.size() != static_cast<std::size_t>(g.count) * width) return std::nullopt;
  std::vector<std::int64_t> dims(width, 1);
  for (std::size_t i = 0; i < g.params.size(); ++i) {
    if (g.params[i] < 0) return std::nullopt;
    dims[i % width] = std::max(dims[i % width], g.params[i] + 1);
  }
  std::int64_t points = 1;
  for (std::int64_t d : dims) {
    if (__builtin_mul_overflow(points, d, &points)) return std::nullopt;
  }
  if (points != g.count) return std::nullopt;
  for (std::int64_t cta = 0; cta < g.count; ++cta) {
    std::int64_t rest = cta;
    for (std::size_t d = width; d-- > 0;) {
      if (g.params[static_cast<std::size_t>(cta) * width + d] != rest % dims[d]) return std::nullopt;
      rest /= dims[d];
    }
  }
  return dims;
}

Json group_to_json(const CtaGroup& g, const Kernel& k) {
  Json j;
  if (g.template_index < 0 || static_cast<std::size_t>(g.template_index) >= k.templates.size()) {
    throw std::invalid_argument(
        fmt::format("to_json: kernel \"{}\": template index {} out of range", k.name, g.template_index));
  }
  j["template"] = k.templates[static_cast<std::size_t>(g.template_index)].name;
  j["count"] = g.count;
  if (g.params_per_cta != 0) j["params_per_cta"] = g.params_per_cta;
  if (g.params.empty()) return j;
  // A box is shorter than rows and, for more than a couple of CTAs, easier to read.
  constexpr std::int64_t kMinCtasForBox = 3;
  if (auto box = g.count >= kMinCtasForBox ? row_major_box(g) : std::nullopt) {
    j["params"]["row_major"] = *box;
    return j;
  }
  const auto width = static_cast<std::size_t>(std::max(g.params_per_cta, 1));
  Json rows = Json::array();
  for (std::size_t i = 0; i < g.params.size(); i += width) {
    rows.push_back(std::vector<std::int64_t>(
        g.params.begin() + static_cast<std::ptrdiff_t>(i),
        g.params.begin() + static_cast<std::ptrdiff_t>(std::min(i + width, g.params.size()))));
  }
  j["params"] = std::move(rows);
  return j;
}

Json cta_to_json(const CtaResources& r) {
  const CtaResources defaults;
  Json j = Json::object();
  if (r.threads != defaults.threads) j["threads"] = r.threads;
  if (r.registers_per_thread != defaults.registers_per_thread) j["registers_per_thread"] = r.registers_per_thread;
  if (r.shared_memory != defaults.shared_memory) j["shared_memory"] = bytes_to_json(r.shared_memory);
  if (r.cluster != defaults.cluster) j["cluster"] = r.cluster;
  return j;
}

// `after` names a kernel when its name is unique, else gives its index.
Json after_to_json(const TileGraph& g, const Kernel& k) {
  std::map<std::string, int> uses;
  for (const Kernel& other : g.kernels) ++uses[other.name];
  Json j = Json::array();
  for (int index : k.after) {
    const bool named = index >= 0 && static_cast<std::size_t>(index) < g.kernels.size() &&
                       uses[g.kernels[static_cast<std::size_t>(index)].name] == 1;
    if (named) {
      j.push_back(g.kernels[static_cast<std::size_t>(index)].name);
    } else {
      j.push_back(index);
    }
  }
  return j;
}

Json kernel_to_json(const TileGraph& g, const Kernel& k) {
  const Kernel defaults;
  Json j;
  j["name"] = k.name;
  if (k.stream != defaults.stream) j["stream"] = k.stream;
  if (k.gpu != defaults.gpu) j["gpu"] = k.gpu;
  if (k.in_cuda_graph) j["in_cuda_graph"] = true;
  if (k.programmatic) j["programmatic"] = true;
  if (!k.after.empty()) j["after"] = after_to_json(g, k);
  if (k.cta != defaults.cta) j["cta"] = cta_to_json(k.cta);
  for (const Tensor& t : k.tensors) {
    Json tensor;
    tensor["name"] = t.name;
    if (t.bytes != Bytes{}) tensor["bytes"] = bytes_to_json(t.bytes);
    j["tensors"].push_back(std::move(tensor));
  }
  j["templates"] = Json::array();
  for (const CtaTemplate& t : k.templates) j["templates"].push_back(template_to_json(t, k, g.flags));
  j["grid"] = Json::array();
  for (const CtaGroup& group : k.grid) j["grid"].push_back(group_to_json(group, k));
  return j;
}

Json graph_to_json(const TileGraph& g) {
  Json j;
  j["format"] = kTileGraphFormat;
  if (!g.name.empty()) j["name"] = g.name;
  if (g.gpus != TileGraph{}.gpus) j["gpus"] = g.gpus;
  for (const Flag& f : g.flags) {
    Json flag;
    flag["name"] = f.name;
    if (f.scope != Flag{}.scope) flag["scope"] = to_string(f.scope);
    j["flags"].push_back(std::move(flag));
  }
  j["kernels"] = Json::array();
  for (const Kernel& k : g.kernels) j["kernels"].push_back(kernel_to_json(g, k));
  return j;
}

// One-line rendering with a space after ':' and ','.
std::string flat(const Json& v) {
  std::string out;
  if (v.is_object()) {
    for (const auto& [key, value] : v.items()) out += (out.empty() ? "" : ", ") + Json(key).dump() + ": " + flat(value);
    return "{" + out + "}";
  }
  if (v.is_array()) {
    for (const Json& e : v) out += (out.empty() ? "" : ", ") + flat(e);
    return "[" + out + "]";
  }
  return v.dump();
}

bool is_scalar_row(const Json& v) {
  if (!v.is_structured()) return true;
  if (!v.is_array()) return false;
  for (const Json& e : v) {
    if (e.is_structured()) return false;
  }
  return true;
}

// A record (a node, an edge, a role, a CTA group with few params) is an object holding scalars,
// arrays of scalars or rows, and records; it stays on one line even past kLineWidth, so that a
// template reads one node per line.
bool is_record(const Json& v) {
  if (!v.is_object()) return false;
  for (const auto& [key, member] : v.items()) {
    if (member.is_object() && !is_record(member)) return false;
    if (member.is_array() && !std::all_of(member.begin(), member.end(), is_scalar_row)) return false;
  }
  return true;
}

// Writes `v` starting at `column`, nested `indent` spaces deep: on one line if it fits (or is a
// short record), else one member per line; arrays of rows (per-CTA params) are packed several to a line.
void pretty(const Json& v, std::size_t indent, std::size_t column, std::string& out) {
  const std::string one_line = flat(v);
  const bool fits = column + one_line.size() <= kLineWidth;
  if (!v.is_structured() || v.empty() || fits || (one_line.size() <= kMaxRecordWidth && is_record(v))) {
    out += one_line;
    return;
  }
  const std::string pad(indent + 2, ' ');
  out += v.is_object() ? "{\n" : "[\n";
  if (v.is_array() && std::all_of(v.begin(), v.end(), is_scalar_row)) {
    std::string line;
    for (std::size_t i = 0; i < v.size(); ++i) {
      std::string item = flat(v[i]) + (i + 1 < v.size() ? "," : "");
      if (!line.empty() && pad.size() + line.size() + 1 + item.size() > kLineWidth) {
        out += pad + line + "\n";
        line.clear();
      }
      line += (line.empty() ? "" : " ") + item;
    }
    out += pad + line + "\n";
  } else {
    std::size_t i = 0;
    for (auto it = v.begin(); it != v.end(); ++it, ++i) {
      out += pad;
      if (v.is_object()) out += Json(it.key()).dump() + ": ";
      pretty(*it, indent + 2, out.size() - out.rfind('\n') - 1, out);
      out += i + 1 < v.size() ? ",\n" : "\n";
    }
  }
  out += std::string(indent, ' ') + (v.is_object() ? "}" : "]");
}

}  // namespace

nlohmann::json to_json(const TileGraph& g) { return nlohmann::json(graph_to_json(g)); }

std::string format_tile_graph(const TileGraph& g) {
  std::string out;
  pretty(graph_to_json(g), 0, 0, out);
  return out;
}

void write_tile_graph(const TileGraph& g, const std::filesystem::path& path) {
  write_file_atomically(path, format_tile_graph(g) + "\n");
}

}  // namespace tgsim::graph
