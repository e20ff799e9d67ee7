// A GEMM schedule: how a kernel tiles and pipelines C[M,N] = A[M,K] * B[K,N]. Pure data: it can
// come from JSON (docs/gemm.md), command-line flags, an imported kernel name
// (frontend/gemm/kernel_names.h) or the default-schedule rule. Lowering turns it into a tile graph.
#pragma once

#include <string>

#include "sim/units/dtype.h"

namespace tgsim::gemm {

// Which kernel family (and so which lowering) the schedule belongs to.
enum class Family {
  ampere_multistage,  // cp.async stages + mma.sync (CUTLASS 2.x style); also what sm80 kernels run on Hopper
  hopper_warpspecialized,  // TMA producer warp + wgmma consumer warpgroups, mbarrier pipeline
  blackwell_tcgen05,       // tcgen05 MMA, TMEM accumulators, optional 2-SM pairs (not validated)
};

enum class WarpSpecialization { none, cooperative, pingpong };

// How cooperative consumer warpgroups divide one CTA tile between them (in the schedule's m/n view).
enum class CoopSplit { along_m, along_n };

// Order in which output tiles are handed to CTAs. `heuristic` is CUTLASS's rule, decided per problem
// when the tiles are planned (resolve_raster, tile_order.h).
enum class Raster { along_m, along_n, heuristic };

enum class Epilogue { store, bias_activation };

struct TileShape {
  int m = 128;
  int n = 128;
  int k = 64;
  bool operator==(const TileShape&) const = default;
};

struct ClusterShape {
  int m = 1;
  int n = 1;
  bool operator==(const ClusterShape&) const = default;
};

struct Schedule {
  Family family = Family::hopper_warpspecialized;
  TileShape tile;            // CTA tile M x N x K (in the schedule's own m/n view; see `order`)
  int stages = 4;            // shared-memory pipeline depth
  WarpSpecialization warp_specialization = WarpSpecialization::cooperative;
  int consumer_warpgroups = 2;  // Hopper: warpgroups issuing wgmma; Ampere: unused
  CoopSplit coop_split = CoopSplit::along_m;  // cooperative only: the tile dimension the warpgroups halve
  int warps = 4;                // Ampere: warps per CTA
  ClusterShape cluster;         // thread-block cluster (Hopper+)
  bool tma_multicast = true;    // cluster CTAs share A/B tiles via TMA multicast
  Raster raster = Raster::along_n;
  int swizzle = 1;              // CTA rasterisation swizzle width (tiles)
  bool persistent = false;      // persistent tile scheduler (one CTA per SM, loop over tiles)
  int split_k = 1;              // >1: K split across CTAs, followed by a reduction kernel
  bool split_k_runtime = false;  // K is split but the factor was picked at run time and is unknown (kernel names
                                 // say "splitK" without a factor); split_k stays 1 until someone picks one
  bool stream_k = false;        // stream-K decomposition of the K loop over persistent CTAs
  bool two_sm = false;          // Blackwell 2-SM MMA pairs
  bool grouped = false;         // pointer-array / grouped GEMM: one launch runs several problems
  bool grouped_setup = false;   // a one-CTA kernel fills the groups' pointer/shape arrays first (torch._grouped_mm)
  DType a_type = DType::bf16;
  DType b_type = DType::bf16;
  DType c_type = DType::bf16;
  DType accumulate = DType::fp32;
  char layout_a = 'T';  // BLAS letters as the library saw them: 'N' or 'T'
  char layout_b = 'N';
  bool swap_ab = false;  // the kernel computes C^T = B^T A^T (cuBLAS: tile runs along its own m)
  // Ampere multistage: bytes each thread copies per cp.async (CUTLASS alignN x element size,
  // at most 16). Narrow copies (4, 8) cost the shared-memory pipe more (sm.cp_async_*b_cycles).
  // 2: CUTLASS's sm75 register-staged loads (ld.global of one 16-bit element, packed and stored
  // to shared memory; sm.ldg_2b_cycles), what libraries run for 2-byte aligned rows.
  int load_alignment = 16;
  // mma.sync K per instruction: 0 = by type (16 for 16-bit types, 8 for tf32); 8 for CUTLASS's
  // sm75 s1688 kernels on 16-bit types (m16n8k8, tensor.mma_sync_k8_fraction of the rate).
  int mma_k = 0;
  // Split-K reduced inside the GEMM kernel (CUTLASS 2.x serial split-K: the slices of a tile
  // add into C in turn), not by a separate reduction kernel.
  bool split_k_serial = false;
  Epilogue epilogue = Epilogue::store;
  // CUTLASS 3 TMA epilogues store the tile in sub-tiles (EpilogueTile, e.g. 64x32) through
  // `epilogue_stages` shared-memory buffers (StagesD): a sub-tile's staging waits until the TMA
  // store of the sub-tile `epilogue_stages` back has gone. 0: one store of the whole tile (what
  // names without these fields, such as nvjet's, are modelled with).
  int epilogue_tile_m = 0;
  int epilogue_tile_n = 0;
  int epilogue_stages = 0;
  bool reads_c = false;  // the epilogue reads C: D = alpha*A*B + beta*C with beta != 0
  std::string name;  // where it came from: kernel name, file, or "default"
};

}  // namespace tgsim::gemm
