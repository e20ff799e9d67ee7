// The tile-graph IR. A TileGraph is a list of kernel launches; a kernel is a grid of CTAs, each
// CTA an instance of a small per-CTA template (nodes + edges) with its own integer parameters
// (tile coordinates, trip counts). Nothing is materialised per CTA until the engine runs it, so
// a GEMM with a million node executions stays a few hundred template nodes.
//
// Node = one tile-level operation issued by a warp or warpgroup (a role) of one CTA.
// Edge = a constraint inside one CTA: data (producer -> consumer of a tile) or order (program
// order, pipeline-stage buffer reuse, barriers). Constraints across CTAs, kernels and GPUs are
// expressed with signal/wait nodes on flags.
// The JSON form is documented in docs/tile-graph-format.md (sim/graph/graph_json.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/units/dtype.h"
#include "sim/units/units.h"

namespace tgsim::graph {

enum class NodeKind {
  load,        // global -> shared/registers tile load (TMA, cp.async or plain ld)
  store,       // registers/shared -> global tile store
  mma,         // tensor-core MMA instructions on a tile
  simt,        // SIMT tile op on the CUDA cores (softmax, activation, reduction, conversion)
  smem,        // shared-memory <-> register move (ldmatrix/stmatrix, epilogue staging)
  remote_put,  // write a tile to a peer GPU's memory over NVLink
  remote_get,  // read a tile from a peer GPU's memory over NVLink
  signal,      // add to a flag (mbarrier arrive, flag write)
  wait,        // wait until a flag reaches a value
  delay,       // a fixed number of cycles (modelled overheads)
};

enum class MemEngine {
  tma,          // Hopper+ bulk tensor copy engine (one thread issues; async)
  cp_async,     // Ampere+ asynchronous copy, issued by every thread of the role
  plain,        // ordinary ld/st through the LSU
  copy_engine,  // DMA copy engine (remote transfers only)
};

using TensorInst = tgsim::TensorInst;

// fetch: instruction fetch of code outside the SM's fast instruction cache (`ops` = instructions
// per thread); each warp instruction holds its sub-partition's issue timeline for
// sm.instruction_fetch_cycles - 1 beyond the issue cycle its own node charges.
// uniform: uniform-datapath instructions: one issue slot per warp instruction on the SIMT
// timeline, not slowed by a running wgmma (simt.rate_during_wgmma).
enum class SimtPipe { fp32, int32, sfu, fetch, uniform };

enum class EdgeKind { data, order };

// How far a flag's signal travels: sets the signal-to-wake latency.
enum class FlagScope { cta, gpu, system };

// An integer computed per CTA: params[param] + offset (param < 0: offset alone).
struct Coord {
  int param = -1;
  std::int64_t offset = 0;
  bool operator==(const Coord&) const = default;
};

// Which tile of which tensor a load/store touches: lets the L2 model see reuse across CTAs.
struct TileRef {
  int tensor = -1;  // index into Kernel::tensors; -1: untracked (streamed from HBM unless resident)
  std::array<Coord, 3> coords{};
  // Untracked data known to sit in L2 (written or read just before this kernel and smaller than
  // L2): loads hit without consulting the L2 model. Only for untracked tiles.
  bool resident = false;
  // A TMA box wholly outside its tensor: zero-filled without reading HBM; it still takes a share of
  // the L2's miss path (l2.miss_bandwidth). Only for untracked, non-resident loads.
  bool zero_fill = false;
  bool operator==(const TileRef&) const = default;
};

// A flag is named in TileGraph::flags; each has many slots, picked per CTA by `index`.
struct FlagRef {
  int flag = -1;
  Coord index;
  bool operator==(const FlagRef&) const = default;
};

struct Node {
  std::string id;  // unique within its template
  NodeKind kind = NodeKind::delay;
  int role = 0;  // index into CtaTemplate::roles

