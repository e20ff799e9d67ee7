// Ampere multistage GEMM (CUTLASS 2.x sm80 kernels, cuBLAS ampere_*gemm*, also run on Hopper):
// every warp both loads and computes. Per K iteration: cp.async of the A and B tiles into stage
// (g mod S) once iteration g-S finished reading it; wait + barrier; each warp reads its fragments
// from shared memory (ldmatrix) and issues mma.sync on its warp tile. Epilogue: convert, stage in
// shared memory, store to global.
// With load_alignment 2 (CUTLASS's sm75 MmaPipelined kernels, what libraries run for 2-byte
// aligned rows): the loads of iteration g are ld.global of one 16-bit element per thread into
// registers (plain loads, `access` 2: the L1 pipe's cost per warp instruction, taken at issue),
// issued after iteration g-1's first half of fragment reads; the warps store them to shared
// memory (an smem node) after issuing iteration g-1's MMAs. The second half of each iteration's
// fragment reads queues behind the next iteration's loads (the LSU's order).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "frontend/gemm/lowering/common.h"
#include "frontend/gemm/lowering/lowering.h"

namespace tgsim::gemm {
namespace {

using graph::MemEngine;
using graph::NodeKind;

// Warp tile: the CTA tile split over `warps` as evenly as possible (2x2 for 4 warps, 2x4 or 4x2 for 8).
std::pair<int, int> warp_grid(const Schedule& s) {
  const int w = std::max(1, s.warps);
  int wm = 1;
  for (int d = 1; d * d <= w; ++d) {
    if (w % d == 0) wm = d;
  }
  int wn = w / wm;
  if (s.tile.m > s.tile.n) std::swap(wm, wn);  // more warps along the longer side
  return {wm, wn};
}

std::int64_t ampere_shared_memory(const Problem& p, const Schedule& s) {
  const double stage = (s.tile.m * element_bytes(p.a_type) + s.tile.n * element_bytes(p.b_type)) * s.tile.k;
  return static_cast<std::int64_t>(s.stages * stage);
}

// Registers per thread of CUTLASS 2.x tensor-op kernels grow with the warp tile's fp32
// accumulators (warp tile m x n / 32 per thread): Nsight Compute on the H200 counts 96 for a 32 x 32
// warp tile (cutlass_75 64x64, 4 warps), 156 for 64 x 32 (cutlass_80 128x64), 230-254 for 64 x 64
// (cutlass_80 256x128; cutlass_75 256x128 and 128x128) (traces/h200/gemm_misaligned_ncu_details.csv.gz,
// gemm_ncu_raw.csv): about 1.5 registers per accumulator plus 48.
int registers_per_thread(const Schedule& s) {
  const auto [wm, wn] = warp_grid(s);
  const double accumulators = static_cast<double>(s.tile.m) / wm * (static_cast<double>(s.tile.n) / wn) / 32.0;
  const int regs = static_cast<int>(std::ceil((1.5 * accumulators + 48) / 8.0)) * 8;
  return std::clamp(regs, 64, 255);
}

graph::CtaTemplate build_template(const Problem& p, const Schedule& s, const Plan& plan, const std::vector<WorkItem>& work) {  // NOLINT
  const int items = static_cast<int>(work.size());
  frontend::TemplateBuilder b("tile");
  const int warps = std::max(1, s.warps);
  const int role = b.role("warps", 0, warps);
  const auto [wm, wn] = warp_grid(s);
  const double warp_tile_m = static_cast<double>(s.tile.m) / wm;
  const double warp_tile_n = static_cast<double>(s.tile.n) / wn;
  const int k_inst = s.mma_k > 0 ? s.mma_k : mma_k(p.a_type);
  const bool staged = s.load_alignment == 2;  // register-staged 16-bit loads (sm75 kernels)
  // Row pitches in bytes, as the largest power of two (at most 128) dividing them: A and B rows
  // hold k elements (the library's TN view), C's columns m.
  const int ab_pitch = row_alignment_bytes(p.k, element_bytes(p.a_type), 128);
  const int c_pitch = row_alignment_bytes(p.m, element_bytes(p.c_type), 128);
  const double a_bytes = s.tile.m * s.tile.k * element_bytes(p.a_type);
  const double b_bytes = s.tile.n * s.tile.k * element_bytes(p.b_type);
  // ldmatrix traffic: every warp reads its A rows and B columns of the stage.
  const double frag_bytes = warps * (warp_tile_m * element_bytes(p.a_type) + warp_tile_n * element_bytes(p.b_type)) * s.tile.k;
  const auto mma_per_warp = static_cast<std::int64_t>(std::ceil(warp_tile_m / 16) * std::ceil(warp_tile_n / 8) *
                                                      std::ceil(static_cast<double>(s.tile.k) / k_inst));
  const double c_elems = static_cast<double>(s.tile.m) * s.tile.n;
  const bool split = plan.splits > 1;
  const bool to_workspace = split && !s.split_k_serial;  // serial split-K slices add into C itself
  std::vector<int> smem_of_iter;
  int prev_frag_a = -1;  // staged: the previous iteration's first and second fragment reads
  int prev_frag_b = -1;
  int prev_store = -1;
  int prev_epilogue = -1;
  for (int j = 0; j < items; ++j) {
    int prev = -1;
    for (std::int64_t k = 0; k < plan.k_iters_per_split; ++k) {
      const std::string sfx = fmt::format("{}_{}", j, k);
      const MemEngine engine = staged ? MemEngine::plain : MemEngine::cp_async;
      const int la = b.add(memory_node("ldA" + sfx, NodeKind::load, engine, role, a_bytes, t_a,
                                       {item_param(j, p_tile_m), item_param(j, p_k_base, k), {}}));
      const int lb = b.add(memory_node("ldB" + sfx, NodeKind::load, engine, role, b_bytes, t_b,
                                       {item_param(j, p_tile_n), item_param(j, p_k_base, k), {}}));
      b.node(la).access = s.load_alignment;
      b.node(lb).access = s.load_alignment;
      b.node(la).pitch_alignment = staged ? ab_pitch : 0;
      b.node(lb).pitch_alignment = staged ? ab_pitch : 0;
      if (staged) {
        // Register-staged (MmaPipelined): the stage's registers go to shared memory after the
        // previous iteration's MMAs were issued; then the warps read the first half of the K
        // slices' fragments, issue the next iteration's ld.global (the LSU works through them
        // in order, so the second half's ldmatrix waits behind them: the loads' L1 cost is
        // taken at issue) and the MMAs of both halves.
        const int sts = b.add(smem_node("sts" + sfx, role, a_bytes + b_bytes));
        b.edge(la, sts);
        b.edge(lb, sts);
        if (prev >= 0) b.order(prev, sts);
        const int frag_a = b.add(smem_node("ldsm" + sfx + "a", role, frag_bytes / 2));
        const int frag_b = b.add(smem_node("ldsm" + sfx + "b", role, frag_bytes / 2));
        const int mma_a = b.add(mma_node("mma" + sfx + "a", role, TensorInst::mma_sync, p.a_type, {16, 8, k_inst}, (mma_per_warp + 1) / 2));
        const int mma_b = b.add(mma_node("mma" + sfx + "b", role, TensorInst::mma_sync, p.a_type, {16, 8, k_inst}, mma_per_warp / 2));
        b.edge(sts, frag_a);
        if (prev_frag_a >= 0) {  // this iteration's loads were issued after the previous first half
          b.order(prev_frag_a, la);
          b.order(prev_frag_a, lb);
          b.order(prev_frag_a, prev_frag_b);  // after those loads, in issue order
        }
        b.edge(frag_a, mma_a);
        b.edge(frag_b, mma_b);
        b.order(mma_a, mma_b);
        if (prev >= 0) b.order(prev, mma_a);
        else if (prev_epilogue >= 0) b.order(prev_epilogue, mma_a);
        const auto g = static_cast<int>(smem_of_iter.size());
        if (g >= s.stages) {
          b.order(smem_of_iter[static_cast<std::size_t>(g - s.stages)], la);
          b.order(smem_of_iter[static_cast<std::size_t>(g - s.stages)], lb);
        }
        smem_of_iter.push_back(frag_b);
        prev_frag_a = frag_a;
        prev_frag_b = frag_b;
        prev = mma_b;
        continue;
      }
      const int frag = b.add(smem_node("ldsm" + sfx, role, frag_bytes));
      const int mma = b.add(mma_node("mma" + sfx, role, TensorInst::mma_sync, p.a_type, {16, 8, k_inst}, mma_per_warp));
      b.edge(la, frag);
      b.edge(lb, frag);
      b.edge(frag, mma);
      const auto g = static_cast<int>(smem_of_iter.size());
      if (g >= s.stages) {
        b.order(smem_of_iter[static_cast<std::size_t>(g - s.stages)], la);
        b.order(smem_of_iter[static_cast<std::size_t>(g - s.stages)], lb);
      }
      smem_of_iter.push_back(frag);
      if (prev >= 0) b.order(prev, mma);
      else if (prev_epilogue >= 0) b.order(prev_epilogue, mma);
      prev = mma;
    }
    if (staged && prev_frag_a >= 0) {  // the last iteration issues no loads
      b.order(prev_frag_a, prev_frag_b);
      prev_frag_a = prev_frag_b = -1;
    }
    const int threads = 32 * warps;
    const int cvt = b.add(simt_node(fmt::format("cvt{}", j), role, epilogue_ops_per_element(s.epilogue) * c_elems / threads, threads));
    b.edge(prev, cvt);
    // Serial split-K: slice s waits until the slices before it have written C, reads it back
    // and adds it to its own (CUTLASS's semaphore), then lets the next slice go.
    const std::int64_t slice = work[static_cast<std::size_t>(j)].serial_slice;
    if (slice > 0) {
      graph::Node wait;
      wait.id = fmt::format("await{}", j);
      wait.kind = NodeKind::wait;
      wait.role = role;
      wait.flag = graph::FlagRef{0, item_param(j, p_tile_id)};
      wait.value = slice;
      const int wt = b.add(wait);
      b.order(prev, wt);
      const int lc = b.add(memory_node(fmt::format("ldC{}", j), NodeKind::load, MemEngine::plain, role,
                                       c_elems * element_bytes(p.c_type), t_c, {item_param(j, p_tile_m), item_param(j, p_tile_n), {}}));
      b.order(wt, lc);
      b.edge(lc, cvt);
      if (staged) {  // read back with the kernel's 2-byte accesses
        b.node(lc).access = 2;
        b.node(lc).pitch_alignment = c_pitch;
      }
    }
    const double out_bytes = to_workspace ? c_elems * 4.0 : c_elems * element_bytes(p.c_type);
    const int st_smem = b.add(smem_node(fmt::format("stsm{}", j), role, out_bytes));
    b.edge(cvt, st_smem);
    const int st = b.add(memory_node(fmt::format("st{}", j), NodeKind::store, MemEngine::plain, role, out_bytes,
                                     to_workspace ? t_workspace : t_c,
                                     {item_param(j, p_tile_m), item_param(j, p_tile_n), to_workspace ? item_param(j, p_split) : graph::Coord{}}));
    b.edge(st_smem, st);
    if (staged && !to_workspace) {  // align1 kernels store C 2 bytes per thread as well
      b.node(st).access = 2;
      b.node(st).pitch_alignment = c_pitch;
    }
    if (slice >= 0) {
      graph::Node sig;
      sig.id = fmt::format("release{}", j);
      sig.kind = NodeKind::signal;
      sig.role = role;
      sig.flag = graph::FlagRef{0, item_param(j, p_tile_id)};
      b.edge(st, b.add(sig));
    }
    if (prev_store >= 0) b.order(prev_store, st);
    prev_store = st;
    prev_epilogue = st_smem;
  }
  return b.take();
}

class AmpereLowering final : public KernelLowering {
 public:
  std::string_view name() const override { return "ampere_multistage"; }
  int ctas_per_sm(const Problem& p, const Schedule& s, const hw::GpuSpec& spec) const override {
    const auto smem = ampere_shared_memory(p, s) + spec.sm.reserved_shared_memory_per_cta.value;
    const int by_smem = static_cast<int>(spec.sm.shared_memory.value / std::max<std::int64_t>(1, smem));
    const int by_threads = spec.sm.max_threads / (32 * std::max(1, s.warps));
    return std::max(1, std::min(by_smem, by_threads));
  }
  graph::Kernel build(const Problem& p, const Schedule& s, const Plan& plan, const hw::GpuSpec& spec) const override {
    graph::Kernel k;
    k.name = s.name.empty() ? "gemm_sm80_multistage" : s.name;
    declare_tensors(k, p, plan);
    k.cta.threads = 32 * std::max(1, s.warps);
    k.cta.registers_per_thread = registers_per_thread(s);
    k.cta.shared_memory = Bytes{ampere_shared_memory(p, s)};
    (void)spec;
    fill_grid(k, plan, [&](const std::vector<WorkItem>& items) {
      return build_template(p, s, plan, items);
    });
    return k;
  }
};

}  // namespace

std::unique_ptr<KernelLowering> make_ampere_lowering() { return std::make_unique<AmpereLowering>(); }

}  // namespace tgsim::gemm
