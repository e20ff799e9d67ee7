#include "sim/graph/validate.h"

#include <fmt/format.h>

#include <cmath>
#include <set>
#include <string>

#include "sim/units/error.h"

namespace tgsim::graph {
namespace {

constexpr int kThreadsPerWarp = 32;

// Builds the "origin: /json/pointer" prefix of every message; paths follow to_json's layout.
class Checker {
 public:
  explicit Checker(std::string_view origin) : origin_(origin) {}

  [[noreturn]] void fail(const std::string& where, std::string_view message) const {
    throw InputError(fmt::format("{}: {}: {}", origin_, where, message));
  }
  void check(bool ok, const std::string& where, std::string_view message) const {
    if (!ok) fail(where, message);
  }

 private:
  std::string origin_;
};

template <class T>
void check_names(const Checker& c, const std::vector<T>& items, const std::string& where, std::string_view what) {
  std::set<std::string_view> seen;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string at = fmt::format("{}/{}", where, i);
    c.check(!items[i].name.empty(), at, fmt::format("{} name must not be empty", what));
    c.check(seen.insert(items[i].name).second, at, fmt::format("duplicate {} name \"{}\"", what, items[i].name));
  }
}

bool in_range(int index, std::size_t size) { return index >= 0 && static_cast<std::size_t>(index) < size; }

bool is_memory(NodeKind k) {
  return k == NodeKind::load || k == NodeKind::store || k == NodeKind::smem || k == NodeKind::remote_put ||
         k == NodeKind::remote_get;
}

bool is_remote(NodeKind k) { return k == NodeKind::remote_put || k == NodeKind::remote_get; }

// What a node needs beyond its kind's fields: the kernel it sits in (tensors, grid size) and the graph (flags, GPUs).
struct NodeContext {
  const TileGraph& graph;
  const Kernel& kernel;
  const CtaTemplate& tmpl;
  std::int64_t ctas;  // CTAs in the kernel, for the whole-grid overflow checks
};

void check_memory_node(const Checker& c, const Node& n, const NodeContext& ctx, const std::string& at) {
  const std::string kind(to_string(n.kind));
  c.check(n.bytes.value > 0, at, fmt::format("a {} node needs bytes > 0, got {}", kind, n.bytes.value));
  std::int64_t total = 0;
  c.check(!__builtin_mul_overflow(n.bytes.value, ctx.ctas, &total), at,
          fmt::format("{} bytes x {} CTAs overflows a 64-bit integer", n.bytes.value, ctx.ctas));
  c.check(n.tile.tensor >= -1 && n.tile.tensor < static_cast<int>(ctx.kernel.tensors.size()), at,
          fmt::format("tensor index {} out of range ({} tensors)", n.tile.tensor, ctx.kernel.tensors.size()));
  c.check(!n.tile.resident || n.tile.tensor < 0, at,
          "\"resident\" is for untracked tiles only (a tracked tile's residency is the L2 model's)");
  c.check(!n.tile.zero_fill || (n.kind == NodeKind::load && n.tile.tensor < 0 && !n.tile.resident), at,
          "\"zero_fill\" is for untracked, non-resident loads only (a box wholly outside its tensor reads nothing)");
  c.check(n.multicast >= 1, at, fmt::format("multicast must be >= 1, got {}", n.multicast));
  c.check(n.access == 2 || n.access == 4 || n.access == 8 || n.access == 16, at,
          fmt::format("access (bytes per thread per copy) must be 2, 4, 8 or 16, got {}", n.access));
  const int pa = n.pitch_alignment;
  c.check(pa == 0 || (pa >= 2 && pa <= 128 && (pa & (pa - 1)) == 0), at,
          fmt::format("pitch_alignment must be 0 or a power of two from 2 to 128 (bytes), got {}", pa));
  c.check(pa == 0 || n.access == 2 || (n.kind == NodeKind::load && n.engine == MemEngine::tma), at,
          "\"pitch_alignment\" is for access-2 loads and stores and for TMA loads only");
  c.check(pa == 0 || pa >= 16 || n.engine != MemEngine::tma, at,
          fmt::format("a TMA load's rows are at least 16-byte aligned (the tensor map's strides): pitch_alignment {}", pa));
  if (n.access == 2) c.check((n.kind == NodeKind::load || n.kind == NodeKind::store) && n.engine == MemEngine::plain, at, "access 2 needs a plain load or store");
  else if (n.access != 16) c.check(n.kind == NodeKind::load && n.engine == MemEngine::cp_async, at, "access needs a cp_async load");
  if (n.multicast > 1) {
    c.check(n.kind == NodeKind::load && n.engine == MemEngine::tma, at, "multicast needs a TMA load");
    const auto& cl = ctx.kernel.cta.cluster;
    const std::int64_t cluster = static_cast<std::int64_t>(cl[0]) * cl[1] * cl[2];
    c.check(n.multicast <= cluster, at, fmt::format("multicast {} exceeds the cluster size {}", n.multicast, cluster));
  }
  if (is_remote(n.kind)) {
    c.check(ctx.graph.gpus >= 2, at, fmt::format("a {} node needs a graph of at least 2 GPUs", kind));
    c.check(n.peer >= 1 && n.peer < ctx.graph.gpus, at,
            fmt::format("peer must be in [1, {}] (GPUs - 1), got {}", ctx.graph.gpus - 1, n.peer));
  } else {
    c.check(n.engine != MemEngine::copy_engine, at, "the copy engine only serves remote_put/remote_get nodes");
  }
}

void check_mma_node(const Checker& c, const Node& n, const NodeContext& ctx, const std::string& at) {
  const auto [m, nn, k] = n.shape;
  c.check(m >= 1 && nn >= 1 && k >= 1, at,
          fmt::format("an mma node needs a shape of positive (m, n, k), got [{}, {}, {}]", m, nn, k));
  c.check(n.count >= 1, at, fmt::format("an mma node needs count >= 1, got {}", n.count));
  // FLOPs = 2 m n k per instruction, over `count` instructions in each CTA of the grid.
  std::int64_t flops = 2;
  const bool overflow = __builtin_mul_overflow(flops, std::int64_t{m}, &flops) ||
                        __builtin_mul_overflow(flops, std::int64_t{nn}, &flops) ||
                        __builtin_mul_overflow(flops, std::int64_t{k}, &flops) ||
                        __builtin_mul_overflow(flops, n.count, &flops) ||
                        __builtin_mul_overflow(flops, ctx.ctas, &flops);
  c.check(!overflow, at,
          fmt::format("2 x {} x {} x {} x {} FLOPs x {} CTAs overflows a 64-bit integer", m, nn, k, n.count, ctx.ctas));
}

void check_simt_node(const Checker& c, const Node& n, const NodeContext& ctx, const std::string& at) {
  c.check(std::isfinite(n.ops) && n.ops > 0.0, at, fmt::format("a simt node needs ops > 0, got {}", n.ops));
  const Role& role = ctx.tmpl.roles[static_cast<std::size_t>(n.role)];
  c.check(n.threads >= 0 && n.threads <= role.warps * kThreadsPerWarp, at,
          fmt::format("threads must be in [0, {}] (role \"{}\" has {} warps), got {}", role.warps * kThreadsPerWarp,
                      role.name, role.warps, n.threads));
}

void check_flag_node(const Checker& c, const Node& n, const NodeContext& ctx, const std::string& at) {
  const std::string kind(to_string(n.kind));
  c.check(n.flag.flag >= 0, at, fmt::format("a {} node needs a flag", kind));
  c.check(in_range(n.flag.flag, ctx.graph.flags.size()), at,
          fmt::format("flag index {} out of range ({} flags)", n.flag.flag, ctx.graph.flags.size()));
  if (n.kind == NodeKind::signal) {
    c.check(n.value >= 1, at, fmt::format("a signal must add a positive value, got {}", n.value));
  } else {
    c.check(n.value >= 0, at, fmt::format("a wait needs a value >= 0, got {}", n.value));
  }
}

void check_node(const Checker& c, const Node& n, const NodeContext& ctx, const std::string& at) {
  c.check(in_range(n.role, ctx.tmpl.roles.size()), at,
          fmt::format("role index {} out of range ({} roles)", n.role, ctx.tmpl.roles.size()));
  c.check(std::isfinite(n.cycles.value) && n.cycles.value >= 0.0, at,
          fmt::format("cycles must be >= 0, got {}", n.cycles.value));
  if (is_memory(n.kind)) {
    check_memory_node(c, n, ctx, at);
  } else if (n.kind == NodeKind::mma) {
    check_mma_node(c, n, ctx, at);
  } else if (n.kind == NodeKind::simt) {
    check_simt_node(c, n, ctx, at);
  } else if (n.kind == NodeKind::signal || n.kind == NodeKind::wait) {
    check_flag_node(c, n, ctx, at);
  }
}

// The largest per-CTA param any coordinate of `t` reads, with the node that reads it (-1: none).
struct ParamUse {
  int param = -1;
  int node = -1;
};

ParamUse max_param(const CtaTemplate& t) {
  ParamUse use;
  auto see = [&](const Coord& coord, std::size_t node) {
    if (coord.param > use.param) use = ParamUse{coord.param, static_cast<int>(node)};
  };
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const Node& n = t.nodes[i];
    if (is_memory(n.kind)) {
      for (const Coord& coord : n.tile.coords) see(coord, i);
    }
    if (n.kind == NodeKind::signal || n.kind == NodeKind::wait) see(n.flag.index, i);
  }
  return use;
}

