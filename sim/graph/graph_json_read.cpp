// Reading the JSON form of a tile graph (graph_json.h). Names are resolved to indices here;
// structural checks that do not need the JSON path are left to validate_tile_graph.
#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "sim/graph/graph_json.h"
#include "sim/graph/json_cursor.h"
#include "sim/graph/node_json.h"
#include "sim/units/error.h"

namespace tgsim::graph {
namespace {

using detail::JsonCursor;
using detail::NameTable;
using detail::read_enum;

constexpr std::array kFlagScopes{FlagScope::cta, FlagScope::gpu, FlagScope::system};
constexpr std::array kEdgeKinds{EdgeKind::data, EdgeKind::order};

Role read_role(const JsonCursor& c) {
  static constexpr std::string_view kKeys[] = {"name", "first_warp", "warps"};
  c.check_keys(kKeys);
  Role r;
  r.name = c.at("name").as_string();
  if (auto v = c.find("first_warp")) r.first_warp = v->as_int32(0);
  if (auto v = c.find("warps")) r.warps = v->as_int32(1);
  return r;
}

Edge read_edge(const JsonCursor& c, const NameTable& nodes) {
  static constexpr std::string_view kKeys[] = {"from", "to", "kind"};
  c.check_keys(kKeys);
  const JsonCursor from = c.at("from");
  const JsonCursor to = c.at("to");
  const std::string context = fmt::format("in edge {} -> {}", from.as_string(), to.as_string());
  Edge e;
  e.from = nodes.resolve(from, context);
  e.to = nodes.resolve(to, context);
  if (auto v = c.find("kind")) e.kind = read_enum(*v, kEdgeKinds, "edge kind");
  return e;
}

CtaTemplate read_template(const JsonCursor& c, const NameTable& tensors, const NameTable& flags) {
  static constexpr std::string_view kKeys[] = {"name", "roles", "nodes", "edges"};
  c.check_keys(kKeys);
  CtaTemplate t;
  t.name = c.at("name").as_string();
  NameTable roles("role");
  const JsonCursor role_list = c.at("roles");
  for (std::size_t i = 0; i < role_list.size(); ++i) {
    t.roles.push_back(read_role(role_list.item(i)));
    roles.add(role_list.item(i).at("name"), t.roles.back().name);
  }
  NameTable nodes("node", "id");
  const detail::NodeScope scope{roles, tensors, flags};
  const JsonCursor node_list = c.at("nodes");
  t.nodes.reserve(node_list.size());
  for (std::size_t i = 0; i < node_list.size(); ++i) {
    t.nodes.push_back(detail::read_node(node_list.item(i), scope));
    nodes.add(node_list.item(i).at("id"), t.nodes.back().id);
  }
  if (auto edge_list = c.find("edges")) {
    t.edges.reserve(edge_list->size());
    for (std::size_t i = 0; i < edge_list->size(); ++i) t.edges.push_back(read_edge(edge_list->item(i), nodes));
  }
  return t;
}

// {"row_major": [d0, d1, ...]}: CTA i gets the coordinates of the i-th point of a d0 x d1 x ...
// box, last coordinate fastest.
void read_row_major_params(const JsonCursor& c, CtaGroup& g) {
  static constexpr std::string_view kKeys[] = {"row_major"};
  c.check_keys(kKeys);
  const JsonCursor dims_at = c.at("row_major");
  dims_at.expect_array_size(1, 16);
  std::vector<std::int64_t> dims;
  std::int64_t points = 1;
  for (std::size_t i = 0; i < dims_at.size(); ++i) {
    dims.push_back(dims_at.item(i).as_int(1));
    if (__builtin_mul_overflow(points, dims.back(), &points)) dims_at.fail("box too large");
  }
  if (points != g.count) dims_at.fail(fmt::format("the box has {} points but the group has {} CTAs", points, g.count));
  g.params_per_cta = static_cast<int>(dims.size());
  g.params.resize(static_cast<std::size_t>(g.count) * dims.size());
  for (std::int64_t cta = 0; cta < g.count; ++cta) {
    std::int64_t rest = cta;
    for (std::size_t d = dims.size(); d-- > 0;) {
      g.params[static_cast<std::size_t>(cta) * dims.size() + d] = rest % dims[d];
      rest /= dims[d];
    }
  }
}

// [[p0, p1], [p0, p1], ...]: one row per CTA.
void read_param_rows(const JsonCursor& c, CtaGroup& g, bool width_given) {
  if (c.size() != static_cast<std::size_t>(g.count)) {
    c.fail(fmt::format("expected {} rows (one per CTA of the group), got {}", g.count, c.size()));
  }
  if (!width_given && g.count > 0) g.params_per_cta = static_cast<int>(c.item(0).size());
  g.params.reserve(static_cast<std::size_t>(g.count) * static_cast<std::size_t>(g.params_per_cta));
  for (std::size_t i = 0; i < c.size(); ++i) {
    const JsonCursor row = c.item(i);
    if (row.size() != static_cast<std::size_t>(g.params_per_cta)) {
      row.fail(fmt::format("expected {} params (params_per_cta), got {}", g.params_per_cta, row.size()));
    }
    for (std::size_t k = 0; k < row.size(); ++k) g.params.push_back(row.item(k).as_int());
  }
}

CtaGroup read_group(const JsonCursor& c, const NameTable& templates) {
  static constexpr std::string_view kKeys[] = {"template", "count", "params_per_cta", "params"};
  c.check_keys(kKeys);
  CtaGroup g;
  g.template_index = templates.resolve(c.at("template"));
  if (auto v = c.find("count")) g.count = v->as_int(1, std::numeric_limits<std::int32_t>::max());
  const auto width = c.find("params_per_cta");
  if (width) g.params_per_cta = width->as_int32(0, 65536);
  if (auto params = c.find("params")) {
    if (params->value().is_object()) {
      read_row_major_params(*params, g);
      if (width && g.params_per_cta != width->as_int32()) {
        params->fail(
            fmt::format("the box has {} dimensions but params_per_cta is {}", g.params_per_cta, width->as_int32()));
      }
    } else {
      read_param_rows(*params, g, width.has_value());
    }
  }
  return g;
}

CtaResources read_cta(const JsonCursor& c) {
  static constexpr std::string_view kKeys[] = {"threads", "registers_per_thread", "shared_memory", "cluster"};
  c.check_keys(kKeys);
  CtaResources r;
  if (auto v = c.find("threads")) r.threads = v->as_int32(1);
  if (auto v = c.find("registers_per_thread")) r.registers_per_thread = v->as_int32(1);
  if (auto v = c.find("shared_memory")) r.shared_memory = v->as_bytes();
  if (auto v = c.find("cluster")) {
    v->expect_array_size(1, 3);
    for (std::size_t i = 0; i < v->size(); ++i) r.cluster[i] = v->item(i).as_int32(1);
  }
  return r;
}

Tensor read_tensor(const JsonCursor& c) {
  static constexpr std::string_view kKeys[] = {"name", "bytes"};
  c.check_keys(kKeys);
  Tensor t;
  t.name = c.at("name").as_string();
  if (auto v = c.find("bytes")) t.bytes = v->as_bytes();
  return t;
}

Kernel read_kernel(const JsonCursor& c, const NameTable& flags, int gpus) {
  static constexpr std::string_view kKeys[] = {"name", "stream",  "gpu",       "in_cuda_graph", "programmatic",
                                               "after", "cta",  "tensors", "templates", "grid"};
  c.check_keys(kKeys);
  Kernel k;
  k.name = c.at("name").as_string();
  if (auto v = c.find("stream")) k.stream = v->as_int32(0);
  if (auto v = c.find("gpu")) k.gpu = v->as_int32(0, gpus - 1);
  if (auto v = c.find("in_cuda_graph")) k.in_cuda_graph = v->as_bool();
  if (auto v = c.find("programmatic")) k.programmatic = v->as_bool();
  if (auto v = c.find("cta")) k.cta = read_cta(*v);
  NameTable tensors("tensor");
  if (auto list = c.find("tensors")) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      k.tensors.push_back(read_tensor(list->item(i)));
      tensors.add(list->item(i).at("name"), k.tensors.back().name);
    }
  }
  NameTable templates("template");
  const JsonCursor template_list = c.at("templates");
  for (std::size_t i = 0; i < template_list.size(); ++i) {
    k.templates.push_back(read_template(template_list.item(i), tensors, flags));
    templates.add(template_list.item(i).at("name"), k.templates.back().name);
  }
  const JsonCursor grid = c.at("grid");
  for (std::size_t i = 0; i < grid.size(); ++i) k.grid.push_back(read_group(grid.item(i), templates));
  return k;
}

