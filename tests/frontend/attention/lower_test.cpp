// Attention lowering: work decomposition (causal skipping, split-KV, GQA packing), the tensor-core
// work the graphs carry, and simulated invariants.
#include <gtest/gtest.h>

#include "frontend/attention/lower.h"
#include "frontend/attention/lowering/softmax.h"
#include "frontend/attention/lowering/work.h"
#include "frontend/attention/request.h"
#include "frontend/attention/schedule.h"
#include "sim/engine/simulate.h"
#include "sim/graph/validate.h"
#include "sim/hw/spec_json.h"
#include "sim/units/error.h"

namespace tgsim::attention {
namespace {

hw::GpuSpec gpu(const std::string& name) { return hw::load_gpu_preset(name, TGSIM_SOURCE_DIR "/configs"); }

Problem prefill(std::int64_t b, std::int64_t h, std::int64_t s, std::int64_t d, bool causal) {
  return Problem{b, h, h, s, s, d, causal, DType::bf16};
}

// Tensor-core FLOPs of a kernel: every MMA node of every CTA.
double mma_flops(const graph::Kernel& k) {
  double f = 0;
  for (const auto& g : k.grid) {
    const auto& t = k.templates[static_cast<std::size_t>(g.template_index)];
    for (const auto& n : t.nodes) {
      if (n.kind != graph::NodeKind::mma) continue;
      const double per = 2.0 * n.shape[0] * n.shape[1] * n.shape[2] * static_cast<double>(n.count);
      const int warps = n.inst == TensorInst::mma_sync ? t.roles[static_cast<std::size_t>(n.role)].warps : 1;
      f += per * warps * static_cast<double>(g.count);
    }
  }
  return f;
}

const graph::Node& node(const graph::CtaTemplate& t, const std::string& id) {
  for (const auto& n : t.nodes) {
    if (n.id == id) return n;
  }
  throw std::runtime_error("no node " + id);
}

bool has_edge(const graph::CtaTemplate& t, const std::string& from, const std::string& to) {
  for (const auto& e : t.edges) {
    if (t.nodes[static_cast<std::size_t>(e.from)].id == from && t.nodes[static_cast<std::size_t>(e.to)].id == to) return true;
  }
  return false;
}

double simulate_us(const Problem& p, const Schedule& s, const hw::GpuSpec& spec) {
  const auto l = lower_attention(p, s, spec);
  graph::validate_tile_graph(l.graph, "test");
  engine::SimOptions o;
  o.critical_path = false;
  return to_us(engine::simulate(l.graph, spec, o).latency);
}

TEST(AttentionProblem, VisiblePairsOfABottomRightCausalMask) {
  EXPECT_EQ(prefill(1, 1, 4, 64, true).visible_pairs(), 10.0);  // 1 + 2 + 3 + 4
  Problem p = prefill(1, 1, 3, 64, true);
  p.seq_kv = 9;  // rows see 7, 8, 9 keys
  EXPECT_EQ(p.visible_pairs(), 24.0);
  p.seq_q = 10;
  p.seq_kv = 4;  // the first 6 rows see nothing, then 1..4
  EXPECT_EQ(p.visible_pairs(), 10.0);
  EXPECT_EQ(prefill(2, 3, 128, 64, false).flops(), 4.0 * 2 * 3 * 128 * 128 * 64);
}

TEST(AttentionLowering, Fa2MmaWorkEqualsTheProblemWhenTilesDivide) {
  const auto spec = gpu("h100");
  const Problem p = prefill(4, 16, 1024, 128, false);  // 1024 tiles of 64 rows: no split-KV
  const auto l = lower_attention(p, default_schedule(p, Family::fa2, spec), spec);
  ASSERT_EQ(l.graph.kernels.size(), 1u);
  EXPECT_DOUBLE_EQ(mma_flops(l.graph.kernels[0]), p.flops());
  EXPECT_EQ(l.graph.kernels[0].cta_count(), 4 * 16 * (1024 / 128));
}

// SIMT work of one KV block, hand-computed from softmax.h's SASS counts. FlashAttention-2 d=128,
// 128x64 tiles, 4 warps: a thread holds 64 scores and 128 outputs, so softmax = 8 x 64 + 128 +
// 150 = 790 instructions and exp = 64; they are chained (exp after softmax, PV after exp).
// One 128x64 tile of d=128 over 256 keys (4 KV blocks), lowered for the H200.
graph::CtaTemplate d128_tile(Family family = Family::fa2) {
  Schedule s;
  s.family = family;
  s.block_m = 128;
  s.block_n = 64;
  return lower_attention(prefill(1, 1, 256, 128, false), s, gpu("h200")).graph.kernels[0].templates[0];
}

TEST(AttentionLowering, Fa2SoftmaxCarriesTheCountsOfTheCompiledKernel) {
  const auto t = d128_tile();
  EXPECT_DOUBLE_EQ(node(t, "softmax_1").ops, 8.0 * 64 + 128 + 150);
  EXPECT_DOUBLE_EQ(node(t, "exp_1").ops, 64.0);
  // Row-max chain on the H200: 64 keys / 4 threads = 16 per row, 15 maxes (4 cycles) + 2 x
  // (shuffle 24 + max 4) = 116 cycles, beyond the 1.1 x 64 max instructions issued.
  EXPECT_DOUBLE_EQ(node(t, "softmax_1").cycles.value, 15 * 4.0 + 2 * (24.0 + 4.0) - 1.1 * 64);
  EXPECT_TRUE(has_edge(t, "softmax_1", "exp_1"));
  EXPECT_TRUE(has_edge(t, "exp_1", "ldsmV_1"));
  // cuDNN's kernels issue fewer: 4.75 per score, 130 per block.
  EXPECT_DOUBLE_EQ(softmax_cost(Family::cudnn).fp32_per_score, 4.75);
}


// flash_fwd_kernel.h waits for all its copies at the top of each iteration before the V copy: V_j
// follows K_j's landing (and Q's in the first iteration), K_{j+1} follows V_j's.
TEST(AttentionLowering, Fa2IssuesEachVCopyAfterItsKBlockLanded) {
  const auto t = d128_tile();
  EXPECT_TRUE(has_edge(t, "ldQ", "ldV_0"));
  EXPECT_TRUE(has_edge(t, "ldK_0", "ldV_0"));
  EXPECT_TRUE(has_edge(t, "ldK_1", "ldV_1"));
  EXPECT_TRUE(has_edge(t, "ldV_1", "ldK_2"));
  EXPECT_FALSE(has_edge(t, "ldQ", "ldV_1"));
  // cuDNN's sm80 kernels' code was not read: their V copies keep the PV order only.
  EXPECT_FALSE(has_edge(d128_tile(Family::cudnn_sm80), "ldK_0", "ldV_0"));
}
// flash-attn's d=256 rule: 128x64 tiles of 8 warps where an SM cannot hold two 64x64 CTAs but one
// CTA can have 128 KiB (A100), else 64x64 of 4 warps, 2 CTAs per SM (H100/H200, as recorded).
TEST(AttentionLowering, Fa2HeadDim256TileFollowsTheSharedMemoryRule) {
  const Problem p = prefill(4, 8, 4096, 256, false);
  const Schedule a100 = default_schedule(p, Family::fa2, gpu("a100"));
  EXPECT_EQ(a100.block_m, 128);
  EXPECT_EQ(a100.warps, 8);
  for (const char* g : {"h100", "h200"}) {
    const Schedule s = default_schedule(p, Family::fa2, gpu(g));
    EXPECT_EQ(s.block_m, 64) << g;
    EXPECT_EQ(s.block_n, 64) << g;
    EXPECT_EQ(s.warps, 4) << g;
  }
}

// cuDNN's sm90 structure (its SASS): S waited for before the softmax, PV before the next S, and
// the two warpgroups taking turns on their exponentials (the section after the row max).
TEST(AttentionLowering, CudnnWarpgroupsTakeTurnsOnTheirExponentials) {
  const auto spec = gpu("h200");
  const Problem p = prefill(1, 1, 512, 128, false);
  const Schedule s = default_schedule(p, Family::cudnn, spec);
  EXPECT_FALSE(s.intra_warpgroup_overlap);
  EXPECT_TRUE(s.pingpong_exp);
  const auto l = lower_attention(p, s, spec);
  const auto& t = l.graph.kernels[0].templates[0];
  EXPECT_TRUE(has_edge(t, "S0_1", "max0_1"));
  EXPECT_TRUE(has_edge(t, "max0_1", "softmax0_1"));
  EXPECT_TRUE(has_edge(t, "exp0_1", "softmax1_1"));  // warpgroup 1's exp section after 0's
  EXPECT_TRUE(has_edge(t, "exp1_1", "softmax0_2"));  // and 0's next one after 1's
  EXPECT_TRUE(has_edge(t, "PV0_1", "S0_2"));         // no intra-warpgroup overlap
  EXPECT_FALSE(has_edge(t, "S1_1", "S0_2"));         // not a ping-pong on the GEMMs
  EXPECT_DOUBLE_EQ(node(t, "max0_1").ops, 64.0);     // 64 rows x 128 keys / 128 threads, 1 FMNMX each
  // The row max's dependent chain on the H200 (4-cycle max, 24-cycle shuffle): 31 maxes over a
  // thread's 32 scores of a row, then 2 x (shuffle + max) = 180 cycles, 116 beyond its 64 issued.
  EXPECT_DOUBLE_EQ(node(t, "max0_1").cycles.value, 31 * 4.0 + 2 * (24.0 + 4.0) - 64.0);
}

// Schedule files: every field survives to_json -> schedule_from_json (cuDNN's, with pingpong_exp).
TEST(AttentionSchedule, JsonRoundTripKeepsEveryField) {
  const Problem p = prefill(1, 8, 1024, 128, true);
  for (Family f : {Family::fa2, Family::fa3, Family::cudnn}) {
    const Schedule s = default_schedule(p, f, gpu("h200"));
    const auto j = to_json(s);
    EXPECT_EQ(to_json(schedule_from_json(j, "test")), j) << to_string(f);
  }
  nlohmann::json bad = to_json(default_schedule(p, Family::cudnn, gpu("h200")));
  bad["pingpong_exp"] = 3;
  EXPECT_THROW(schedule_from_json(bad, "f.json"), InputError);
}

TEST(AttentionLowering, CausalSkipsMaskedBlocksAndMasksTheDiagonal) {
  Schedule s;
  s.block_m = 128;
  s.block_n = 64;
  const Problem p = prefill(1, 1, 256, 64, true);
  const auto w = cta_work(p, s, make_tiling(p, s));
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].n_iters, 2);  // rows 0..127 see keys 0..127: blocks 0, 1, both cut by the diagonal
  EXPECT_EQ(w[0].masked, 2);
  EXPECT_EQ(w[1].n_iters, 4);  // rows 128..255: blocks 0, 1 whole, 2, 3 on the diagonal
  EXPECT_EQ(w[1].masked, 2);
  // Causal work is about half: the MMA FLOPs count whole blocks, diagonal ones included.
  const auto spec = gpu("h100");
  const Problem big = prefill(1, 8, 2048, 128, true);
  const auto l = lower_attention(big, default_schedule(big, Family::fa2, spec), spec);
  const double full = prefill(1, 8, 2048, 128, false).flops();
  EXPECT_GT(mma_flops(l.graph.kernels[0]), full / 2);
  EXPECT_LT(mma_flops(l.graph.kernels[0]), full / 2 * 1.1);
}