void check_roles(const Checker& c, const CtaTemplate& t, const Kernel& k, const std::string& where) {
  check_names(c, t.roles, where + "/roles", "role");
  const int cta_warps = (k.cta.threads + kThreadsPerWarp - 1) / kThreadsPerWarp;
  for (std::size_t i = 0; i < t.roles.size(); ++i) {
    const Role& r = t.roles[i];
    const std::string at = fmt::format("{}/roles/{}", where, i);
    c.check(
        r.first_warp >= 0 && r.warps >= 1, at,
        fmt::format("role \"{}\" needs first_warp >= 0 and warps >= 1, got {} and {}", r.name, r.first_warp, r.warps));
    c.check(r.first_warp + r.warps <= cta_warps, at,
            fmt::format("role \"{}\" uses warps {}..{} but the CTA has {} threads ({} warps)", r.name, r.first_warp,
                        r.first_warp + r.warps - 1, k.cta.threads, cta_warps));
  }
}

void check_template(const Checker& c, const NodeContext& ctx, const std::string& where) {
  const CtaTemplate& t = ctx.tmpl;
  check_roles(c, t, ctx.kernel, where);
  std::set<std::string_view> ids;
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const Node& n = t.nodes[i];
    const std::string at = fmt::format("{}/nodes/{} (\"{}\")", where, i, n.id);
    c.check(!n.id.empty(), at, "a node id must not be empty");
    c.check(ids.insert(n.id).second, at, fmt::format("duplicate node id \"{}\"", n.id));
    check_node(c, n, ctx, at);
  }
  const auto nodes = static_cast<int>(t.nodes.size());
  for (std::size_t i = 0; i < t.edges.size(); ++i) {
    const Edge& e = t.edges[i];
    c.check(e.from >= 0 && e.from < nodes && e.to >= 0 && e.to < nodes, fmt::format("{}/edges/{}", where, i),
            fmt::format("edge {} -> {} names a node index out of range ({} nodes)", e.from, e.to, nodes));
  }
  const std::vector<int> cycle = find_cycle(t);
  if (!cycle.empty()) {
    std::string path;
    for (int i : cycle) path += t.nodes[static_cast<std::size_t>(i)].id + " -> ";
    c.fail(where, "cycle: " + path + t.nodes[static_cast<std::size_t>(cycle.front())].id);
  }
}

