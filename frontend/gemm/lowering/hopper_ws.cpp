// Hopper warp-specialised GEMM (CUTLASS 3.x sm90 TMA warp-specialised kernels, cuBLAS nvjet):
//   producer warp:  for each K iteration, TMA-load the A and B tiles of one pipeline stage
//                   (multicast across the cluster), once the consumers released that stage;
//   consumers:      wait for the stage (full barrier), issue wgmma, release the stage (empty
//                   barrier) when the wgmma retired; after the last K iteration, the epilogue:
//                   convert the accumulators, stage them in shared memory, TMA-store the tile.
// cooperative: both consumer warpgroups work on one tile (one MMA node carries the whole tile);
// ping-pong:   the two warpgroups take alternate tiles; one's mainloop runs while the other's
//              epilogue does (ordered by the math barrier).
// Blackwell tcgen05 reuses this shape with TMEM double-buffered accumulators (blackwell.cpp).
#include "frontend/gemm/lowering/hopper_ws.h"

#include <algorithm>

#include <fmt/format.h>

#include "frontend/gemm/lowering/common.h"
#include "sim/units/error.h"

namespace tgsim::gemm {
namespace {

using graph::EdgeKind;
using graph::MemEngine;
using graph::NodeKind;

}  // namespace

std::int64_t ws_mainloop_shared_memory(const Problem& p, const Schedule& s) {
  const double stage = (s.tile.m * element_bytes(p.a_type) + s.tile.n * element_bytes(p.b_type)) * s.tile.k;
  return static_cast<std::int64_t>(s.stages * stage) + 1024;  // + mbarriers
}

std::int64_t ws_shared_memory(const Problem& p, const Schedule& s, const hw::GpuSpec& spec) {
  // The epilogue stages C through up to 32 KiB of shared memory; kernels whose mainloop leaves
  // less (deep pipelines, e.g. cuBLAS 112x128x64 x 7) use what is left, or reuse stage buffers.
  const std::int64_t mainloop = ws_mainloop_shared_memory(p, s);
  const std::int64_t room = std::max<std::int64_t>(0, spec.sm.shared_memory_per_cta.value - mainloop);
  const auto epilogue = static_cast<std::int64_t>(std::min<double>(s.tile.m * s.tile.n * element_bytes(p.c_type), 32.0 * 1024));
  return mainloop + std::min(epilogue, room);
}

graph::CtaTemplate build_ws_template(const Problem& p, const Schedule& s, const Plan& plan, const WsVariant& v,
                                     const std::vector<WorkItem>& work) {
  const int items = static_cast<int>(work.size());
  frontend::TemplateBuilder b("tile");
  const bool pingpong = s.warp_specialization == WarpSpecialization::pingpong;
  const int wgs = std::max(1, s.consumer_warpgroups);
  const int producer = b.role("producer", 0, 1);
  std::vector<int> consumers;
  if (pingpong) {
    for (int w = 0; w < wgs; ++w) consumers.push_back(b.role(fmt::format("consumer{}", w), 4 * (w + 1), 4));
  } else {
    consumers.push_back(b.role("consumers", 4, 4 * wgs));
  }
  const int consumer_threads = 128 * (pingpong ? 1 : wgs);
  const int mc_a = s.tma_multicast ? plan.cluster_n : 1;  // A tile shared by the CTAs of one cluster row
  const int mc_b = s.tma_multicast ? plan.cluster_m : 1;
  const double a_bytes = s.tile.m * s.tile.k * element_bytes(p.a_type);
  const double b_bytes = s.tile.n * s.tile.k * element_bytes(p.b_type);
  // The operands' rows (K contiguous, as the Ampere lowering takes them too): rows only 16 or 32
  // bytes aligned come from L2 more slowly (calib_tma pitch_*; sm.l2_bandwidth_per_sm_pitch16/32).
  const auto tma_pitch = [&](DType t) {
    const int a = row_alignment_bytes(p.k, element_bytes(t), 128);
    return a >= 16 ? a : 0;
  };
  const int a_pitch = tma_pitch(p.a_type);
  const int b_pitch = tma_pitch(p.b_type);
  const double c_elems = static_cast<double>(s.tile.m) * s.tile.n;
  const int k_inst = mma_k(p.a_type);
  // wgmma's M is 64 per instruction and its N any multiple of 8 up to 256. A swap-AB kernel runs
  // the instruction's M along the tile's n (so a 144x128 tile is 2 x m64n144, not 3 x m64n128).
  const int m_extent = s.swap_ab ? s.tile.n : s.tile.m;
  const int n_extent = s.swap_ab ? s.tile.m : s.tile.n;
  const int n_inst = std::min(n_extent, 256);
  const std::int64_t mma_count = static_cast<std::int64_t>((m_extent + 63) / 64) * ((n_extent + n_inst - 1) / n_inst) *
                                 ((s.tile.k + k_inst - 1) / k_inst);
  const bool split = plan.splits > 1;
  const bool floor_steps = v.k_step_floor_cycles > v.k_step_mma_cycles;

  std::vector<int> mma_of_iter;      // global K iteration -> its MMA node (stage release)
  std::vector<int> last_mma(static_cast<std::size_t>(items), -1);
  std::vector<int> acc_free(static_cast<std::size_t>(items), -1);  // node after which the tile's accumulators are free
  std::vector<int> store_of(static_cast<std::size_t>(items), -1);
  std::vector<int> staged_reads;  // sub-tiled epilogue: smem read-outs in order (buffer ring)
  std::vector<int> prev_loads;  // the previous tile's loads (the producer reaches the next tile after issuing them)
  std::int64_t group = 0;
  for (int j = 0; j < items; ++j) {
    const int role = pingpong ? consumers[static_cast<std::size_t>(j) % consumers.size()] : consumers[0];
    const WorkItem& w = work[static_cast<std::size_t>(j)];
    // A grouped kernel's tile scheduler walks the groups' problem sizes: one dependent L2 read per
    // group it steps over, and one for the new group's problem (its tensor-map rewrite was
    // not measurable on top of that: traces/h200/grouped_gemm_calib.csv, docs/model.md).
    int gate = -1;
    const bool new_group = s.grouped && (j == 0 || w.group != group);
    const double walk_cycles =
        new_group ? static_cast<double>(w.group - (j == 0 ? 0 : group) + 1) * v.group_scan_cycles : 0.0;
    if (new_group) {
      gate = b.add(frontend::delay_node(fmt::format("group{}", j), producer, walk_cycles));
      for (int l : prev_loads) b.order(l, gate);
    }
    // The consumers walk the same groups (their copy of the scheduler) after their previous
    // tile's epilogue, before this tile's first MMA.
    int consumer_gate = -1;
    if (new_group) {
      consumer_gate = b.add(frontend::delay_node(fmt::format("cgroup{}", j), role, walk_cycles));
      const int before_tile = pingpong ? (j >= wgs ? store_of[static_cast<std::size_t>(j - wgs)] : -1)
                                       : (j > 0 ? store_of[static_cast<std::size_t>(j - 1)] : -1);
      if (before_tile >= 0) b.order(before_tile, consumer_gate);
    }
    group = w.group;
    prev_loads.clear();
    int prev = -1;
    int prev_step = -1;
    for (std::int64_t k = 0; k < w.k_iters; ++k) {
      const std::string sfx = fmt::format("{}_{}", j, k);
      // A box wholly outside the tensor (the CTA's tile hangs over the edge) is zero-filled: it
      // reads no HBM but shares the L2's miss path with the misses (traces/h200/
      // calibration_tma_oob.csv, calibration_tma_oobmix.csv; l2.miss_bandwidth): untracked.
      graph::Node load_a = memory_node("ldA" + sfx, NodeKind::load, MemEngine::tma, producer, a_bytes, w.outside_m ? -1 : t_a,
                                       {item_param(j, p_tile_m), item_param(j, p_k_base, k), item_param(j, p_rank_n)}, mc_a);
      graph::Node load_b = memory_node("ldB" + sfx, NodeKind::load, MemEngine::tma, producer, b_bytes, w.outside_n ? -1 : t_b,
                                       {item_param(j, p_tile_n), item_param(j, p_k_base, k), item_param(j, p_rank_m)}, mc_b);
      load_a.tile.zero_fill = w.outside_m;
      load_b.tile.zero_fill = w.outside_n;
      load_a.pitch_alignment = a_pitch;
      load_b.pitch_alignment = b_pitch;
      const int la = b.add(std::move(load_a));
      const int lb = b.add(std::move(load_b));
      if (gate >= 0) {
        b.order(gate, la);
        b.order(gate, lb);
      }

      if (k == w.k_iters - 1) prev_loads = {la, lb};
      const int mma = b.add(mma_node("mma" + sfx, role, v.inst, p.a_type, {64, n_inst, k_inst}, mma_count));
      b.edge(la, mma);
      b.edge(lb, mma);
      if (floor_steps) {  // the consumer loop's floor: step k starts once its data is there and step k-1 began L ago
        const int step = b.add(frontend::delay_node("kstep" + sfx, role, v.k_step_floor_cycles));
        b.edge(la, step);
        b.edge(lb, step);
        if (prev_step >= 0) {
          b.order(prev_step, step);
          b.order(prev_step, mma);
        }
        prev_step = step;
      }
      const auto g = static_cast<int>(mma_of_iter.size());
      if (g >= s.stages) {  // the stage this load refills was released by the MMA `stages` iterations back
        b.order(mma_of_iter[static_cast<std::size_t>(g - s.stages)], la);
        b.order(mma_of_iter[static_cast<std::size_t>(g - s.stages)], lb);
      }
      mma_of_iter.push_back(mma);
      if (prev >= 0) {
        b.order(prev, mma);  // same accumulators
      } else {
        // The tile's first MMA needs free accumulators (buffer reuse) and, in ping-pong, the
        // other warpgroup to have finished its mainloop (math barrier).
        const int reuse = j - v.accumulator_buffers * (pingpong ? wgs : 1);
        if (reuse >= 0) b.order(acc_free[static_cast<std::size_t>(reuse)], mma);
        if (pingpong && j > 0) b.order(last_mma[static_cast<std::size_t>(j - 1)], mma);
        if (consumer_gate >= 0) b.order(consumer_gate, mma);
      }
      prev = mma;
    }
    last_mma[static_cast<std::size_t>(j)] = prev;
    // Stream-K: a piece that does not hold K iteration 0 posts an fp32 partial and signals the
    // tile's flag; the owner waits for all of them, reads and adds them, then runs the epilogue.
    if (w.fixup == Fixup::contribute) {
      const int cvt = b.add(simt_node(fmt::format("cvtP{}", j), role, c_elems / consumer_threads, consumer_threads));
      b.edge(prev, cvt);
      const int st = b.add(memory_node(fmt::format("stP{}", j), NodeKind::store, MemEngine::tma, role, c_elems * 4.0,
                                       t_workspace, {item_param(j, p_tile_id), item_param(j, p_k_base), {}}));
      b.edge(cvt, st);
      graph::Node sig;
      sig.id = fmt::format("post{}", j);
      sig.kind = NodeKind::signal;
      sig.role = role;
      sig.flag = graph::FlagRef{0, item_param(j, p_tile_id)};
      const int post = b.add(sig);
      b.edge(st, post);
      last_mma[static_cast<std::size_t>(j)] = prev;
      acc_free[static_cast<std::size_t>(j)] = cvt;
      store_of[static_cast<std::size_t>(j)] = st;
      continue;
    }
    int before = prev;
    if (w.fixup == Fixup::own) {
      graph::Node wait;
      wait.id = fmt::format("fixup{}", j);
      wait.kind = NodeKind::wait;
      wait.role = role;
      wait.flag = graph::FlagRef{0, item_param(j, p_tile_id)};
      wait.value = static_cast<std::int64_t>(w.peers.size());
      const int wt = b.add(wait);
      b.edge(prev, wt, EdgeKind::order);
      const int add = b.add(simt_node(fmt::format("addP{}", j), role, c_elems * static_cast<double>(w.peers.size()) / consumer_threads,
                                      consumer_threads));
      for (std::int64_t peer : w.peers) {
        const int ld = b.add(memory_node(fmt::format("ldP{}_{}", j, peer), NodeKind::load, MemEngine::tma, role,
                                         c_elems * 4.0, t_workspace, {item_param(j, p_tile_id), {-1, peer}, {}}));
        b.edge(wt, ld, EdgeKind::order);
        b.edge(ld, add);
      }
      before = add;
    }
    // Epilogue.
    if (s.reads_c && !split) {
      const int lc = b.add(memory_node(fmt::format("ldC{}", j), NodeKind::load, MemEngine::tma, role,
                                       c_elems * element_bytes(p.c_type), t_c, {item_param(j, p_tile_m), item_param(j, p_tile_n), {}}));
      b.edge(prev, lc, EdgeKind::order);
      before = lc;
    }
    const double out_elem_bytes = split ? 4.0 : element_bytes(p.c_type);
    const auto store_node = [&](const std::string& sfx, double bytes) {
      return split ? b.add(memory_node("stW" + sfx, NodeKind::store, MemEngine::tma, role, bytes, t_workspace,
                                       {item_param(j, p_tile_m), item_param(j, p_tile_n), item_param(j, p_split)}))
                   : b.add(memory_node("stC" + sfx, NodeKind::store, MemEngine::tma, role, bytes, t_c,
                                       {item_param(j, p_tile_m), item_param(j, p_tile_n), {}}));
    };
    // Sub-tiles of the TMA epilogue, when the schedule names them: convert, stage in shared
    // memory once the TMA engine has read out the sub-tile `epilogue_stages` back (that buffer's
    // bulk-group read wait), TMA-store. Otherwise one convert / stage / store of the whole tile,
    // its buffer reused after the previous tile's store.
    const bool subtiled = s.epilogue_tile_m > 0 && s.epilogue_tile_n > 0 && s.epilogue_stages > 0;
    const int subs = subtiled ? ((s.tile.m + s.epilogue_tile_m - 1) / s.epilogue_tile_m) *
                                    ((s.tile.n + s.epilogue_tile_n - 1) / s.epilogue_tile_n)
                              : 1;
    const double sub_elems = c_elems / subs;
    int cvt = before, st = -1;
    for (int q = 0; q < subs; ++q) {
      const std::string sfx = subs == 1 ? fmt::format("{}", j) : fmt::format("{}_{}", j, q);
      const int c = b.add(simt_node("cvt" + sfx, role, epilogue_ops_per_element(s.epilogue) * sub_elems / consumer_threads,
                                    consumer_threads));
      b.edge(cvt, c);
      cvt = c;
      const int st_smem = b.add(smem_node("stsm" + sfx, role, sub_elems * out_elem_bytes));
      b.edge(cvt, st_smem);
      st = store_node(sfx, sub_elems * out_elem_bytes);
      if (subtiled) {
        const auto ring = static_cast<std::size_t>(s.epilogue_stages);
        if (staged_reads.size() >= ring) b.order(staged_reads[staged_reads.size() - ring], st_smem);
        // fence + barrier + issue; the next sub-tile's convert follows it (the same threads)
        const int fence = b.add(frontend::delay_node("fence" + sfx, role, v.store_fence_cycles));
        b.edge(st_smem, fence);
        cvt = fence;
        const int rd = b.add(smem_node("rdsm" + sfx, role, sub_elems * out_elem_bytes));  // the TMA engine reads it out
        b.edge(fence, rd);
        b.edge(rd, st);
        staged_reads.push_back(rd);
      } else {
        if (j > 0) b.order(store_of[static_cast<std::size_t>(j - 1)], st_smem);  // staging buffer reused
        b.edge(st_smem, st);
      }
      if (q == subs - 1) acc_free[static_cast<std::size_t>(j)] = v.accumulators_free_after_convert ? cvt : st_smem;
    }
    store_of[static_cast<std::size_t>(j)] = st;
  }
  return b.take();
}

namespace {

// Tensor-pipe cycles of one K step's wgmma on the spec (tensor.wgmma_overhead included), the
// count and shape build_ws_template gives the step's MMA node.
double k_step_mma_cycles(const Problem& p, const Schedule& s, const hw::GpuSpec& spec) {
  const auto fam = spec.tensor.flops_per_cycle.find(TensorInst::wgmma);
  if (fam == spec.tensor.flops_per_cycle.end()) return 0;
  const auto rate = fam->second.find(p.a_type);
  if (rate == fam->second.end() || rate->second <= 0) return 0;
  const int m_extent = s.swap_ab ? s.tile.n : s.tile.m, n_extent = s.swap_ab ? s.tile.m : s.tile.n;
  const int n_inst = std::min(n_extent, 256), k_inst = mma_k(p.a_type);
  const double count = static_cast<double>((m_extent + 63) / 64) * ((n_extent + n_inst - 1) / n_inst) *
                       ((s.tile.k + k_inst - 1) / k_inst);
  const double inst = 2.0 * 64 * n_inst * k_inst / rate->second;
  return count * spec.tensor.wgmma_cycles(inst);
}

class HopperLowering final : public KernelLowering {
 public:
  std::string_view name() const override { return "hopper_warpspecialized"; }
  int ctas_per_sm(const Problem& p, const Schedule& s, const hw::GpuSpec& spec) const override {
    (void)p;
    (void)s;
    (void)spec;
    return 1;  // setmaxnreg hands the whole register file to one CTA
  }
  graph::Kernel build(const Problem& p, const Schedule& s, const Plan& plan, const hw::GpuSpec& spec) const override {
    if (spec.arch == "ampere")
      throw InputError(fmt::format("schedule \"{}\" is Hopper warp-specialised (TMA + wgmma), which {} cannot run",
                                   s.name, spec.name));
    graph::Kernel k;
    k.name = s.name.empty() ? "gemm_sm90_ws" : s.name;
    declare_tensors(k, p, plan);
    const int wgs = std::max(1, s.consumer_warpgroups);
    k.cta.threads = 128 * (1 + wgs);
    // setmaxnreg shares the register file: the CTA takes it whole (one CTA per SM).
    k.cta.registers_per_thread = 65536 / k.cta.threads / 8 * 8;
    k.cta.shared_memory = Bytes{ws_shared_memory(p, s, spec)};
    k.cta.cluster = {plan.cluster_m * plan.cluster_n, 1, 1};
    WsVariant v{TensorInst::wgmma, 1, false, spec.tma.store_fence.value, spec.l2.hit_latency.value};
    v.k_step_floor_cycles = spec.tensor.ws_k_step_floor.value;
    v.k_step_mma_cycles = k_step_mma_cycles(p, s, spec);
    fill_grid(k, plan, [&](const std::vector<WorkItem>& items) { return build_ws_template(p, s, plan, v, items); });
    return k;
  }
};

}  // namespace

std::unique_ptr<KernelLowering> make_hopper_lowering() { return std::make_unique<HopperLowering>(); }

}  // namespace tgsim::gemm
