// Documents and graphs shared by the tile-graph JSON tests (graph_json*_test.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include "sim/graph/graph_json.h"
#include "tests/sim/graph/graph_test_util.h"

namespace tgsim::graph::testing {

using nlohmann::json;

// A valid document touching most of the format: two roles, a flag, per-CTA params, `after`.
inline json base_doc() {
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

inline TileGraph parse(const json& j) { return parse_tile_graph(j, "test.json"); }

// A graph using every node kind and non-default values of every field.
inline TileGraph every_field_graph() {
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

}  // namespace tgsim::graph::testing