void check_group(const Checker& c, const Kernel& k, const CtaGroup& g, const std::string& at) {
  c.check(in_range(g.template_index, k.templates.size()), at,
          fmt::format("template index {} out of range ({} templates)", g.template_index, k.templates.size()));
  c.check(g.count >= 1, at, fmt::format("count must be >= 1, got {}", g.count));
  c.check(g.params_per_cta >= 0, at, fmt::format("params_per_cta must be >= 0, got {}", g.params_per_cta));
  std::int64_t expected = 0;
  c.check(!__builtin_mul_overflow(g.count, std::int64_t{g.params_per_cta}, &expected), at,
          "count x params_per_cta overflows");
  c.check(g.params.empty() || static_cast<std::int64_t>(g.params.size()) == expected, at,
          fmt::format("params holds {} values; expected count x params_per_cta = {} x {} = {}", g.params.size(),
                      g.count, g.params_per_cta, expected));
  const CtaTemplate& t = k.templates[static_cast<std::size_t>(g.template_index)];
  const ParamUse use = max_param(t);
  if (use.param < 0) return;
  const std::string& id = t.nodes[static_cast<std::size_t>(use.node)].id;
  c.check(use.param < g.params_per_cta, at,
          fmt::format("node \"{}\" of template \"{}\" reads param {}, but the group has params_per_cta {}", id, t.name,
                      use.param, g.params_per_cta));
  c.check(!g.params.empty(), at,
          fmt::format("node \"{}\" of template \"{}\" reads param {}, but the group gives no params", id, t.name,
                      use.param));
}