// `after` lists kernels by name, or by index where a name is shared (a kernel launched repeatedly).
void read_after(const JsonCursor& c, const std::multimap<std::string, int>& kernel_names, Kernel& k) {
  for (std::size_t i = 0; i < c.size(); ++i) {
    const JsonCursor ref = c.item(i);
    if (ref.value().is_number()) {
      k.after.push_back(ref.as_int32(0, static_cast<int>(kernel_names.size()) - 1));
      continue;
    }
    const std::string name = ref.as_string();
    const auto [first, last] = kernel_names.equal_range(name);
    if (first == last) {
      std::vector<std::string_view> names;
      for (const auto& entry : kernel_names) names.push_back(entry.first);
      ref.fail(fmt::format("unknown kernel \"{}\"{}", name, detail::did_you_mean(name, names)));
    }
    if (std::next(first) != last) {
      ref.fail(fmt::format("kernel name \"{}\" is used by several kernels (e.g. {} and {}); refer to it by index", name,
                           first->second, std::next(first)->second));
    }
    k.after.push_back(first->second);
  }
}

// Turns nlohmann's "[json.exception.parse_error.101] parse error at line 3, column 14: msg" into
// "file:3:14: msg", the form editors jump to.
std::string describe_parse_error(const std::filesystem::path& path, const nlohmann::json::parse_error& e) {
  const std::string what = e.what();
  const auto at = what.find(" at line ");
  unsigned long line = 0;
  unsigned long column = 0;
  if (at != std::string::npos && std::sscanf(what.c_str() + at, " at line %lu, column %lu", &line, &column) == 2) {
    const auto colon = what.find(": ", at);
    return fmt::format("{}:{}:{}: {}", path.string(), line, column, what.substr(colon + 2));
  }
  return fmt::format("{}: byte {}: {}", path.string(), e.byte, what);
}

