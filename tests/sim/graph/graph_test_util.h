// Small graphs and helpers shared by the tile-graph tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "sim/graph/tile_graph.h"

namespace tgsim::graph::testing {

// One kernel, one template "main" with roles producer/consumer and a chain
// ld (load 48 KiB of tensor A at (p0, 0)) -> mma (wgmma 64x256x16 x 8) -> st (store of tensor C at (p0, p1)),
// run by 4 CTAs in clusters of 2 with two params each.
inline TileGraph small_graph() {
  TileGraph g;
  g.name = "small";
  g.flags.push_back(Flag{"done", FlagScope::gpu});
  Kernel k;
  k.name = "gemm";
  k.cta.threads = 256;
  k.cta.shared_memory = Bytes{200 * 1024};
  k.cta.cluster = {2, 1, 1};
  k.tensors = {Tensor{"A", Bytes{1 << 20}}, Tensor{"C", Bytes{1 << 20}}};
  CtaTemplate t;
  t.name = "main";
  t.roles = {Role{"producer", 0, 1}, Role{"consumer", 4, 4}};
  Node ld;
  ld.id = "ld";
  ld.kind = NodeKind::load;
  ld.bytes = Bytes{48 * 1024};
  ld.tile = TileRef{0, {Coord{0, 0}, Coord{-1, 0}, Coord{-1, 0}}};
  Node mma;
  mma.id = "mma";
  mma.kind = NodeKind::mma;
  mma.role = 1;
  mma.shape = {64, 256, 16};
  mma.count = 8;
  Node st;
  st.id = "st";
  st.kind = NodeKind::store;
  st.role = 1;
  st.bytes = Bytes{64 * 1024};
  st.tile = TileRef{1, {Coord{0, 0}, Coord{1, 0}, Coord{-1, 0}}};
  t.nodes = {ld, mma, st};
  t.edges = {Edge{0, 1, EdgeKind::data}, Edge{1, 2, EdgeKind::data}};
  k.templates.push_back(t);
  k.grid.push_back(CtaGroup{0, 4, 2, {0, 0, 0, 1, 1, 0, 1, 1}});
  g.kernels.push_back(k);
  return g;
}

inline bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

}  // namespace tgsim::graph::testing

// EXPECT_THROW_MSG(stmt, InputError, "part"): throws that type with `part` in what().
#define EXPECT_THROW_MSG(statement, type, part)                              \
  do {                                                                       \
    try {                                                                    \
      statement;                                                             \
      ADD_FAILURE() << "expected " #type " containing: " << (part);          \
    } catch (const type& e) {                                                \
      EXPECT_TRUE(::tgsim::graph::testing::contains(e.what(), part))         \
          << "message: " << e.what() << "\nexpected to contain: " << (part); \
    }                                                                        \
  } while (false)