TEST(AttentionLowering, LongestFirstLaunchesTheLastQueryBlocksFirst) {
  Schedule s;
  s.block_m = 128;
  s.block_n = 128;
  s.longest_first = true;
  const Problem p = prefill(1, 1, 512, 64, true);
  const auto w = cta_work(p, s, make_tiling(p, s));
  ASSERT_EQ(w.size(), 4u);
  EXPECT_EQ(w.front().m_block, 3);
  EXPECT_EQ(w.front().n_iters, 4);
  EXPECT_EQ(w.back().n_iters, 1);
}

TEST(AttentionLowering, PersistentTilesGoToTheCtaFreeFirst) {
  // Tile time estimate: KV blocks + 1. Two CTAs, tiles of 4, 1, 1, 1, 4 blocks in launch order:
  // CTA 0 takes tile 0 (free at 5), CTA 1 tiles 1, 2, 3 (free at 2, 4, 6), CTA 0 then tile 4.
  std::vector<CtaWork> work(5);
  const std::int64_t blocks[] = {4, 1, 1, 1, 4};
  for (std::size_t i = 0; i < work.size(); ++i) {
    work[i].n_iters = blocks[i];
    work[i].m_block = static_cast<std::int64_t>(i);
  }
  const auto ctas = persistent_assignment(work, 2);
  ASSERT_EQ(ctas.size(), 2u);
  ASSERT_EQ(ctas[0].size(), 2u);
  EXPECT_EQ(ctas[0][1].m_block, 4);
  ASSERT_EQ(ctas[1].size(), 3u);
  EXPECT_EQ(ctas[1][2].m_block, 3);
  // Equal tiles go round robin; never more CTAs than tiles.
  std::vector<CtaWork> equal(7);
  for (std::size_t i = 0; i < equal.size(); ++i) equal[i].m_block = static_cast<std::int64_t>(i);
  const auto rr = persistent_assignment(equal, 3);
  EXPECT_EQ(rr[0].size(), 3u);
  EXPECT_EQ(rr[1][1].m_block, 4);
  EXPECT_EQ(persistent_assignment(equal, 100).size(), 7u);
}

