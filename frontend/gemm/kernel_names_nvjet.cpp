// cuBLAS(Lt) "nvjet" kernel names, e.g. nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT.
// Grammar and evidence for each field: docs/kernel-names.md, section "nvjet".
#include <string>

#include "frontend/gemm/kernel_names_detail.h"

namespace tgsim::gemm::detail {
namespace {

bool is_fp8(DType t) { return t == DType::fp8_e4m3 || t == DType::fp8_e5m2; }

// One letter of the type signature: h fp16, t bf16, s fp32, q fp8, o fp4 (e2m1, with block-scale tokens).
std::optional<DType> nvjet_type(char c, DType dtype, KernelNameResult& r, std::string* why) {
  switch (c) {
    case 'h':
      return DType::fp16;
    case 't':
      return DType::bf16;
    case 's':
      return DType::fp32;
    case 'o':
      return DType::fp4;
    case 'q':
      // 'q' says fp8 but not which one; the measurement's dtype decides when it is an fp8 type.
      if (is_fp8(dtype)) return dtype;
      add_note(r, "type letter 'q' (fp8) read as fp8_e4m3: the name does not say e4m3 or e5m2");
      return DType::fp8_e4m3;
    default:
      *why = std::string("type letter '") + c + "' unknown";
      return std::nullopt;
  }
}

// The type signature is <A=B><compute><D> (3 letters) or <A><B><C><compute><D> (5 letters).
bool read_types(std::string_view sig, DType dtype, KernelNameResult& r) {
  Schedule& s = r.schedule;
  std::string why;
  if (sig.size() != 3 && sig.size() != 5) {
    r = unsupported("nvjet type signature '" + std::string(sig) + "' not understood (expected 3 or 5 letters)");
    return false;
  }
  const bool five = sig.size() == 5;
  const auto a = nvjet_type(sig[0], dtype, r, &why);
  const auto b = a ? nvjet_type(five ? sig[1] : sig[0], dtype, r, &why) : std::nullopt;
  const auto acc = b ? nvjet_type(sig[sig.size() - 2], dtype, r, &why) : std::nullopt;
  const auto d = acc ? nvjet_type(sig.back(), dtype, r, &why) : std::nullopt;
  if (!d) {
    r = unsupported("nvjet type signature '" + std::string(sig) + "': " + why);
    return false;
  }
  s.a_type = *a;
  s.b_type = *b;
  s.accumulate = *acc;
  s.c_type = *d;
  return true;
}

// Which family the arch tag (or its absence) selects.
bool read_family(std::optional<int> arch, bool two_cta, KernelNameResult& r) {
  Schedule& s = r.schedule;
  if (!arch) {
    // cuBLAS 12.x prints no arch tag, on Hopper and Blackwell alike (measured on sm_90 and sm_103 with
    // cuBLASLt 12.8.5); only 2cta, which Hopper lacks, tells them apart.
    s.family = two_cta ? Family::blackwell_tcgen05 : Family::hopper_warpspecialized;
    add_note(r, two_cta ? "no arch tag: 2cta implies Blackwell"
                        : "no arch tag: assumed Hopper (sm90); set the family from the GPU if not");
    return true;
  }
  if (*arch == 90) {
    if (two_cta) {
      r = unsupported("nvjet sm90 name with 2cta: Hopper has no 2-CTA MMA");
      return false;
    }
    s.family = Family::hopper_warpspecialized;
    return true;
  }
  if (*arch == 100 || *arch == 101 || *arch == 103 || *arch == 110) {
    s.family = Family::blackwell_tcgen05;
    return true;
  }
  r = unsupported("nvjet arch sm" + std::to_string(*arch) + " is not modelled (only sm90 and sm100-class)");
  return false;
}

void read_flag(std::string_view flag, char& coop, bool& two_cta, KernelNameResult& r) {
  Schedule& s = r.schedule;
  if (flag == "bz") {
    s.reads_c = false;  // beta == 0
  } else if (flag == "badd") {
    s.reads_c = true;  // beta != 0: the epilogue adds C (seen in gradient-accumulating backward GEMMs)
  } else if (flag == "coopA" || flag == "coopB") {
    coop = flag.back();
  } else if (flag == "splitK") {
    s.split_k_runtime = true;
  } else if (flag == "bias" || flag == "relu" || flag == "gelu") {
    s.epilogue = Epilogue::bias_activation;
  } else if (flag == "2cta") {
    two_cta = true;
  } else if ((flag.starts_with("Avec") || flag.starts_with("Bvec")) && flag.size() > 4) {
    add_note(r, "ignored token '" + std::string(flag) + "' (block-scale vector of A/B, not modelled)");
  } else {
    add_note(r, "ignored token '" + std::string(flag) + "' (meaning unknown)");
  }
}

// Hopper: coopA/coopB split one tile between two consumer warpgroups along the MMA's A side (its M) or
// B side (its N); without either the two warpgroups alternate tiles (ping-pong). The MMA's M runs
// along the schedule's n when swap_ab is set. Blackwell has no consumer warpgroups.
void read_warp_specialization(char coop, KernelNameResult& r) {
  Schedule& s = r.schedule;
  if (s.family == Family::blackwell_tcgen05) {
    s.warp_specialization = WarpSpecialization::none;
    s.consumer_warpgroups = 1;
    if (coop != 0) {
      add_note(r, std::string("ignored token 'coop") + coop + "' (no consumer warpgroups on Blackwell)");
    }
    return;
  }
  s.consumer_warpgroups = 2;
  if (coop == 0) {
    s.warp_specialization = WarpSpecialization::pingpong;
    return;
  }
  s.warp_specialization = WarpSpecialization::cooperative;
  s.coop_split = ((coop == 'A') != s.swap_ab) ? CoopSplit::along_m : CoopSplit::along_n;
}

}  // namespace

std::optional<KernelNameResult> parse_nvjet(std::string_view name, DType dtype) {
  if (!name.starts_with("nvjet_")) return std::nullopt;
  const auto tok = split(name, '_');
  const auto bad = [&](const std::string& what) { return unsupported("does not match the nvjet grammar: " + what); };
  KernelNameResult r;
  r.supported = true;
  std::size_t i = 1;
  std::optional<int> arch;
  if (i < tok.size() && tok[i].starts_with("sm")) {
    arch = to_int(tok[i].substr(2));
    if (!arch) return bad("arch tag '" + std::string(tok[i]) + "'");
    ++i;
  }
  if (i >= tok.size()) return bad("too few fields");
  const std::string_view types = tok[i++];
  if (i < tok.size() && tok[i] == "mma") return unsupported("nvjet '_mma_' form (sm120-class GPUs) is not supported");
  if (i + 5 > tok.size()) return bad("too few fields");
  const auto tile = dims2(tok[i++]);
  if (!tile) return bad("expected the CTA tile MxN, got '" + std::string(tok[i - 1]) + "'");
  const auto k_stages = dims2(tok[i++]);
  if (!k_stages) return bad("expected <K tile>x<stages>, got '" + std::string(tok[i - 1]) + "'");
  const auto cluster = dims2(tok[i++]);
  if (!cluster) return bad("expected the cluster MxN, got '" + std::string(tok[i - 1]) + "'");
  bool two_cta = false;
  if (tok[i] == "2cta") {
    two_cta = true;
    ++i;
  }
  if (i >= tok.size() || (tok[i] != "h" && tok[i] != "v")) return bad("expected raster letter h or v");
  const bool raster_h = tok[i] == "h";
  ++i;
  if (i >= tok.size() || !is_layout(tok.back(), 3)) return bad("last field must be three layout letters (e.g. TNT)");
  const std::string_view layout = tok.back();

  if (!read_types(types, dtype, r)) return r;
  Schedule& s = r.schedule;
  s.name = std::string(name);
  s.tile = {(*tile)[0], (*tile)[1], (*k_stages)[0]};
  s.stages = (*k_stages)[1];
  s.cluster = {(*cluster)[0], (*cluster)[1]};
  // h walks along n: Nsight Compute's DRAM counters on h kernels with few n tiles show the large
  // operand read about once (not once per n column, as walking along m would), and the operand
  // feed of a 1024x1024 h kernel in that order runs at cuBLAS's speed where the other order is
  // 7% slower (calib_gemm_feed, docs/kernel-names.md). v follows CUTLASS's raster heuristic.
  s.raster = raster_h ? Raster::along_n : Raster::heuristic;
  s.persistent = true;
  s.layout_a = blas_letter(layout[0]);
  s.layout_b = blas_letter(layout[1]);
  // Third letter N: the MMA's M runs along cuBLAS's n (every name whose m is not a multiple of 64 has it).
  s.swap_ab = blas_letter(layout[2]) == 'N';

  char coop = 0;
  for (std::size_t f = i; f + 1 < tok.size(); ++f) read_flag(tok[f], coop, two_cta, r);
  if (!read_family(arch, two_cta, r)) return r;
  s.two_sm = two_cta;
  read_warp_specialization(coop, r);
  return r;
}

}  // namespace tgsim::gemm::detail
