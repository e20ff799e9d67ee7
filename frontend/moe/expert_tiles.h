// The experts' GEMM work as output tiles (docs/moe.md): a Hopper warp-specialised tile of
// 128 x 256 outputs, TMA loads of A and B in K chunks of 512 (two stages), wgmma m64n256k16 on
// the tensor pipe, an epilogue on the CUDA cores, a TMA store. GEMM0 (T_e x 2I x H) fuses
// SiLU(gate) * up into its epilogue and stores T_e x I; GEMM1 (T_e x H x I) stores T_e x H.
// Every schedule builds its kernels from these tiles, so they differ only in how tiles and
// transfers are ordered and placed on SMs; the tile's cost comes from the GPU spec's rates.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "frontend/moe/layer.h"
#include "frontend/template_builder.h"
#include "sim/graph/tile_graph.h"

namespace tgsim::moe {

constexpr std::int64_t kTileM = 128;
constexpr std::int64_t kTileN = 256;
constexpr std::int64_t kChunkK = 512;
constexpr int kCtaThreads = 384;  // producer warpgroup + 2 consumer warpgroups (CUTLASS sm90 ws)

struct ExpertTile {
  int gemm = 0;  // 0: gate/up + activation, 1: down
  int local = 0; // local expert index on its GPU
  std::int64_t mb = 0, nb = 0;
};

// Tile raster (CUTLASS-style swizzle): groups of kRasterGroup m-blocks, n-blocks outer within a
// group, so the CTAs running at once share a few A row blocks and each B tile is read once per
// group instead of once per m-block (an expert's weights are larger than L2).
constexpr std::int64_t kRasterGroup = 8;
std::vector<std::pair<std::int64_t, std::int64_t>> raster(std::int64_t mbs, std::int64_t nbs);

std::int64_t m_blocks(const MoeLayer& l, int gpu, int local);
std::int64_t n_blocks(const MoeLayer& l, int gemm);
// Tiles of GPU g in the order a tile counter hands them out: GEMM0 of expert 0, GEMM0 of expert
// 1, GEMM1 of expert 0, GEMM0 of expert 2, GEMM1 of expert 1, ... (each in raster order).
std::vector<ExpertTile> tile_order(const MoeLayer& l, int gpu);
double tile_flops(const MoeLayer& l, const ExpertTile& t);

// Five tensors per local expert (x, w0, h, w1, y) so the L2 model never aliases experts' tiles.
void declare_tensors(graph::Kernel& k, const MoeLayer& l, int gpu);
// One CTA per SM, as CUTLASS's warp-specialised kernels (setmaxnreg takes the register file).
void set_cta_resources(graph::Kernel& k);

struct TileRoles {
  int producer = 0;
  int consumer = 0;
};
struct TileNodes {
  int first_load = -1;
  int last_mma = -1;
  int epilogue = -1;  // accumulators free after this
  int store = -1;
};
// Adds one tile's nodes. prev: the previous tile of the same CTA (loads run ahead after its
// last MMA; the first MMA waits for its epilogue); `gate`: a node the loads wait for (-1: none).
TileNodes add_tile(frontend::TemplateBuilder& b, TileRoles roles, const MoeLayer& l, const ExpertTile& t,
                   graph::Coord mb, graph::Coord nb, const TileNodes* prev, int gate);

}  // namespace tgsim::moe