TEST(AttentionLowering, CudnnKernelsArePersistentAndPrefetchTheNextTile) {
  const auto spec = gpu("h200");
  const Problem p = prefill(32, 16, 512, 128, false);
  Schedule s = default_schedule(p, Family::cudnn, spec);
  ASSERT_TRUE(s.persistent);
  const auto l = lower_attention(p, s, spec);
  graph::validate_tile_graph(l.graph, "test");
  const auto& k = l.graph.kernels[0];
  EXPECT_EQ(k.cta_count(), spec.sm.count);  // the launch records: grid = 132
  // 2048 tiles of 4 KV blocks: every tile's nodes are there, spread over the persistent CTAs.
  Schedule single = s;
  single.persistent = false;
  const auto ls = lower_attention(p, single, spec);
  const auto node_executions = [](const graph::Kernel& kk) {
    std::int64_t n = 0;
    for (const auto& g : kk.grid) {
      n += g.count * static_cast<std::int64_t>(kk.templates[static_cast<std::size_t>(g.template_index)].nodes.size());
    }
    return n;
  };
  EXPECT_EQ(ls.graph.kernels[0].cta_count(), 32 * 16 * 4);
  EXPECT_EQ(node_executions(k), node_executions(ls.graph.kernels[0]));
  // The next tile's Q is loaded once both warpgroups' last PV of the tile released it (cuDNN's
  // SASS), and its first S waits for the warpgroup's previous epilogue.
  const auto& t = k.templates[0];
  EXPECT_TRUE(has_edge(t, "t0_PV0_3", "t1_ldQ"));
  EXPECT_TRUE(has_edge(t, "t0_PV1_3", "t1_ldQ"));
  EXPECT_TRUE(has_edge(t, "t0_stsmO0", "t1_S0_0"));
  // Overlapping a tile's start-up with its neighbours' is faster than a CTA per tile, and the
  // persistent kernel keeps the invariants: fewer SMs never faster, more bandwidth never slower.
  const double persistent = simulate_us(p, s, spec);
  EXPECT_LT(persistent, simulate_us(p, single, spec));
  auto fewer = spec;
  fewer.sm.count = spec.sm.count - 16;
  EXPECT_GE(simulate_us(p, s, fewer), persistent * 0.9999);
  auto wide = spec;
  wide.hbm.bandwidth = BytesPerSecond{spec.hbm.bandwidth.value * 2};
  EXPECT_LE(simulate_us(p, s, wide), persistent * 1.0001);
  // Only the warp-specialised families are modelled persistent.
  EXPECT_THROW(schedule_from_json(nlohmann::json{{"family", "fa2"}, {"persistent", true}}, "s.json"), InputError);
  EXPECT_TRUE(schedule_from_json(nlohmann::json{{"family", "cudnn"}, {"persistent", true}}, "s.json").persistent);
  EXPECT_EQ(to_json(s).at("persistent"), true);
}

