// Hand-computed latencies on the toy GPU (tests/sim/engine/test_machine.h): 1 cycle = 1000 ps,
// 1 TB/s = 1 byte per ps.
#include <gtest/gtest.h>

#include "sim/engine/simulator.h"
#include "sim/units/error.h"
#include "tests/sim/engine/test_machine.h"

namespace tgsim {
namespace {

using testing::delay_node;
using testing::load_node;
using testing::make_template;
using testing::one_kernel;
using testing::smem_node;
using testing::toy_gpu;
using testing::tracked_load_kernel;
using testing::wgmma_node;

Duration simulate(const graph::TileGraph& g, const hw::GpuSpec& spec) {
  engine::Simulator sim(g, spec);
  return sim.run().latency;
}

TEST(Engine, SingleLoadIsTransferPlusDramLatency) {
  // 1,000,000 B at 1 TB/s = 1,000,000 ps; HBM latency 500 cycles = 500,000 ps.
  auto g = one_kernel(make_template({load_node("ld", 1'000'000)}, {}));
  EXPECT_EQ(simulate(g, toy_gpu()).count(), 1'500'000);
}

TEST(Engine, SingleWgmmaIsFlopsOverRate) {
  // 8 x m64n256k16 = 8 * 2*64*256*16 = 4,194,304 FLOP at 4096 FLOP/cycle = 1024 cycles.
  auto g = one_kernel(make_template({wgmma_node("mma", 8)}, {}));
  EXPECT_EQ(simulate(g, toy_gpu()).count(), 1'024'000);
}

TEST(Engine, NarrowWgmmaTakesItsMeasuredOverhead) {
  // m64n16k16 on the toy GPU (4096 FLOP/cycle): F = 32,768 / 4096 = 8 cycles per instruction.
  // With a 16-cycle overhead it takes max(8, 16 + 8 / 2) = 20 cycles: 8 instructions, 160 cycles.
  // m64n256k16 (F = 128) stays at its rate: max(128, 16 + 64) = 128.
  auto spec = toy_gpu();
  graph::Node narrow = wgmma_node("n", 8);
  narrow.shape = {64, 16, 16};
  auto g = one_kernel(make_template({narrow}, {}));
  EXPECT_EQ(simulate(g, spec).count(), 64'000);
  spec.tensor.wgmma_overhead = Cycles{16};
  EXPECT_EQ(simulate(g, spec).count(), 160'000);
  auto wide = one_kernel(make_template({wgmma_node("w", 8)}, {}));
  EXPECT_EQ(simulate(wide, spec).count(), 1'024'000);
}

TEST(Engine, LoadThenMmaChainAdds) {
  auto g = one_kernel(make_template({load_node("ld", 1'000'000), wgmma_node("mma", 8)}, {{0, 1}}));
  EXPECT_EQ(simulate(g, toy_gpu()).count(), 1'500'000 + 1'024'000);
}

TEST(Engine, MmaResultLatencyAppliesOnlyLeavingTheTensorPipe) {
  auto spec = toy_gpu();
  spec.tensor.latency = Cycles{100};
  // mma -> mma -> delay(0): the chain is pipelined, only the final hand-off pays 100 cycles.
  auto g = one_kernel(make_template({wgmma_node("a", 8), wgmma_node("b", 8), delay_node("d", 0)}, {{0, 1}, {1, 2}}));
  EXPECT_EQ(simulate(g, spec).count(), 2 * 1'024'000 + 100'000);
}

TEST(Engine, MmaSyncResultUsesItsOwnLatencyWhereTheSpecHasIt) {
  auto spec = toy_gpu();
  spec.tensor.latency = Cycles{100};
  spec.tensor.mma_sync_latency = Cycles{30};
  // 4 warps, one per sub-partition, 8 m16n8k16 each: 8 * 4096 FLOP / (2048 / 4 per SP) = 64 cycles,
  // then the mma.sync hand-off (30), not the wgmma one (100).
  graph::Node mma = wgmma_node("m", 8);
  mma.inst = TensorInst::mma_sync;
  mma.shape = {16, 8, 16};
  auto g = one_kernel(make_template({mma, delay_node("d", 0)}, {{0, 1}}));
  EXPECT_EQ(simulate(g, spec).count(), 64'000 + 30'000);
  spec.tensor.mma_sync_latency = Cycles{0};  // not known: tensor.latency
  EXPECT_EQ(simulate(g, spec).count(), 64'000 + 100'000);
}

TEST(Engine, CpAsyncWritesOccupyTheSharedMemoryPipeTmaDoesNot) {
  // Node 1, a 128,000 B shared-memory move, holds the pipe from 0 to 1,000,000 ps (128 B/cycle).
  // Node 0 loads 12,800 B: its transfer ends at 12,800 ps. By cp.async its 100 cycles of writes
  // fall while the pipe is busy, so they follow node 1 (to 1,100,000 ps); node 2 (a 1-cycle move
  // after the load, ready at 12,800 + 500,000 ps of HBM latency) waits for them. By TMA it
  // waits only for node 1.
  graph::Node ld = load_node("ld", 12'800);
  ld.engine = graph::MemEngine::cp_async;
  auto g = one_kernel(make_template({ld, smem_node("busy", 128'000), smem_node("after", 128)}, {{0, 2}}));
  EXPECT_EQ(simulate(g, toy_gpu()).count(), 1'100'000 + 1'000);
  g.kernels[0].templates[0].nodes[0].engine = graph::MemEngine::tma;
  EXPECT_EQ(simulate(g, toy_gpu()).count(), 1'000'000 + 1'000);
}

TEST(Engine, NarrowCpAsyncCostsItsMeasuredCyclesPerWarpInstruction) {
  // The same 12,800 B cp.async as above, 4 bytes per thread: 12,800 / (32 x 4) = 100 warp
  // instructions at 6 cycles each hold the pipe 600 cycles when issued (0-600,000 ps), so node 1
  // follows them (to 1,600,000 ps). Without a measured cost the copy is charged by bytes (100
  // cycles, 0-100,000 ps: node 1 ends at 1,100,000).
  graph::Node ld = load_node("ld", 12'800);
  ld.engine = graph::MemEngine::cp_async;
  ld.access = 4;
  auto g = one_kernel(make_template({ld, smem_node("busy", 128'000), smem_node("after", 128)}, {{0, 2}}));
  hw::GpuSpec spec = toy_gpu();
  EXPECT_EQ(simulate(g, spec).count(), 1'100'000 + 1'000);
  spec.sm.cp_async_4b_cycles = Cycles{6};
  EXPECT_EQ(simulate(g, spec).count(), 1'600'000 + 1'000);
  g.kernels[0].templates[0].nodes[0].access = 8;  // 50 instructions; no 8-byte cost: by bytes
  EXPECT_EQ(simulate(g, spec).count(), 1'100'000 + 1'000);
  spec.sm.cp_async_8b_cycles = Cycles{6};
  EXPECT_EQ(simulate(g, spec).count(), 1'300'000 + 1'000);
}

// A 12,800 B load from HBM by `engine` at `access` bytes per thread, then an independent 1-cycle
// shared-memory move.
graph::TileGraph load_then_move(graph::MemEngine engine, int access) {
  graph::Node ld = load_node("ld", 12'800);
  ld.engine = engine;
  ld.access = access;
  return one_kernel(make_template({ld, smem_node("after", 128)}, {}));
}

TEST(Engine, NarrowCpAsyncTakesThePipeWhenIssuedSixteenByteWhenItsDataArrives) {
  // A 12,800 B cp.async from HBM and an independent 1-cycle shared-memory move. In 4-byte copies
  // (100 warp instructions x 6 cycles) the LSU works through the copies when they are issued, at
  // 0-600,000 ps, and the move queues behind them: it ends at 601,000, after the copy's data has
  // arrived (12,800 + 500,000 ps of HBM latency). In 16-byte copies the pipe's 100 cycles of
  // writes come while the data arrives, after the move (0-1,000): the run ends with the copy.
  auto g = load_then_move(graph::MemEngine::cp_async, 4);
  hw::GpuSpec spec = toy_gpu();
  spec.sm.cp_async_4b_cycles = Cycles{6};
  EXPECT_EQ(simulate(g, spec).count(), 601'000);
  g.kernels[0].templates[0].nodes[0].access = 16;
  EXPECT_EQ(simulate(g, spec).count(), 512'800);
}

TEST(Engine, RegisterStagedLoadsTakeTheL1PipeWhenIssued) {
  // A plain load of 12,800 B at 2 bytes per thread (sm75 GEMMs' ld.global.u16): 12,800 / (32 x 2)
  // = 200 warp instructions at 3 cycles hold the shared-memory pipe from its issue at 0 to
  // 600,000 ps, so the independent 1-cycle move behind it ends at 601,000; the load's data
  // arrives at 12,800 + 500,000 ps. Rows 128-byte aligned cost 5 cycles each, 16-byte aligned 4.
  auto g = load_then_move(graph::MemEngine::plain, 2);
  hw::GpuSpec spec = toy_gpu();
  spec.sm.ldg_2b_cycles = Cycles{3};
  spec.sm.ldg_2b_aligned_pitch_cycles = Cycles{5};
  spec.sm.ldg_2b_pitch16_cycles = Cycles{4};
  EXPECT_EQ(simulate(g, spec).count(), 601'000);
  g.kernels[0].templates[0].nodes[0].pitch_alignment = 8;  // below 16 bytes: the odd-pitch cost
  EXPECT_EQ(simulate(g, spec).count(), 601'000);
  g.kernels[0].templates[0].nodes[0].pitch_alignment = 32;
  EXPECT_EQ(simulate(g, spec).count(), 801'000);
  g.kernels[0].templates[0].nodes[0].pitch_alignment = 128;
  EXPECT_EQ(simulate(g, spec).count(), 1'001'000);
  // A store of 2 bytes per thread is charged the same way.
  g.kernels[0].templates[0].nodes[0].kind = graph::NodeKind::store;
  EXPECT_EQ(simulate(g, spec).count(), 1'001'000);
}

TEST(Engine, MmaSyncK8OnSixteenBitTypesRunsAtItsMeasuredFraction) {
  // 4 warps, 8 m16n8k8 bf16 each: 8 x 2048 FLOP / 512 FLOP per cycle per sub-partition = 32
  // cycles; at half the m16n8k16 rate, 64.
  graph::Node mma = wgmma_node("m", 8);
  mma.inst = TensorInst::mma_sync;
  mma.shape = {16, 8, 8};
  auto g = one_kernel(make_template({mma}, {}));
  hw::GpuSpec spec = toy_gpu();
  EXPECT_EQ(simulate(g, spec).count(), 32'000);
  spec.tensor.mma_sync_k8_fraction = 0.5;
  EXPECT_EQ(simulate(g, spec).count(), 64'000);
}

TEST(Engine, TwoConcurrentLoadsShareHbm) {
  // Two CTAs on two SMs each load 1 MB at once: the transfer part doubles (flow sharing).
  auto one = one_kernel(make_template({load_node("ld", 1'000'000)}, {}), 1);
  auto two = one_kernel(make_template({load_node("ld", 1'000'000)}, {}), 2);
  const auto lat = 500'000;
  EXPECT_EQ(simulate(two, toy_gpu(2)).count() - lat, 2 * (simulate(one, toy_gpu(2)).count() - lat));
}

TEST(Engine, FlowsRebalanceWhenOneEnds) {
  // 1 MB (SM 0) and 3 MB (SM 1) start together: both run at 0.5 B/ps until the small one ends at
  // 2,000,000 ps, then the big one has 2 MB left at 1 B/ps: ends at 4,000,000 ps (+ latency).
  graph::TileGraph g = one_kernel(make_template({load_node("small", 1'000'000)}, {}));
  g.kernels.push_back(one_kernel(make_template({load_node("big", 3'000'000)}, {})).kernels[0]);
  g.kernels[1].stream = 1;
  const hw::GpuSpec spec = toy_gpu();  // Simulator keeps a reference: the spec must outlive it
  engine::Simulator sim(g, spec);
  auto r = sim.run();
  EXPECT_EQ(r.kernels[0].end.count(), 2'000'000 + 500'000);
  EXPECT_EQ(r.latency.count(), 4'000'000 + 500'000);
}

TEST(Engine, OneSmStreamsItsRequestsInOrder) {
  // Two 1 MB loads from one CTA: the port serves them in issue order, the second transfer
  // overlapping the first one's latency: 1 us + 0.5 us, then 2 us + 0.5 us.
  auto g = one_kernel(make_template({load_node("a", 1'000'000), delay_node("x", 0), load_node("b", 1'000'000)},
                                    {{0, 1}}));
  const hw::GpuSpec spec = toy_gpu();
  engine::Simulator sim(g, spec);
  EXPECT_EQ(sim.run().latency.count(), 2'500'000);
}

TEST(Engine, WavesOfCtas) {
  // 5 CTAs of 1000 cycles, one CTA per SM (shared memory), 2 SMs: ceil(5/2) = 3 waves.
  auto g = one_kernel(make_template({delay_node("d", 1000)}, {}), 5, 200 * 1024);
  EXPECT_EQ(simulate(g, toy_gpu(2)).count(), 3 * 1'000'000);
  const hw::GpuSpec spec = toy_gpu(2);
  engine::Simulator sim(g, spec);
  auto r = sim.run();
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].max_ctas_per_sm, 1);
  EXPECT_DOUBLE_EQ(r.kernels[0].waves, 2.5);
}

TEST(Engine, OccupancyLetsTwoCtasShareAnSm) {
  // 100 KiB each: two fit in 228 KiB, so 4 CTAs on 2 SMs run in one wave.
  auto g = one_kernel(make_template({delay_node("d", 1000)}, {}), 4, 100 * 1024);
  EXPECT_EQ(simulate(g, toy_gpu(2)).count(), 1'000'000);
}

TEST(Engine, TensorPipeIsSharedByCtasOnOneSm) {
  // Two CTAs on one SM each issue 1024 cycles of wgmma: the pipe serialises them.
  auto g = one_kernel(make_template({wgmma_node("mma", 8)}, {}), 2, 1024);
  EXPECT_EQ(simulate(g, toy_gpu(1)).count(), 2 * 1'024'000);
}

// Two kernels of one CTA that waits 1000 cycles, the second named `second`, both on stream 0.
graph::TileGraph two_delay_kernels(const char* second) {
  auto g = one_kernel(make_template({delay_node("d", 1000)}, {}));
  g.kernels.push_back(g.kernels[0]);
  g.kernels[1].name = second;
  return g;
}

TEST(Engine, KernelsOnOneStreamRunBackToBackWithLaunchGap) {
  auto spec = toy_gpu();
  spec.launch.kernel_overhead = from_us(2);
  spec.launch.queued_kernel_gap = from_ns(500);
  auto g = two_delay_kernels("k2");
  // launch onto the idle stream, kernel, queued-kernel gap, kernel
  EXPECT_EQ(simulate(g, spec).count(), 2'000'000 + 1'000'000 + 500'000 + 1'000'000);
}

TEST(Engine, AProgrammaticKernelStartsThePdlGapAfterItsPredecessor) {
  auto spec = toy_gpu();
  spec.launch.kernel_overhead = from_us(2);
  spec.launch.queued_kernel_gap = from_ns(1500);
  spec.launch.pdl_kernel_gap = from_ns(400);
  auto g = two_delay_kernels("reduce");
  g.kernels[1].programmatic = true;
  EXPECT_EQ(simulate(g, spec).count(), 2'000'000 + 1'000'000 + 400'000 + 1'000'000);
  g.kernels[1].programmatic = false;
  EXPECT_EQ(simulate(g, spec).count(), 2'000'000 + 1'000'000 + 1'500'000 + 1'000'000);
}

TEST(Engine, ACudaGraphPaysOneGraphLaunchThenNodeGaps) {
  auto spec = toy_gpu();
  spec.launch.kernel_overhead = from_us(2);
  spec.launch.queued_kernel_gap = from_ns(500);
  spec.launch.graph_launch_overhead = from_us(3);
  spec.launch.graph_kernel_overhead = from_ns(250);
  auto g = two_delay_kernels("k2");
  for (auto& k : g.kernels) k.in_cuda_graph = true;
  // the graph's launch, kernel, the gap between graph nodes, kernel
  EXPECT_EQ(simulate(g, spec).count(), 3'000'000 + 1'000'000 + 250'000 + 1'000'000);
  // a branch forked inside the graph (an `after` dependency, another stream) is no new launch
  g.kernels[1].stream = 1;
  g.kernels[1].after = {0};
  EXPECT_EQ(simulate(g, spec).count(), 3'000'000 + 1'000'000 + 250'000 + 1'000'000);
}

TEST(Engine, KernelsOnTwoStreamsOverlap) {
  auto g = two_delay_kernels("k2");
  g.kernels[1].stream = 1;
  EXPECT_EQ(simulate(g, toy_gpu(2)).count(), 1'000'000);
}

TEST(Engine, SignalReleasesWaitAcrossCtas) {
  graph::TileGraph g;
  g.flags.push_back(graph::Flag{"ready", graph::FlagScope::gpu});
  graph::Node sig;
  sig.id = "sig";
  sig.kind = graph::NodeKind::signal;
  sig.flag = graph::FlagRef{0, {}};
  graph::Node wait = sig;
  wait.id = "wait";
  wait.kind = graph::NodeKind::wait;
  // CTA 0 (param 0 = 1): delay 1000 then signal; CTA 1 (param 0 = 0): wait then nothing.
  // Simplest: template [delay -> signal] for group 0 and [wait] for group 1.
  graph::Kernel k;
  k.name = "k";
  k.cta.threads = 128;
  k.cta.shared_memory = Bytes{1024};
  k.templates.push_back(make_template({delay_node("d", 1000), sig}, {{0, 1}}));
  k.templates.push_back(make_template({wait}, {}));
  k.templates[1].name = "waiter";
  k.grid.push_back(graph::CtaGroup{1, 1, 0, {}});  // the waiter is launched first
  k.grid.push_back(graph::CtaGroup{0, 1, 0, {}});
  g.kernels.push_back(k);
  // Signal at 1000 cycles; a GPU-scope flag wakes the waiter 2 x 200 cycles (L2 round trip) later.
  EXPECT_EQ(simulate(g, toy_gpu(2)).count(), 1'000'000 + 400'000);
}

TEST(Engine, DeadlockIsReportedWithTheStuckNode) {
  graph::TileGraph g;
  g.flags.push_back(graph::Flag{"never", graph::FlagScope::gpu});
  graph::Node wait;
  wait.id = "wait_forever";
  wait.kind = graph::NodeKind::wait;
  wait.flag = graph::FlagRef{0, {}};
  g = [&] {
    auto x = one_kernel(make_template({wait, delay_node("after", 10)}, {{0, 1}}));
    x.flags = g.flags;
    return x;
  }();
  const hw::GpuSpec spec = toy_gpu();
  engine::Simulator sim(g, spec);
  try {
    sim.run();
    FAIL() << "expected a deadlock";
  } catch (const SimulationError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("deadlock"), std::string::npos) << msg;
    EXPECT_NE(msg.find("wait_forever"), std::string::npos) << msg;
    EXPECT_NE(msg.find("\"never\""), std::string::npos) << msg;
    EXPECT_NE(msg.find("1 more nodes blocked"), std::string::npos) << msg;
  }
}

TEST(Engine, L2HitAvoidsHbm) {
  // Two loads of the same tile, one after the other: the second hits (L2 path, 200-cycle latency).
  graph::TileGraph g = one_kernel(make_template({load_node("a", 1'000'000), load_node("b", 1'000'000)}, {{0, 1}}));
  g.kernels[0].tensors.push_back(graph::Tensor{"A", Bytes{1'000'000}});
  for (auto& n : g.kernels[0].templates[0].nodes) n.tile.tensor = 0;
  const hw::GpuSpec spec = toy_gpu();
  engine::Simulator sim(g, spec);
  auto r = sim.run();
  EXPECT_EQ(r.l2_hits, 1);
  EXPECT_EQ(r.l2_misses, 1);
  EXPECT_EQ(r.latency.count(), 1'500'000 + 1'200'000);
}

TEST(Engine, DirtyL2WritesBackWhatItEvicts) {
  // L2 starts full of dirty lines: a 1 MB miss must evict 1 MB of them, written back to HBM
  // while the load streams in. Sharing HBM, both take 2 us: the load ends at 2 us + 500 ns.
  auto spec = toy_gpu();
  spec.l2.capacity = Bytes{1'000'000};
  const graph::TileGraph g = tracked_load_kernel(1'000'000);
  engine::SimOptions opts;
  opts.l2_starts_dirty = true;
  EXPECT_EQ(engine::Simulator(g, spec, opts).run().latency.count(), 2'000'000 + 500'000);
  EXPECT_EQ(engine::Simulator(g, spec).run().latency.count(), 1'000'000 + 500'000);  // clean L2
}

TEST(Engine, DirtyFractionWritesBackOnlyTheDirtyShare) {
  // Half of the 1 MB L2 dirty, every other 8 KiB piece (62 of 123 pieces, the last 576 B):
  // 500,288 B are written back. Both flows share HBM until the write-back ends at 1,000,576 ps;
  // the load's other 499,712 B then run alone; 500 ns latency after that.
  auto spec = toy_gpu();
  spec.l2.capacity = Bytes{1'000'000};
  spec.l2.flush_dirty_fraction = 0.5;
  const graph::TileGraph g = tracked_load_kernel(1'000'000);
  engine::SimOptions opts;
  opts.l2_starts_dirty = true;
  EXPECT_EQ(engine::Simulator(g, spec, opts).run().latency.count(), 1'000'576 + 499'712 + 500'000);
}

TEST(Engine, DirtyStartNeverFasterAndMoreDirtyNeverFaster) {
  // 8 CTAs streaming 64 tiles of 8 KiB each through 4 stages: a dirty start only adds HBM traffic.
  std::vector<graph::Node> nodes;
  std::vector<graph::Edge> edges;
  for (int i = 0; i < 64; ++i) {
    nodes.push_back(load_node("ld" + std::to_string(i), 8192));
    nodes.back().tile = graph::TileRef{0, {graph::Coord{0, 0}, graph::Coord{-1, i}, graph::Coord{}}};
  }
  for (int i = 0; i + 1 < 64; ++i) edges.push_back({i, i + 1});
  graph::TileGraph g = one_kernel(make_template(nodes, edges), 8);
  g.kernels[0].tensors.push_back(graph::Tensor{"A", Bytes{8 * 64 * 8192}});
  g.kernels[0].grid[0].params_per_cta = 1;
  for (int c = 0; c < 8; ++c) g.kernels[0].grid[0].params.push_back(c);
  auto spec = toy_gpu(8);
  spec.l2.capacity = Bytes{2 << 20};
  engine::SimOptions dirty;
  dirty.l2_starts_dirty = true;
  const auto clean_ps = engine::Simulator(g, spec).run().latency.count();
  double last = static_cast<double>(clean_ps);
  for (double f : {0.25, 0.5, 1.0}) {
    spec.l2.flush_dirty_fraction = f;
    const auto t = static_cast<double>(engine::Simulator(g, spec, dirty).run().latency.count());
    EXPECT_GE(t, last) << "fraction " << f;
    last = t;
  }
  EXPECT_GT(last, static_cast<double>(clean_ps));
}

TEST(Engine, CtaThatDoesNotFitIsAnInputError) {
  auto g = one_kernel(make_template({delay_node("d", 1)}, {}), 1, 300 * 1024);
  EXPECT_THROW(engine::Simulator(g, toy_gpu()), InputError);
}

TEST(Engine, MissingTensorPathIsAnInputError) {
  auto t = make_template({wgmma_node("mma", 1)}, {});
  t.nodes[0].dtype = DType::fp8_e4m3;
  EXPECT_THROW(engine::Simulator(one_kernel(t), toy_gpu()), InputError);
}

}  // namespace
}  // namespace tgsim
