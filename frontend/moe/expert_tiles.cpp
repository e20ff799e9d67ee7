#include "frontend/moe/expert_tiles.h"

#include <fmt/format.h>

#include <algorithm>

#include "frontend/nodes.h"

namespace tgsim::moe {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// SiLU(gate) * up per output element: exp on the SFU, then about 6 FP32 ops (add, reciprocal
// by Newton step, two multiplies, conversion); GEMM1's epilogue only converts (1 op).
constexpr double kActFp32OpsPerElement = 6;
constexpr double kActSfuOpsPerElement = 1;

}  // namespace

std::vector<std::pair<std::int64_t, std::int64_t>> raster(std::int64_t mbs, std::int64_t nbs) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (std::int64_t g = 0; g < mbs; g += kRasterGroup) {
    for (std::int64_t nb = 0; nb < nbs; ++nb) {
      for (std::int64_t mb = g; mb < std::min(mbs, g + kRasterGroup); ++mb) out.emplace_back(mb, nb);
    }
  }
  return out;
}

std::int64_t m_blocks(const MoeLayer& l, int gpu, int local) {
  return ceil_div(l.expert_rows(l.global_expert(gpu, local)), kTileM);
}

std::int64_t n_blocks(const MoeLayer& l, int gemm) {
  return ceil_div(gemm == 0 ? 2 * l.shape.intermediate : l.shape.hidden, kTileN);
}

std::vector<ExpertTile> tile_order(const MoeLayer& l, int gpu) {
  std::vector<ExpertTile> out;
  const auto add = [&](int e, int gemm) {
    for (const auto& [mb, nb] : raster(m_blocks(l, gpu, e), n_blocks(l, gemm))) out.push_back(ExpertTile{gemm, e, mb, nb});
  };
  // Software-pipelined by one expert: GEMM1 of expert e follows GEMM0 of expert e + 1, so its
  // inputs are (nearly) done when a worker takes it.
  for (int e = 0; e <= l.experts_per_gpu(); ++e) {
    if (e < l.experts_per_gpu()) add(e, 0);
    if (e > 0) add(e - 1, 1);
  }
  return out;
}

double tile_flops(const MoeLayer& l, const ExpertTile& t) {
  const std::int64_t k = t.gemm == 0 ? l.shape.hidden : l.shape.intermediate;
  return 2.0 * kTileM * kTileN * static_cast<double>(k);
}

void declare_tensors(graph::Kernel& k, const MoeLayer& l, int gpu) {
  const std::int64_t h = l.shape.hidden, i = l.shape.intermediate;
  for (int e = 0; e < l.experts_per_gpu(); ++e) {
    const std::int64_t t = l.expert_rows(l.global_expert(gpu, e));
    const int ge = l.global_expert(gpu, e);
    k.tensors.push_back({fmt::format("x_e{}", ge), Bytes{t * h * 2}});
    k.tensors.push_back({fmt::format("w0_e{}", ge), Bytes{2 * i * h * 2}});
    k.tensors.push_back({fmt::format("h_e{}", ge), Bytes{t * i * 2}});
    k.tensors.push_back({fmt::format("w1_e{}", ge), Bytes{h * i * 2}});
    k.tensors.push_back({fmt::format("y_e{}", ge), Bytes{t * h * 2}});
  }
}

void set_cta_resources(graph::Kernel& k) {
  k.cta.threads = kCtaThreads;
  k.cta.registers_per_thread = 65536 / kCtaThreads / 8 * 8;
  k.cta.shared_memory = Bytes{192 * 1024};  // CUTLASS-like: 4 stages of 128x64 + 256x64 bf16
}

TileNodes add_tile(frontend::TemplateBuilder& b, TileRoles roles, const MoeLayer& l, const ExpertTile& t,
                   graph::Coord mb, graph::Coord nb, const TileNodes* prev, int gate) {
  using graph::MemEngine;
  using graph::NodeKind;
  const std::int64_t k = t.gemm == 0 ? l.shape.hidden : l.shape.intermediate;
  const int base = 5 * t.local;
  const int ta = base + (t.gemm == 0 ? 0 : 2), tb = base + (t.gemm == 0 ? 1 : 3), tc = base + (t.gemm == 0 ? 2 : 4);
  const std::string sfx = fmt::format("g{}e{}m{}n{}", t.gemm, t.local, t.mb, t.nb);
  TileNodes out;
  std::vector<int> mmas;
  for (std::int64_t c = 0, off = 0; off < k; ++c, off += kChunkK) {
    const std::int64_t kc = std::min(kChunkK, k - off);
    const graph::Coord kcoord{-1, c};
    const int la = b.add(frontend::memory_node(fmt::format("ldA_{}_{}", sfx, c), NodeKind::load, MemEngine::tma,
                                               roles.producer, static_cast<double>(kTileM * kc * 2), ta,
                                               {mb, kcoord, {}}));
    const int lb = b.add(frontend::memory_node(fmt::format("ldB_{}_{}", sfx, c), NodeKind::load, MemEngine::tma,
                                               roles.producer, static_cast<double>(kTileN * kc * 2), tb,
                                               {nb, kcoord, {}}));
    const int mma = b.add(frontend::mma_node(fmt::format("mma_{}_{}", sfx, c), roles.consumer, TensorInst::wgmma,
                                             DType::bf16, {64, static_cast<int>(kTileN), 16},
                                             (kTileM / 64) * ((kc + 15) / 16)));
    b.edge(la, mma);
    b.edge(lb, mma);
    if (c == 0) {
      out.first_load = la;
      b.order(gate, la);
      b.order(gate, lb);
      if (prev != nullptr) {
        b.order(prev->last_mma, la);
        b.order(prev->last_mma, lb);
        b.order(prev->epilogue, mma);
      }
    }
    if (mmas.size() >= 2) {  // two stages: the buffer this chunk loads into was freed two MMAs back
      b.order(mmas[mmas.size() - 2], la);
      b.order(mmas[mmas.size() - 2], lb);
    }
    if (!mmas.empty()) b.order(mmas.back(), mma);
    mmas.push_back(mma);
  }
  out.last_mma = mmas.back();
  const int consumer_threads = kCtaThreads - 128;
  const double out_elems = t.gemm == 0 ? kTileM * kTileN / 2.0 : static_cast<double>(kTileM * kTileN);
  const double fp32_ops = (t.gemm == 0 ? kActFp32OpsPerElement : 1.0) * out_elems / consumer_threads;
  int epi = b.add(frontend::simt_node("epi_" + sfx, roles.consumer, fp32_ops, consumer_threads));
  b.edge(out.last_mma, epi);
  if (t.gemm == 0) {
    const int sfu = b.add(frontend::simt_node("silu_" + sfx, roles.consumer, kActSfuOpsPerElement * out_elems /
                                                                                 consumer_threads,
                                              consumer_threads, graph::SimtPipe::sfu));
    b.edge(epi, sfu);
    epi = sfu;
  }
  out.epilogue = epi;
  const int st_smem = b.add(frontend::smem_node("stsm_" + sfx, roles.consumer, out_elems * 2));
  b.edge(epi, st_smem);
  out.store = b.add(frontend::memory_node("st_" + sfx, NodeKind::store, MemEngine::tma, roles.consumer, out_elems * 2,
                                          tc, {mb, nb, {}}));
  b.edge(st_smem, out.store);
  return out;
}

}  // namespace tgsim::moe
