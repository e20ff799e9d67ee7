// A toy GPU with round numbers so latencies can be computed by hand: 1 GHz (1 cycle = 1 ns),
// 1 TB/s HBM and L2 (1 byte per ps), SM ports that never bind, zero launch overheads.
#pragma once

#include <string>

#include "sim/graph/tile_graph.h"
#include "sim/hw/gpu_spec.h"

namespace tgsim::testing {

inline hw::GpuSpec toy_gpu(int sms = 2) {
  hw::GpuSpec s;
  s.name = "toy";
  s.arch = "hopper";
  s.clock.boost = Hertz{1e9};
  s.clock.base = Hertz{1e9};
  s.sm.count = sms;
  s.sm.shared_memory = Bytes{228 * 1024};
  s.sm.shared_memory_per_cta = Bytes{227 * 1024};
  s.sm.shared_memory_bandwidth = hw::BytesPerCycle{128};
  s.sm.l2_bandwidth_per_sm = hw::BytesPerCycle{100000};
  s.gpc.count = 1;
  s.gpc.sms_per_gpc = {sms};
  s.tensor.flops_per_cycle[TensorInst::wgmma][DType::bf16] = 4096;
  s.tensor.flops_per_cycle[TensorInst::mma_sync][DType::bf16] = 2048;
  s.simt.latency = Cycles{0};
  s.l2.capacity = Bytes{50 << 20};
  s.l2.bandwidth = BytesPerSecond{1e12};
  s.l2.hit_latency = Cycles{200};
  s.hbm.capacity = Bytes{80LL << 30};
  s.hbm.bandwidth = BytesPerSecond{1e12};
  s.hbm.efficiency = 1.0;
  s.hbm.latency = Cycles{500};
  return s;
}

// One kernel with one template; `count` CTAs of `threads`, one per SM when `smem` is large.
inline graph::TileGraph one_kernel(graph::CtaTemplate t, std::int64_t count = 1, std::int64_t smem = 1024,
                                   int threads = 128) {
  graph::TileGraph g;
  g.name = "test";
  graph::Kernel k;
  k.name = "k";
  k.cta.threads = threads;
  k.cta.shared_memory = Bytes{smem};
  k.templates.push_back(std::move(t));
  k.grid.push_back(graph::CtaGroup{0, count, 0, {}});
  g.kernels.push_back(std::move(k));
  return g;
}

// `count` CTAs each loading the whole of tensor A (`bytes`, tracked by the L2 model) in one node.
inline graph::TileGraph tracked_load_kernel(std::int64_t bytes, std::int64_t count = 1, std::int64_t smem = 1024);

inline graph::CtaTemplate make_template(std::vector<graph::Node> nodes, std::vector<graph::Edge> edges) {
  graph::CtaTemplate t;
  t.name = "main";
  t.roles.push_back(graph::Role{"warpgroup", 0, 4});
  t.nodes = std::move(nodes);
  t.edges = std::move(edges);
  return t;
}

inline graph::Node load_node(std::string id, std::int64_t bytes) {
  graph::Node n;
  n.id = std::move(id);
  n.kind = graph::NodeKind::load;
  n.engine = graph::MemEngine::tma;
  n.bytes = Bytes{bytes};
  return n;
}

inline graph::Node wgmma_node(std::string id, std::int64_t count) {
  graph::Node n;
  n.id = std::move(id);
  n.kind = graph::NodeKind::mma;
  n.inst = TensorInst::wgmma;
  n.dtype = DType::bf16;
  n.shape = {64, 256, 16};
  n.count = count;
  return n;
}

// `count` mma.sync m16n8k16 bf16 per warp of role `role`.
inline graph::Node mma_sync_node(std::string id, std::int64_t count, int role = 0) {
  graph::Node n;
  n.id = std::move(id);
  n.kind = graph::NodeKind::mma;
  n.inst = TensorInst::mma_sync;
  n.dtype = DType::bf16;
  n.shape = {16, 8, 16};
  n.count = count;
  n.role = role;
  return n;
}

// `ops` FP32 instructions per thread for `threads` threads of role `role`.
inline graph::Node simt_node(std::string id, double ops, int role = 0, int threads = 128) {
  graph::Node n;
  n.id = std::move(id);
  n.kind = graph::NodeKind::simt;
  n.role = role;
  n.ops = ops;
  n.threads = threads;
  return n;
}

inline graph::Node smem_node(std::string id, std::int64_t bytes) {
  graph::Node n;
  n.id = std::move(id);
  n.kind = graph::NodeKind::smem;
  n.bytes = Bytes{bytes};
  return n;
}

// A template of two warpgroups' roles (warps 0-3 and 4-7), nodes to be added.
inline graph::CtaTemplate two_warpgroups(std::string first = "wg0", std::string second = "wg1") {
  graph::CtaTemplate t;
  t.name = "main";
  t.roles = {graph::Role{std::move(first), 0, 4}, graph::Role{std::move(second), 4, 4}};
  return t;
}

// A cp.async load of `bytes`, `access` bytes per thread, issued by role `role`.
inline graph::Node cp_async_node(std::string id, std::int64_t bytes, int access, int role) {
  graph::Node n;
  n.id = std::move(id);
  n.kind = graph::NodeKind::load;
  n.engine = graph::MemEngine::cp_async;
  n.role = role;
  n.bytes = Bytes{bytes};
  n.access = access;
  return n;
}

inline graph::Node delay_node(std::string id, double cycles) {
  graph::Node n;
  n.id = std::move(id);
  n.kind = graph::NodeKind::delay;
  n.cycles = Cycles{cycles};
  return n;
}

inline graph::TileGraph tracked_load_kernel(std::int64_t bytes, std::int64_t count, std::int64_t smem) {
  graph::TileGraph g = one_kernel(make_template({load_node("a", bytes)}, {}), count, smem);
  g.kernels[0].tensors.push_back(graph::Tensor{"A", Bytes{bytes}});
  g.kernels[0].templates[0].nodes[0].tile.tensor = 0;
  return g;
}

}  // namespace tgsim::testing