// A parser callback that rejects a key repeated within one object, naming its JSON pointer.
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(std::string origin) : origin_(std::move(origin)) {}

  bool operator()(int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    switch (event) {
      case Event::object_start: frames_.push_back(Frame{true, {}, 0, {}}); break;
      case Event::array_start: frames_.push_back(Frame{false, {}, 0, {}}); break;
      case Event::key: {
        Frame& top = frames_.back();
        top.key = parsed.get<std::string>();
        if (!top.keys.insert(top.key).second) {
          throw InputError(fmt::format("{}: {}: duplicate key \"{}\"", origin_, pointer(), top.key));
        }
        break;
      }
      case Event::object_end:
      case Event::array_end:
        frames_.pop_back();
        end_value();
        break;
      case Event::value: end_value(); break;
    }
    return true;
  }

 private:
  struct Frame {
    bool is_object;
    std::string key;    // objects: the current key
    std::size_t index;  // arrays: the current element
    std::set<std::string> keys;
  };

  void end_value() {
    if (!frames_.empty() && !frames_.back().is_object) ++frames_.back().index;
  }

  std::string pointer() const {
    std::string out;
    for (const Frame& f : frames_) out += "/" + (f.is_object ? f.key : std::to_string(f.index));
    return out;
  }

  std::string origin_;
  std::vector<Frame> frames_;
};

}  // namespace

TileGraph parse_tile_graph(const nlohmann::json& j, std::string_view origin) {
  const JsonCursor c(j, origin);
  static constexpr std::string_view kKeys[] = {"format", "name", "gpus", "flags", "kernels"};
  c.check_keys(kKeys);
  const std::string format = c.at("format").as_string();
  if (format != kTileGraphFormat) {
    c.at("format").fail(fmt::format("unsupported format \"{}\"; expected \"{}\"", format, kTileGraphFormat));
  }
  TileGraph g;
  if (auto v = c.find("name")) g.name = v->as_string();
  if (auto v = c.find("gpus")) g.gpus = v->as_int32(1);
  NameTable flags("flag");
  if (auto list = c.find("flags")) {
    static constexpr std::string_view kFlagKeys[] = {"name", "scope"};
    for (std::size_t i = 0; i < list->size(); ++i) {
      const JsonCursor f = list->item(i);
      f.check_keys(kFlagKeys);
      Flag& flag = g.flags.emplace_back();
      flag.name = f.at("name").as_string();
      if (auto scope = f.find("scope")) flag.scope = read_enum(*scope, kFlagScopes, "flag scope");
      flags.add(f.at("name"), flag.name);
    }
  }
  const JsonCursor kernels = c.at("kernels");
  std::multimap<std::string, int> kernel_names;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    g.kernels.push_back(read_kernel(kernels.item(i), flags, g.gpus));
    kernel_names.emplace(g.kernels.back().name, static_cast<int>(i));
  }
  // Resolved once every kernel is known, so that naming a later kernel reaches validate's message.
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (auto after = kernels.item(i).find("after")) read_after(*after, kernel_names, g.kernels[i]);
  }
  return g;
}

TileGraph read_tile_graph(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot read {}: {}", path.string(), std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(fmt::format("cannot read {}: {}", path.string(), std::strerror(errno)));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.str(), DuplicateKeyCheck(path.string()));
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(describe_parse_error(path, e));
  }
  return parse_tile_graph(j, path.string());
}

}  // namespace tgsim::graph