  // Memory ops (load, store, smem, remote_*): bytes moved by this node for this CTA.
  Bytes bytes;
  MemEngine engine = MemEngine::tma;
  TileRef tile;
  int multicast = 1;  // TMA multicast: the tile is fetched once for this many CTAs of the cluster
  int access = 16;    // cp.async loads: bytes each thread copies per instruction (4, 8 or 16);
                      // 2: a register-staged ld.global of one 16-bit element per thread (plain loads)
  // Access-2 loads and stores, and TMA loads: the largest power of two (at most 128) dividing the
  // row pitch in bytes; 0 = not known. Access 2: rows 128-byte (16-byte) aligned cost the L1 more
  // per instruction than odd ones (sm.ldg_2b_aligned_pitch_cycles, sm.ldg_2b_pitch16_cycles).
  // TMA (16 or more): rows only 16 or 32 bytes aligned come from L2 more slowly
  // (sm.l2_bandwidth_per_sm_pitch16/32, l2.pitch16_bandwidth).
  int pitch_alignment = 0;
  int peer = 1;       // remote ops: target GPU = (own GPU + peer) mod GPUs in the system

  // mma: `count` instructions of `shape` (m, n, k) on `dtype` inputs.
  TensorInst inst = TensorInst::wgmma;
  DType dtype = DType::bf16;
  std::array<int, 3> shape{0, 0, 0};
  std::int64_t count = 1;

  // simt: `ops` instructions per thread on `pipe`, executed by `threads` threads (0: the role's).
  SimtPipe pipe = SimtPipe::fp32;
  double ops = 0.0;
  int threads = 0;

  // signal/wait: flag slot and amount (signal adds `value`; wait needs slot >= `value`).
  FlagRef flag;
  std::int64_t value = 1;

  // Fixed extra latency (any kind); the whole cost of a `delay` node.
  Cycles cycles;

  bool operator==(const Node&) const = default;
};

struct Edge {
  int from = 0;  // node indices within the template
  int to = 0;
  EdgeKind kind = EdgeKind::data;
  bool operator==(const Edge&) const = default;
};

// A warp role within a CTA: a named group of consecutive warps (e.g. producer, consumer0).
struct Role {
  std::string name;
  int first_warp = 0;
  int warps = 1;
  bool operator==(const Role&) const = default;
};

struct CtaTemplate {
  std::string name;
  std::vector<Role> roles;
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  bool operator==(const CtaTemplate&) const = default;
};

// Resources one CTA holds while resident (occupancy).
struct CtaResources {
  int threads = 128;
  int registers_per_thread = 32;
  Bytes shared_memory;
  std::array<int, 3> cluster{1, 1, 1};
  bool operator==(const CtaResources&) const = default;
};

// `count` consecutive CTAs of the grid running `template_index`, with `params_per_cta`
// integers each (params.size() == count * params_per_cta, or empty when no node uses params).
struct CtaGroup {
  int template_index = 0;
  std::int64_t count = 1;
  int params_per_cta = 0;
  std::vector<std::int64_t> params;
  bool operator==(const CtaGroup&) const = default;
};

struct Tensor {
  std::string name;
  Bytes bytes;  // total size (informational; the L2 model keys on tiles)
  bool operator==(const Tensor&) const = default;
};

struct Kernel {
  std::string name;
  int stream = 0;
  int gpu = 0;
  bool in_cuda_graph = false;  // launched from a CUDA graph: smaller launch gap
  // Launched with programmatic dependent launch (PDL) behind its predecessor on the stream: it is
  // resident early and starts launch.pdl_kernel_gap after that one ends (cuBLASLt's split-K
  // reduction behind its sm90 GEMM).
  bool programmatic = false;
  CtaResources cta;
  std::vector<Tensor> tensors;
  std::vector<CtaTemplate> templates;
  std::vector<CtaGroup> grid;  // CTAs in launch order (blockIdx order)
  std::vector<int> after;      // kernels (indices in TileGraph::kernels) that must finish first
  bool operator==(const Kernel&) const = default;

  std::int64_t cta_count() const {
    std::int64_t n = 0;
    for (const auto& g : grid) n += g.count;
    return n;
  }
};

struct Flag {
  std::string name;
  FlagScope scope = FlagScope::gpu;
  bool operator==(const Flag&) const = default;
};

struct TileGraph {
  std::string name;
  int gpus = 1;  // GPUs the graph spans
  std::vector<Flag> flags;
  std::vector<Kernel> kernels;
  bool operator==(const TileGraph&) const = default;
};

std::string_view to_string(NodeKind k);
std::string_view to_string(MemEngine e);
std::string_view to_string(SimtPipe p);
std::string_view to_string(EdgeKind k);
std::string_view to_string(FlagScope s);

}  // namespace tgsim::graph