TEST(AttentionLowering, Fa2UnrolledIterationsFetchTheirCode) {
  // PyTorch's flash kernels unroll their masking steps (1; causal with tile-multiple lengths:
  // block_m / block_n = 2 for 128x64) and epilogue; those fetch their instructions.
  const auto count_fetch = [](const graph::CtaTemplate& t) {
    int n = 0;
    for (const auto& node : t.nodes) n += node.kind == graph::NodeKind::simt && node.pipe == graph::SimtPipe::fetch;
    return n;
  };
  const auto spec = gpu("h200");
  const Problem causal = prefill(32, 16, 512, 128, true);  // enough CTAs: no split-KV
  const auto lc = lower_attention(causal, default_schedule(causal, Family::fa2, spec), spec);
  const auto& last = lc.graph.kernels[0].templates.back();  // the m block with all 8 KV blocks
  EXPECT_EQ(count_fetch(last), 3);
  EXPECT_TRUE(has_edge(last, "fetch_7", "PV_7"));
  EXPECT_TRUE(has_edge(last, "PV_5", "fetch_6"));
  const Problem plain = prefill(32, 16, 512, 128, false);
  const auto lp = lower_attention(plain, default_schedule(plain, Family::fa2, spec), spec);
  EXPECT_EQ(count_fetch(lp.graph.kernels[0].templates[0]), 2);  // one iteration and the epilogue
  // No fetch nodes where the spec does not model it (A100 preset) or for other families.
  const auto a100 = gpu("a100");
  const auto la = lower_attention(plain, default_schedule(plain, Family::fa2, a100), a100);
  EXPECT_EQ(count_fetch(la.graph.kernels[0].templates[0]), 0);
  Schedule sm80 = default_schedule(plain, Family::fa2, spec);
  sm80.family = Family::cudnn_sm80;
  EXPECT_EQ(count_fetch(lower_attention(plain, sm80, spec).graph.kernels[0].templates[0]), 0);
}

