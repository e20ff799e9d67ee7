#include "sim/graph/node_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <span>
#include <stdexcept>
#include <string_view>

#include "sim/units/parse.h"

namespace tgsim::graph::detail {
namespace {

constexpr std::array kNodeKinds{NodeKind::load, NodeKind::store,      NodeKind::mma,        NodeKind::simt,
                                NodeKind::smem, NodeKind::remote_put, NodeKind::remote_get, NodeKind::signal,
                                NodeKind::wait, NodeKind::delay};
constexpr std::array kMemEngines{MemEngine::tma, MemEngine::cp_async, MemEngine::plain, MemEngine::copy_engine};
constexpr std::array kSimtPipes{SimtPipe::fp32, SimtPipe::int32, SimtPipe::sfu, SimtPipe::fetch, SimtPipe::uniform};
constexpr std::array kTensorInsts{TensorInst::mma_sync, TensorInst::wgmma, TensorInst::tcgen05};
constexpr std::array kDTypes{DType::fp32,     DType::tf32,     DType::fp16, DType::bf16,
                             DType::fp8_e4m3, DType::fp8_e5m2, DType::int8, DType::fp4};

constexpr std::string_view kCommonKeys[] = {"id", "kind", "role", "cycles"};

// The keys each node kind accepts besides kCommonKeys (docs/tile-graph-format.md, "Nodes").
std::span<const std::string_view> kind_keys(NodeKind k) {
  static constexpr std::string_view kLoad[] = {"bytes", "engine", "tile", "multicast", "access", "pitch_alignment"};
  static constexpr std::string_view kStore[] = {"bytes", "engine", "tile", "access", "pitch_alignment"};
  static constexpr std::string_view kSmem[] = {"bytes"};
  static constexpr std::string_view kRemote[] = {"bytes", "engine", "tile", "peer"};
  static constexpr std::string_view kMma[] = {"inst", "dtype", "shape", "count"};
  static constexpr std::string_view kSimt[] = {"pipe", "ops", "threads"};
  static constexpr std::string_view kFlag[] = {"flag", "index", "value"};
  switch (k) {
    case NodeKind::load: return kLoad;
    case NodeKind::store: return kStore;
    case NodeKind::smem: return kSmem;
    case NodeKind::remote_put:
    case NodeKind::remote_get: return kRemote;
    case NodeKind::mma: return kMma;
    case NodeKind::simt: return kSimt;
    case NodeKind::signal:
    case NodeKind::wait: return kFlag;
    case NodeKind::delay: return {};
  }
  return {};
}

bool contains(std::span<const std::string_view> keys, std::string_view key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

void check_node_keys(const JsonCursor& c, NodeKind kind) {
  const auto own = kind_keys(kind);
  for (const auto& item : c.value().items()) {
    const std::string& key = item.key();
    if (contains(kCommonKeys, key) || contains(own, key)) continue;
    const JsonCursor at = c.at(key);
    for (NodeKind other : kNodeKinds) {
      if (contains(kind_keys(other), key)) {
        at.fail(fmt::format("\"{}\" does not apply to a {} node (it is a field of {} nodes)", key, to_string(kind),
                            to_string(other)));
      }
    }
    std::vector<std::string_view> allowed(std::begin(kCommonKeys), std::end(kCommonKeys));
    allowed.insert(allowed.end(), own.begin(), own.end());
    at.fail(fmt::format("unknown key \"{}\"{}", key, did_you_mean(key, allowed)));
  }
}

TileRef read_tile(const JsonCursor& c, const NameTable& tensors) {
  static constexpr std::string_view kKeys[] = {"tensor", "coords", "resident", "zero_fill"};
  c.check_keys(kKeys);
  TileRef t;
  if (auto tensor = c.find("tensor")) t.tensor = tensors.resolve(*tensor);
  if (auto resident = c.find("resident")) t.resident = resident->as_bool();
  if (auto zero_fill = c.find("zero_fill")) t.zero_fill = zero_fill->as_bool();
  if (auto coords = c.find("coords")) {
    coords->expect_array_size(1, t.coords.size());
    for (std::size_t i = 0; i < coords->size(); ++i) t.coords[i] = read_coord(coords->item(i));
  }
  return t;
}

void read_memory_fields(const JsonCursor& c, const NodeScope& scope, Node& n) {
  n.bytes = c.at("bytes").as_bytes();
  if (auto v = c.find("engine")) n.engine = read_enum(*v, kMemEngines, "memory engine");
  if (auto v = c.find("tile")) n.tile = read_tile(*v, scope.tensors);
  if (auto v = c.find("multicast")) n.multicast = v->as_int32(1);
  if (auto v = c.find("access")) n.access = v->as_int32(1);
  if (auto v = c.find("pitch_alignment")) n.pitch_alignment = v->as_int32(0);
  if (auto v = c.find("peer")) n.peer = v->as_int32(1);
}

void read_mma_fields(const JsonCursor& c, Node& n) {
  // parse_tensor_inst and parse_dtype also take aliases ("mma.sync", "half"); read_enum reports
  // the canonical names when neither matches.
  if (auto v = c.find("inst")) {
    const auto inst = parse_tensor_inst(v->as_string());
    n.inst = inst ? *inst : read_enum(*v, kTensorInsts, "tensor instruction");
  }
  if (auto v = c.find("dtype")) {
    const auto dtype = parse_dtype(v->as_string());
    n.dtype = dtype ? *dtype : read_enum(*v, kDTypes, "dtype");
  }
  const JsonCursor shape = c.at("shape");
  shape.expect_array_size(3, 3);
  for (std::size_t i = 0; i < 3; ++i) n.shape[i] = shape.item(i).as_int32(1);
  if (auto v = c.find("count")) n.count = v->as_int(1);
}

void read_simt_fields(const JsonCursor& c, Node& n) {
  if (auto v = c.find("pipe")) n.pipe = read_enum(*v, kSimtPipes, "SIMT pipe");
  const JsonCursor ops = c.at("ops");
  n.ops = ops.as_number();
  if (n.ops <= 0.0) ops.fail(fmt::format("expected a positive number of instructions, got {}", describe(ops.value())));
  if (auto v = c.find("threads")) n.threads = v->as_int32(0);
}

}  // namespace

Node read_node(const JsonCursor& c, const NodeScope& scope) {
  Node n;
  n.id = c.at("id").as_string();
  n.kind = read_enum(c.at("kind"), kNodeKinds, "node kind");
  check_node_keys(c, n.kind);
  if (auto v = c.find("role")) n.role = scope.roles.resolve(*v);
  if (auto v = c.find("cycles")) n.cycles = v->as_cycles();
  switch (n.kind) {
    case NodeKind::load:
    case NodeKind::store:
    case NodeKind::smem:
    case NodeKind::remote_put:
    case NodeKind::remote_get: read_memory_fields(c, scope, n); break;
    case NodeKind::mma: read_mma_fields(c, n); break;
    case NodeKind::simt: read_simt_fields(c, n); break;
    case NodeKind::signal:
    case NodeKind::wait:
      n.flag.flag = scope.flags.resolve(c.at("flag"));
      if (auto v = c.find("index")) n.flag.index = read_coord(*v);
      if (auto v = c.find("value")) n.value = v->as_int();
      break;
    case NodeKind::delay: n.cycles = c.at("cycles").as_cycles(); break;
  }
  return n;
}

Coord read_coord(const JsonCursor& c) {
  const nlohmann::json& v = c.value();
  if (v.is_number()) return Coord{-1, c.as_int()};
  if (v.is_object()) {
    static constexpr std::string_view kKeys[] = {"param", "offset"};
    c.check_keys(kKeys);
    Coord coord{c.at("param").as_int32(0), 0};
    if (auto offset = c.find("offset")) coord.offset = offset->as_int();
    return coord;
  }
  // "p<param>", optionally followed by "+<offset>" or "-<offset>".
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    const char* const end = s.data() + s.size();
    Coord coord;
    if (s.size() >= 2 && s[0] == 'p') {
      auto [p, ec] = std::from_chars(s.data() + 1, end, coord.param);
      if (ec == std::errc() && coord.param >= 0 && p != end && (*p == '+' || *p == '-') && p + 1 != end &&
          std::isdigit(static_cast<unsigned char>(p[1]))) {
        const bool negative = *p == '-';
        auto [q, ec2] = std::from_chars(p + (negative ? 0 : 1), end, coord.offset);
        if (ec2 == std::errc() && q == end) return coord;
      } else if (ec == std::errc() && coord.param >= 0 && p == end) {
        return coord;
      }
    }
  }
  c.fail(fmt::format("expected a coordinate: an integer, \"p0\", \"p1+3\" or {{\"param\": 1, \"offset\": 3}}, got {}",
                     describe(v)));
}

namespace {

template <class T>
const std::string& name_of(const std::vector<T>& items, int index, std::string_view what) {
  if (index < 0 || static_cast<std::size_t>(index) >= items.size()) {
    throw std::invalid_argument(
        fmt::format("to_json: {} index {} out of range; validate the graph first", what, index));
  }
  return items[static_cast<std::size_t>(index)].name;
}

void write_memory_fields(const Node& n, const NodeNames& names, nlohmann::ordered_json& j) {
  const Node defaults;
  j["bytes"] = bytes_to_json(n.bytes);
  if (n.engine != defaults.engine) j["engine"] = to_string(n.engine);
  if (n.tile != TileRef{}) {
    nlohmann::ordered_json tile;
    if (n.tile.tensor >= 0) tile["tensor"] = name_of(names.tensors, n.tile.tensor, "tensor");
    for (const Coord& coord : n.tile.coords) tile["coords"].push_back(coord_to_json(coord));
    if (n.tile.resident) tile["resident"] = true;
    if (n.tile.zero_fill) tile["zero_fill"] = true;
    j["tile"] = std::move(tile);
  }
  if (n.kind == NodeKind::load && n.multicast != defaults.multicast) j["multicast"] = n.multicast;
  const bool load_or_store = n.kind == NodeKind::load || n.kind == NodeKind::store;
  if (load_or_store && n.access != defaults.access) j["access"] = n.access;
  if (load_or_store && n.pitch_alignment != defaults.pitch_alignment) j["pitch_alignment"] = n.pitch_alignment;
  const bool remote = n.kind == NodeKind::remote_put || n.kind == NodeKind::remote_get;
  if (remote && n.peer != defaults.peer) j["peer"] = n.peer;
}

}  // namespace

nlohmann::ordered_json node_to_json(const Node& n, const NodeNames& names) {
  const Node defaults;
  nlohmann::ordered_json j;
  j["id"] = n.id;
  j["kind"] = to_string(n.kind);
  // The role is left out only where there is no choice, so multi-role templates read explicitly.
  if (names.roles.size() != 1 || n.role != 0) j["role"] = name_of(names.roles, n.role, "role");
  switch (n.kind) {
    case NodeKind::load:
    case NodeKind::store:
    case NodeKind::remote_put:
    case NodeKind::remote_get: write_memory_fields(n, names, j); break;
    case NodeKind::smem: j["bytes"] = bytes_to_json(n.bytes); break;
    case NodeKind::mma:
      if (n.inst != defaults.inst) j["inst"] = to_string(n.inst);
      if (n.dtype != defaults.dtype) j["dtype"] = to_string(n.dtype);
      j["shape"] = n.shape;
      if (n.count != defaults.count) j["count"] = n.count;
      break;
    case NodeKind::simt:
      if (n.pipe != defaults.pipe) j["pipe"] = to_string(n.pipe);
      j["ops"] = number_to_json(n.ops);
      if (n.threads != defaults.threads) j["threads"] = n.threads;
      break;
    case NodeKind::signal:
    case NodeKind::wait:
      j["flag"] = name_of(names.flags, n.flag.flag, "flag");
      if (n.flag.index != Coord{}) j["index"] = coord_to_json(n.flag.index);
      if (n.value != defaults.value) j["value"] = n.value;
      break;
    case NodeKind::delay: break;
  }
  if (n.kind == NodeKind::delay || n.cycles != defaults.cycles) j["cycles"] = cycles_to_json(n.cycles);
  return j;
}

nlohmann::ordered_json coord_to_json(const Coord& c) {
  if (c.param < 0) return c.offset;
  if (c.offset == 0) return fmt::format("p{}", c.param);
  return fmt::format("p{}{:+}", c.param, c.offset);
}

nlohmann::ordered_json bytes_to_json(Bytes b) {
  // "48KiB" reads better than 49152; sizes with no whole-number spelling ("12.345kB", "12345B")
  // stay plain integers.
  const std::string text = format_bytes(b);
  const bool whole_unit = text.size() >= 2 && text.find('.') == std::string::npos &&
                          !std::isdigit(static_cast<unsigned char>(text[text.size() - 2]));
  if (whole_unit) return text;
  return b.value;
}

nlohmann::ordered_json number_to_json(double d) {
  // Whole numbers print as integers ("ops": 32, not 32.0); doubles are exact up to 2^53.
  constexpr double kExactLimit = 9007199254740992.0;
  if (d == std::trunc(d) && std::fabs(d) <= kExactLimit) return static_cast<std::int64_t>(d);
  return d;
}

nlohmann::ordered_json cycles_to_json(Cycles c) { return number_to_json(c.value); }

}  // namespace tgsim::graph::detail
