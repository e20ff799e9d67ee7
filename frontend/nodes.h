// Node constructors every frontend uses (GEMM, attention, ...): one line per tile operation, so
// lowering code reads like the kernel's program.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "sim/graph/tile_graph.h"

namespace tgsim::frontend {

graph::Node memory_node(std::string id, graph::NodeKind kind, graph::MemEngine engine, int role, double bytes,
                        int tensor, std::array<graph::Coord, 3> coords, int multicast = 1);
graph::Node mma_node(std::string id, int role, TensorInst inst, DType dtype, std::array<int, 3> shape, std::int64_t count);
// `ops` instructions per thread on `pipe` for `threads` threads (0: the role's).
graph::Node simt_node(std::string id, int role, double ops, int threads, graph::SimtPipe pipe = graph::SimtPipe::fp32);
graph::Node smem_node(std::string id, int role, double bytes);
graph::Node signal_node(std::string id, int role, graph::FlagRef flag, std::int64_t value = 1);
graph::Node wait_node(std::string id, int role, graph::FlagRef flag, std::int64_t value);
// A fixed number of cycles (a modelled overhead).
graph::Node delay_node(std::string id, int role, double cycles);

// Tensor-core K per instruction: 32 bytes of input (k16 for 16-bit types, k8 tf32, k32 fp8).
int mma_k(DType t);

}  // namespace tgsim::frontend