TEST(AttentionLowering, SplitHeuristicMatchesTheMeasuredLaunch) {
  // H200 (132 SMs, 264 slots), decode b=1, 8 KV heads, 8192 keys in 128-key blocks: the profiler
  // recorded flash_fwd_splitkv_kernel with grid [1, 32, 8] (traces/h200/attention_kernel_info.csv).
  EXPECT_EQ(fa2_split_heuristic(8, 264, 64, 128), 32);
  EXPECT_EQ(fa2_split_heuristic(256, 264, 64, 128), 1);  // b=32 fills the GPU: no split
}

TEST(AttentionLowering, DecodeWithGqaPacksTheGroupAndAddsACombineKernel) {
  const auto spec = gpu("h200");
  const Problem p{1, 32, 8, 1, 8192, 128, false, DType::bf16};
  const auto s = default_schedule(p, Family::fa2, spec);
  EXPECT_TRUE(s.split_kernel);
  const auto l = lower_attention(p, s, spec);
  EXPECT_TRUE(l.schedule.pack_gqa);
  EXPECT_EQ(l.schedule.splits, 32);
  ASSERT_EQ(l.graph.kernels.size(), 2u);
  EXPECT_EQ(l.graph.kernels[0].cta_count(), 32 * 8);  // grid [1, 32, 8]
  EXPECT_EQ(l.graph.kernels[1].cta_count(), 8);       // 32 query rows, 4 per CTA
  EXPECT_EQ(l.graph.kernels[1].after, std::vector<int>{0});
  // FlashAttention-2's combine reads one split per round trip (its SASS loads every split into
  // the same registers); cuDNN's lean reduction four per trip.
  const auto& c = l.graph.kernels[1].templates[0];
  EXPECT_TRUE(has_edge(c, "accumulate_0", "ldOpartial_1"));
  EXPECT_TRUE(has_edge(c, "accumulate_30", "ldOpartial_31"));
  Schedule cudnn = l.schedule;
  cudnn.family = Family::cudnn_sm80;
  const auto lc = lower_attention(p, cudnn, spec);
  const auto& cc = lc.graph.kernels[1].templates[0];
  EXPECT_TRUE(has_edge(cc, "lse", "ldOpartial_3"));
  EXPECT_TRUE(has_edge(cc, "accumulate_0", "ldOpartial_4"));
  // 32 dependent L2 round trips: the combine takes at least 32 x l2.hit_latency.
  engine::SimOptions o;
  o.critical_path = false;
  const auto r = engine::simulate(l.graph, spec, o);
  const double combine_cycles = to_us(r.kernels[1].end - r.kernels[1].start) * r.kernels[1].sm_clock_mhz;
  EXPECT_GT(combine_cycles, 32 * spec.l2.hit_latency.value);
  // Its set-up runs first: the SASS-counted stream of a kernel built for up to 32 splits
  // (545 + 3.7 x 32 instructions), issued one per simt.latency by the warp alone on its
  // sub-partition; it precedes the LSE load. 8 splits: the build for up to 8.
  const auto node = [](const graph::CtaTemplate& t, const std::string& id) {
    for (const auto& n : t.nodes)
      if (n.id == id) return n;
    ADD_FAILURE() << "no node " << id;
    return graph::Node{};
  };
  const graph::Node setup = node(c, "setup");
  EXPECT_DOUBLE_EQ(setup.ops, 545 + 3.7 * 32);
  EXPECT_DOUBLE_EQ(setup.cycles.value, setup.ops * (spec.simt.latency.value - 1));
  EXPECT_TRUE(has_edge(c, "setup", "ldLSE"));
  EXPECT_DOUBLE_EQ(node(cc, "setup").ops, 150);
  EXPECT_GT(combine_cycles, 32 * spec.l2.hit_latency.value + setup.ops * spec.simt.latency.value);
  Schedule eight = l.schedule;
  eight.splits = 8;
  EXPECT_DOUBLE_EQ(node(lower_attention(p, eight, spec).graph.kernels[1].templates[0], "setup").ops, 545 + 3.7 * 8);
}

