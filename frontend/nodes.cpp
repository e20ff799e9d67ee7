#include "frontend/nodes.h"

#include <cmath>
#include <utility>

namespace tgsim::frontend {

graph::Node memory_node(std::string id, graph::NodeKind kind, graph::MemEngine engine, int role, double bytes,
                        int tensor, std::array<graph::Coord, 3> coords, int multicast) {
  graph::Node n;
  n.id = std::move(id);
  n.kind = kind;
  n.engine = engine;
  n.role = role;
  n.bytes = Bytes{static_cast<std::int64_t>(std::ceil(bytes))};
  n.tile.tensor = tensor;
  n.tile.coords = coords;
  n.multicast = multicast;
  return n;
}

graph::Node mma_node(std::string id, int role, TensorInst inst, DType dtype, std::array<int, 3> shape, std::int64_t count) {
  graph::Node n;
  n.id = std::move(id);
  n.kind = graph::NodeKind::mma;
  n.role = role;
  n.inst = inst;
  n.dtype = dtype;
  n.shape = shape;
  n.count = count;
  return n;
}

graph::Node simt_node(std::string id, int role, double ops, int threads, graph::SimtPipe pipe) {
  graph::Node n;
  n.id = std::move(id);
  n.kind = graph::NodeKind::simt;
  n.role = role;
  n.pipe = pipe;
  n.ops = ops;
  n.threads = threads;
  return n;
}

graph::Node smem_node(std::string id, int role, double bytes) {
  graph::Node n;
  n.id = std::move(id);
  n.kind = graph::NodeKind::smem;
  n.role = role;
  n.bytes = Bytes{static_cast<std::int64_t>(std::ceil(bytes))};
  return n;
}

graph::Node signal_node(std::string id, int role, graph::FlagRef flag, std::int64_t value) {
  graph::Node n;
  n.id = std::move(id);
  n.kind = graph::NodeKind::signal;
  n.role = role;
  n.flag = flag;
  n.value = value;
  return n;
}

graph::Node wait_node(std::string id, int role, graph::FlagRef flag, std::int64_t value) {
  graph::Node n;
  n.id = std::move(id);
  n.kind = graph::NodeKind::wait;
  n.role = role;
  n.flag = flag;
  n.value = value;
  return n;
}

graph::Node delay_node(std::string id, int role, double cycles) {
  graph::Node n;
  n.id = std::move(id);
  n.kind = graph::NodeKind::delay;
  n.role = role;
  n.cycles = Cycles{cycles};
  return n;
}

int mma_k(DType t) { return static_cast<int>(256 / dtype_bits(t)); }

}  // namespace tgsim::frontend