// Checks the grid and returns its CTA count.
std::int64_t check_grid(const Checker& c, const Kernel& k, const std::string& where) {
  c.check(!k.grid.empty(), where + "/grid", "a kernel needs at least one CTA group");
  std::int64_t ctas = 0;
  for (std::size_t i = 0; i < k.grid.size(); ++i) {
    const std::string at = fmt::format("{}/grid/{}", where, i);
    check_group(c, k, k.grid[i], at);
    c.check(!__builtin_add_overflow(ctas, k.grid[i].count, &ctas), at, "the CTA count overflows");
  }
  const auto& cl = k.cta.cluster;
  const std::int64_t cluster = static_cast<std::int64_t>(cl[0]) * cl[1] * cl[2];
  c.check(ctas % cluster == 0, where + "/grid",
          fmt::format("the grid has {} CTAs, not a multiple of the cluster size {}", ctas, cluster));
  return ctas;
}

void check_cta(const Checker& c, const CtaResources& r, const std::string& at) {
  c.check(r.threads >= 1, at, fmt::format("threads must be >= 1, got {}", r.threads));
  c.check(r.registers_per_thread >= 0, at,
          fmt::format("registers_per_thread must be >= 0, got {}", r.registers_per_thread));
  c.check(r.shared_memory.value >= 0, at, fmt::format("shared_memory must be >= 0, got {}", r.shared_memory.value));
  for (int d : r.cluster) {
    c.check(d >= 1, at,
            fmt::format("cluster dims must be >= 1, got [{}, {}, {}]", r.cluster[0], r.cluster[1], r.cluster[2]));
  }
}

void check_kernel(const Checker& c, const TileGraph& g, std::size_t index) {
  const Kernel& k = g.kernels[index];
  const std::string where = fmt::format("/kernels/{}", index);
  c.check(k.stream >= 0, where, fmt::format("stream must be >= 0, got {}", k.stream));
  c.check(k.gpu >= 0 && k.gpu < g.gpus, where, fmt::format("gpu {} out of range ({} GPUs)", k.gpu, g.gpus));
  for (std::size_t i = 0; i < k.after.size(); ++i) {
    const int a = k.after[i];
    c.check(a >= 0 && static_cast<std::size_t>(a) < g.kernels.size(), fmt::format("{}/after/{}", where, i),
            fmt::format("after names kernel {}, which does not exist ({} kernels)", a, g.kernels.size()));
    c.check(static_cast<std::size_t>(a) < index, fmt::format("{}/after/{}", where, i),
            fmt::format("after names kernel {} (\"{}\"), which is not an earlier kernel", a,
                        g.kernels[static_cast<std::size_t>(a)].name));
  }
  check_cta(c, k.cta, where + "/cta");
  check_names(c, k.tensors, where + "/tensors", "tensor");
  for (std::size_t i = 0; i < k.tensors.size(); ++i) {
    c.check(k.tensors[i].bytes.value >= 0, fmt::format("{}/tensors/{}", where, i),
            fmt::format("bytes must be >= 0, got {}", k.tensors[i].bytes.value));
  }
  check_names(c, k.templates, where + "/templates", "template");
  const std::int64_t ctas = check_grid(c, k, where);
  for (std::size_t i = 0; i < k.templates.size(); ++i) {
    check_template(c, NodeContext{g, k, k.templates[i], ctas}, fmt::format("{}/templates/{}", where, i));
  }
}

}  // namespace

void validate_tile_graph(const TileGraph& g, std::string_view origin) {
  const Checker c(origin);
  c.check(g.gpus >= 1, "/gpus", fmt::format("gpus must be >= 1, got {}", g.gpus));
  check_names(c, g.flags, "/flags", "flag");
  for (std::size_t i = 0; i < g.kernels.size(); ++i) check_kernel(c, g, i);
}

}  // namespace tgsim::graph