TEST(AttentionLowering, WarpSpecialisedNeedsHopperAndFittingSharedMemory) {
  const Problem p = prefill(1, 8, 1024, 128, false);
  EXPECT_THROW(lower_attention(p, default_schedule(p, Family::fa3, gpu("a100")), gpu("a100")), InputError);
  Schedule s = default_schedule(p, Family::fa3, gpu("h100"));
  s.stages = 8;
  EXPECT_THROW(lower_attention(p, s, gpu("h100")), InputError);
  Problem bad = p;
  bad.heads_kv = 3;
  EXPECT_THROW(check_problem(bad), InputError);
}

TEST(AttentionSimulation, CausalIsFasterAndFa3BeatsFa2OnHopper) {
  const auto spec = gpu("h100");
  const Problem p = prefill(2, 16, 4096, 128, false);
  const Problem c = prefill(2, 16, 4096, 128, true);
  const double fa2 = simulate_us(p, default_schedule(p, Family::fa2, spec), spec);
  const double fa2_causal = simulate_us(c, default_schedule(c, Family::fa2, spec), spec);
  const double fa3 = simulate_us(p, default_schedule(p, Family::fa3, spec), spec);
  EXPECT_LT(fa2_causal, 0.7 * fa2);
  EXPECT_LT(fa3, fa2);
}

TEST(AttentionSimulation, MoreSmsOrMoreHbmBandwidthNeverSlower) {
  const Problem decode{16, 32, 8, 1, 8192, 128, false, DType::bf16};
  const Problem pre = prefill(1, 16, 2048, 128, true);
  for (const Problem& p : {decode, pre}) {
    auto base = gpu("h100");
    const auto s = default_schedule(p, Family::fa2, base);
    const double t = simulate_us(p, s, base);
    auto wide = base;
    wide.hbm.bandwidth = BytesPerSecond{base.hbm.bandwidth.value * 2};
    EXPECT_LE(simulate_us(p, s, wide), t * 1.0001);
    auto fewer = base;
    fewer.sm.count = base.sm.count - 16;
    EXPECT_GE(simulate_us(p, s, fewer), t * 0.9999);
  }
}

TEST(AttentionSimulation, Deterministic) {
  const auto spec = gpu("h200");
  const Problem p = prefill(1, 8, 2048, 64, true);
  const auto s = default_schedule(p, Family::cudnn, spec);
  EXPECT_EQ(simulate_us(p, s, spec), simulate_us(p, s, spec));
}

}  // namespace
}  // namespace tgsim::attention
