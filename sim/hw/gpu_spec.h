// The hardware description of one GPU: plain data, read once from configs/gpus/*.json by
// sim/hw/spec_json.h, validated, then handed to the models. Models never read JSON.
// Every number in the presets carries its source in the JSON file ("source" fields).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/units/dtype.h"
#include "sim/units/units.h"

namespace tgsim::hw {

// Bandwidth expressed per SM clock (e.g. shared memory: 128 B/clk/SM).
struct BytesPerCycle {
  double value = 0.0;
  auto operator<=>(const BytesPerCycle&) const = default;
};

using TensorInst = tgsim::TensorInst;

struct ClockSpec {
  Hertz boost;             // maximum boost clock
  Hertz base;              // base clock
  std::string model = "constant";  // clock model name (sim/engine/clock/): "constant" or "power"
  // "power" model: the clock the card holds at its power limit when the tensor pipes are busy
  // all the time with 16-bit (or tf32) MMAs. At tensor duty d it runs min(boost, this / d).
  // Zero means "same as boost".
  Hertz sustained_tensor;
  // The same for 8-bit (fp8/int8) MMAs, which draw more power per cycle. Zero: sustained_tensor.
  Hertz sustained_tensor_fp8;
  // The same products for the first tens of milliseconds of load (or for a kernel inside a run
  // whose average tensor activity is lower than its own): the card's fast power limit allows
  // more than its sustained one. At duty d inside a run of average duty D the clock is
  // min(boost, short_term / d, sustained / D). Zero: the sustained value (no short-term headroom).
  Hertz short_term_tensor;
  Hertz short_term_tensor_fp8;
  // How long the densest calibration GEMM (whose clock x duty product at boost is
  // short_term_tensor) holds its boost clock from a card at rest before the slow limit engages.
  // The slow controller spends a budget of (short_term - sustained) x onset; a run from rest whose
  // window demands D x boost engages it after that budget / (D x boost - sustained). Zero: the
  // slow limit applies from the start (every run is taken as steady state).
  Duration sustained_onset{};
  Duration sustained_onset_fp8{};
  // The clock measured while every SM runs a register-only mma.sync loop (no memory traffic),
  // whatever its tensor duty; optional (zero: unknown). The clock models above are calibrated on
  // GEMMs and do not cover such loops; frontend/multigpu (the SM-split family) runs at this.
  Hertz mma_sync_loop;
  // The highest clock an SM really runs at (clock64 cycles per %globaltimer ns) while a kernel
  // issues tensor-core instructions, whatever their duty and below any power limit: the "power"
  // model caps every kernel with tensor work here. NVML may report a higher clock meanwhile.
  // Optional (zero: boost).
  Hertz tensor_max;
  // The same ceiling for a kernel that issues wgmma (Hopper warpgroup MMAs), which runs lower
  // than mma.sync kernels, and lower the busier its tensor pipe: tensor_max_wgmma -
  // tensor_max_wgmma_per_duty x tensor duty. Optional (zero: tensor_max for wgmma kernels too).
  Hertz tensor_max_wgmma;
  Hertz tensor_max_wgmma_per_duty;
  // What else the power limits see besides the tensor duty (the "power" model's power duty, in
  // units of wgmma tensor duty; docs/model.md "Power duty"): an mma.sync's tensor-pipe time counts
  // power_weight_mma_sync (zero: 1), SIMT and SFU pipe time power_weight_simt (zero: none), and
  // each TB/s of HBM traffic power_per_hbm_tbps of the clock x duty product (zero: none).
  double power_weight_mma_sync = 0;
  double power_weight_simt = 0;
  Hertz power_per_hbm_tbps;
  // Shared-memory pipe duty x power_weight_smem, L2 duty (bytes / (SMs x clock x 64 B)) x
  // power_weight_l2, and power_weight_clock added to every kernel's power duty (the part of the
  // SMs' power that grows with the clock alone). Optional (zero: none).
  double power_weight_smem = 0;
  double power_weight_l2 = 0;
  double power_weight_clock = 0;
  bool operator==(const ClockSpec&) const = default;
};

struct SmSpec {
  int count = 0;
  int sub_partitions = 4;
  int max_threads = 2048;
  int max_warps = 64;
  int max_ctas = 32;
  int registers = 65536;             // 32-bit registers per SM
  int register_alloc_unit = 256;     // registers are allocated per warp in units of this many
  Bytes shared_memory;               // usable shared memory per SM
  Bytes shared_memory_per_cta;       // largest opt-in allocation for one CTA
  Bytes reserved_shared_memory_per_cta;  // system use per resident CTA (1 KiB on sm80+)
  BytesPerCycle shared_memory_bandwidth;  // per SM
  BytesPerCycle l2_bandwidth_per_sm;      // SM <-> L2 port, per SM (limits one SM's loads)
  // The same port for TMA loads that hit L2 and whose rows are only 16 (32) bytes aligned (a row
  // pitch that is not a multiple of 32 (64) bytes: tile-graph `pitch_alignment` 16 (32)): most of
  // their 128-byte box rows straddle two lines. 0: not modelled (the aligned port).
  BytesPerCycle l2_bandwidth_per_sm_pitch16{0};
  BytesPerCycle l2_bandwidth_per_sm_pitch32{0};
  // Shared-memory pipe cycles of one warp's cp.async of 4 (8) bytes per thread into a tile laid out
  // for 16-byte vectors (the 128-byte XOR swizzle): bank conflicts make it cost more than its bytes
  // / shared_memory_bandwidth. Zero: charged by bytes like 16-byte copies.
  Cycles cp_async_4b_cycles;
  Cycles cp_async_8b_cycles;
  // While the data of a warp's cp.async is written into an SM's shared memory, the SM's other
  // work stalls: its tensor, SIMT and SFU pipes lose this many cycles per warp instruction, of 4,
  // 8 or 16 bytes per thread alike (calib_fill: a co-resident CTA's ldmatrix, mma.sync and FFMA
  // loops slow by 2.6-4.8 cycles per warp instruction another CTA copies). Zero: not modelled.
  Cycles cp_async_fill_stall_cycles{0};
  // The same for narrow copies (4 or 8 bytes per thread, `access` 4 / 8 load nodes) into the
  // swizzled 128-byte rows of CUTLASS 2.x align2/align4 kernels, whose shared-memory writes meet
  // bank conflicts (calib_fill l2_4b_swz / l2_8b_swz: 5.0-5.9 cycles per warp instruction for
  // ldmatrix and mma.sync victims). Zero: cp_async_fill_stall_cycles.
  Cycles cp_async_narrow_fill_stall_cycles{0};
  // SM cycles per warp instruction of a register-staged ld.global of 2 bytes per thread in
  // CUTLASS's align1 thread map (load nodes with `access` 2: the sm75 GEMM fallbacks): the L1
  // pipe's cost of an instruction whose lanes touch 8 rows. Zero: charged by bytes.
  Cycles ldg_2b_cycles;
  // The same when the row pitch is a multiple of 128 bytes (every row at one offset within its
  // lines; nodes with `pitch_alignment` 128), and of 16 but not 128 bytes (`pitch_alignment` 16,
  // 32 or 64). Default: ldg_2b_cycles.
  Cycles ldg_2b_aligned_pitch_cycles;
  Cycles ldg_2b_pitch16_cycles;
  // Cycles of its sub-partition per warp instruction of code outside the SM's fast instruction
  // cache, issue included (tile-graph simt nodes on the `fetch` pipe hold the issue timeline for
  // this minus the one issue cycle the instruction's own node charges); 0: not modelled.
  Cycles instruction_fetch_cycles;
  bool operator==(const SmSpec&) const = default;
};

struct TensorSpec {
  // Dense FLOP per SM per clock, by instruction family and input type. Missing entry: the GPU
  // cannot run that instruction/type (an error at lowering or simulation).
  std::map<TensorInst, std::map<DType, double>> flops_per_cycle;
  // From an MMA node's last instruction to its result being usable by non-MMA work: for wgmma /
  // tcgen05 the wait behind a commit group beyond its tensor-core time.
  Cycles latency;
  // mma.sync issue to issue on one accumulator chain (a dependent chain of mma.sync is latency
  // bound); optional in JSON (tensor.mma_sync_latency), zero: not known. Used by frontends that
  // know their chains (frontend/multigpu/sm_split.cpp) and, where set, as the result latency of
  // mma.sync nodes instead of `latency`.
  Cycles mma_sync_latency;
  // mma.sync m16n8k8 on 16-bit types (CUTLASS sm75 kernels) runs at this fraction of the
  // type's mma_sync rate (m16n8k16); optional in JSON (tensor.mma_sync_k8_fraction), default 1.
  double mma_sync_k8_fraction = 1.0;
  // The share of an mma.sync's tensor-core time its sub-partition's issue (SIMT) timeline is taken
  // for; optional in JSON (tensor.mma_sync_issue_fraction), default 1. 1 (Hopper, measured): the
  // mma.sync and the SIMT work of the warps on that sub-partition follow each other. Below 1: the
  // mma.sync starts without waiting for SIMT work and pushes the SIMT timeline back by this share
  // of its time (its issue slots; Ampere, where mma.sync is the tensor core's own path).
  double mma_sync_issue_fraction = 1.0;
  // A wgmma of F cycles of tensor-core work (FLOPs / rate) occupies the pipe
  // max(F, wgmma_overhead + F / 2): narrow shapes do not reach the peak rate. Zero: F.
  Cycles wgmma_overhead;
  // What one wgmma of `work_cycles` tensor-core work occupies the pipe (the rule above).
  double wgmma_cycles(double work_cycles) const {
    const double narrow = wgmma_overhead.value + work_cycles / 2;
    return wgmma_overhead.value > 0 && narrow > work_cycles ? narrow : work_cycles;
  }
  // A warp-specialised consumer's shortest K step through its mbarrier ring (wait on the stage's
  // full barrier, wgmma group, commit, wait_group, arrive on the previous stage's empty barrier):
  // GEMM lowerings hold small tiles' K steps to it. Zero: no floor.
  Cycles ws_k_step_floor;
  bool operator==(const TensorSpec&) const = default;
};

struct SimtSpec {
  double fp32_lanes = 128;  // FP32 FMA lanes per SM (per clock)
  double int_lanes = 64;
  double sfu_lanes = 16;    // special function unit (exp, rcp) lanes per SM
  Cycles latency;           // dependent-issue latency of one SIMT instruction
  // A dependent shfl.sync (a lane exchange of a row reduction); optional in JSON
  // (simt.shuffle_latency), zero: not known (reductions then cost no chain latency).
  Cycles shuffle_latency;
  // The rate at which an SM's SIMT (FP32, SFU) work issues while a wgmma runs on it, as a fraction
  // of its rate otherwise (wgmma reads and writes its accumulators in the warps' register files);
  // optional in JSON (simt.rate_during_wgmma), 1: no slowdown.
  double rate_during_wgmma = 1.0;
  bool operator==(const SimtSpec&) const = default;
};

struct L2Spec {
  Bytes capacity;
  BytesPerSecond bandwidth;   // aggregate, all SMs
  Cycles hit_latency;         // load-to-use for an L2 hit (SM clocks); the near partition when partitions > 1
  // Load-to-use for a hit in the far partition (data homed in the other half of the L2); zero means
  // "same as hit_latency". Optional in JSON (l2.far_hit_latency).
  Cycles far_hit_latency;
  int partitions = 1;
  // Share of the L2's lines left dirty by a flush that writes a buffer larger than L2 (the rest
  // are clean): what a run starting "dirty" writes back as its loads evict them. Optional in JSON
  // (l2.flush_dirty_fraction), default 1.
  double flush_dirty_fraction = 1.0;
  // Request combining within a GPC: a read of a tile that another SM of the same GPC fetched from L2
  // less than `gpc_combine_window` before sends only `gpc_combine_fraction` of its requests on to
  // L2 (the rest are served with that fetch); its SM still receives every byte. Optional in JSON
  // (l2.gpc_combine_window, l2.gpc_combine_fraction); a zero window (the default) turns it off.
  Duration gpc_combine_window{0};
  double gpc_combine_fraction = 1.0;
  // Whether CTAs of a plain grid (no cluster launch) combine too. Reads of a TMA multicast never
  // combine (docs/model.md, request combining). Optional in JSON (l2.gpc_combine_plain), default
  // true.
  bool gpc_combine_plain = true;
  // A miss that evicts dirty lines waits for their write-back: the written bytes go ahead of the
  // read in the miss's own transfer (SM port, L2, HBM), instead of a separate HBM flow beside it.
  // Optional in JSON (l2.miss_waits_for_writeback), default false.
  bool miss_waits_for_writeback = false;
  // The L2's miss path: a throughput every L2 miss and every zero-filled TMA box (a box wholly
  // outside its tensor, TileRef::zero_fill, which reads no HBM) shares. Zero (the default): not
  // modelled, and zero-filled boxes are streamed like misses. Optional in JSON (l2.miss_bandwidth).
  BytesPerSecond miss_bandwidth{0};
  // What the L2 serves in all of the TMA reads whose rows are only 16 bytes aligned (see
  // SmSpec::l2_bandwidth_per_sm_pitch16), besides its own bandwidth. Zero: not modelled.
  BytesPerSecond pitch16_bandwidth{0};
  // L2 work of the traffic between L2 and HBM: each byte a miss brings in also takes
  // `fill_weight` bytes of the L2's bandwidth (writing the line into L2, besides reading it out
  // to the SM), and each byte written back to HBM takes `writeback_weight` (reading the dirty
  // line out). Zero (the default): misses cost the L2 link once, write-backs nothing. Optional in
  // JSON (l2.fill_weight, l2.writeback_weight).
  double fill_weight = 0.0;
  double writeback_weight = 0.0;
  bool operator==(const L2Spec&) const = default;
};

struct HbmSpec {
  Bytes capacity;
  BytesPerSecond bandwidth;   // datasheet peak
  double efficiency = 0.9;    // achievable fraction of peak for streaming access (measured)
  Cycles latency;             // load-to-use for a DRAM access (SM clocks), includes the L2 miss path
  bool operator==(const HbmSpec&) const = default;
};

// Tensor Memory Accelerator (sm90+). All zero on GPUs without one (compute capability < 90).
struct TmaSpec {
  Cycles issue_latency;       // fixed cost of a TMA request before data moves
  Bytes efficient_request;    // requests smaller than this lose bandwidth per SM
  // A CTA whose template uses TMA starts this much later (tensor-map fetch, barrier set-up and
  // fences before its first copy); optional in JSON (tma.cta_setup), default 0.
  Cycles cta_setup;
  // The k-th CTA of a kernel's first wave (k < SMs) starts k times this much later still: the
  // SMs fetch the kernel's tensor maps one after another after an L2 flush; optional in JSON
  // (tma.descriptor_serialisation), default 0.
  Duration descriptor_serialisation{0};
  // A TMA-store epilogue's step per staged sub-tile: fence.proxy.async of the shared-memory writes,
  // the consumer warpgroups' barrier and the store's issue; optional (tma.store_fence), default 0.
  Cycles store_fence;
  bool operator==(const TmaSpec&) const = default;
};

struct LaunchSpec {
  Duration kernel_overhead{0};      // launch onto an idle stream: from the stream being ready to the first CTA
  Duration queued_kernel_gap{0};    // a kernel already queued behind a running one: gap after it ends
  Duration graph_kernel_overhead{0};  // the same inside a CUDA graph: gap after the previous node ends
  Duration graph_launch_overhead{0};  // the first kernel of a CUDA graph launched onto an idle stream
  Duration pdl_kernel_gap{0};         // a `programmatic` kernel queued behind another: gap after it ends
  Duration cta_launch{0};           // block scheduler: time to start a CTA on a free slot
  // What a profiler (CUPTI) records of a kernel beyond its CTAs' span (first CTA start to last
  // CTA end): the set-up before the first CTA and the tear-down after the last. Profile replay
  // adds it to kernels modelled by their span (GEMM, attention); optional, default 0.
  Duration cupti_duration_extra{0};
  bool operator==(const LaunchSpec&) const = default;
};

struct GpcSpec {
  int count = 1;
  std::vector<int> sms_per_gpc;  // size == count; sums to sm.count
  int max_cluster_size = 8;
  bool operator==(const GpcSpec&) const = default;
};

struct GpuSpec {
  std::string name;        // preset key, e.g. "h100"
  std::string full_name;   // e.g. "NVIDIA H100 SXM5 80GB"
  std::string arch;        // "ampere", "hopper", "blackwell"
  int compute_capability = 0;  // e.g. 90
  ClockSpec clock;
  SmSpec sm;
  GpcSpec gpc;
  TensorSpec tensor;
  SimtSpec simt;
  L2Spec l2;
  HbmSpec hbm;
  TmaSpec tma;
  LaunchSpec launch;
  std::string notes;       // free text from the config ("notes"): assumptions, caveats
  // JSON path (e.g. "/hbm/bandwidth") -> where the number came from, as written in the config.
  std::map<std::string, std::string> sources;
  bool operator==(const GpuSpec&) const = default;
};

}  // namespace tgsim::hw
