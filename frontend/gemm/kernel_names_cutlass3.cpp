// CUTLASS 3.x library names, e.g.
//   cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_bf16_bf16_128x256x64_2x1x1_0_tnn_align8_warpspecialized_cooperative_...
//   cutlass3x_sm90_tensorop_s64x128x16gemm_f16_f16_f32_f16_f16_128x128x64_1x2x1_0_nnn_align8_stream_k_...
//   cutlass3x_sm100_tensorop_s256x256x16gemm_bf16_bf16_f32_void_f32_256x256x64_2x1x1_0_tnt_align8_2sm
// Fields: arch, opclass, [<acc><mma shape>]gemm, [grouped], A_B_acc_C_D, tile, [cluster], stages, layouts, align,
// then schedule tokens. See docs/kernel-names.md.
#include <string>

#include "frontend/gemm/kernel_names_detail.h"

namespace tgsim::gemm::detail {
namespace {

struct Cutlass3Flags {
  bool warpspecialized = false;
  bool cooperative = false;
  bool pingpong = false;
  bool one_sm = false;
  bool two_sm = false;
};

// Tokens after align<N>: schedule, stream-K, epilogue. Unknown ones become notes.
Cutlass3Flags read_flags(const std::vector<std::string_view>& tok, std::size_t j, KernelNameResult& r) {
  Cutlass3Flags f;
  Schedule& s = r.schedule;
  for (; j < tok.size(); ++j) {
    const std::string_view t = tok[j];
    const std::string_view next = j + 1 < tok.size() ? tok[j + 1] : std::string_view{};
    if (t == "stream" && next == "k") {
      s.stream_k = true;
      ++j;
    } else if (t == "warpspecialized") {
      f.warpspecialized = true;
    } else if (t == "cooperative") {
      f.cooperative = true;
    } else if (t == "pingpong") {
      f.pingpong = true;
    } else if (t == "1sm" || t == "2sm") {
      (t == "1sm" ? f.one_sm : f.two_sm) = true;
    } else if ((t == "epi" && !next.empty()) || (t == "fp8" && next == "fastaccum")) {
      ++j;  // epilogue schedule (tma, nosmem) and fp8 fast accumulation: not modelled
    } else if (t == "bias" || t == "relu" || t == "gelu" || t == "silu") {
      s.epilogue = Epilogue::bias_activation;
    } else if (!type_from_token(t, nullptr)) {  // element types of a fused epilogue are not modelled
      add_note(r, "ignored token '" + std::string(t) + "' (meaning unknown)");
    }
  }
  return f;
}

bool read_types(const std::vector<std::string_view>& types, KernelNameResult& r) {
  if (types.size() != 5) {
    r = unsupported("expected five element types A_B_acc_C_D, found " + std::to_string(types.size()));
    return false;
  }
  std::string why;
  Schedule& s = r.schedule;
  const auto a = type_from_token(types[0], &why);
  const auto b = a ? type_from_token(types[1], &why) : std::nullopt;
  const auto acc = b ? type_from_token(types[2], &why) : std::nullopt;
  const auto d = acc ? type_from_token(types[4], &why) : std::nullopt;  // types[3] is C, often void
  if (!d) {
    r = unsupported("element types: " + why);
    return false;
  }
  s.a_type = *a;
  s.b_type = *b;
  s.accumulate = *acc;
  s.c_type = *d;
  return true;
}

bool read_schedule(int arch, const Cutlass3Flags& f, KernelNameResult& r) {
  Schedule& s = r.schedule;
  if (arch == 90) {
    s.family = Family::hopper_warpspecialized;
    if (f.cooperative || f.pingpong) {
      s.warp_specialization = f.cooperative ? WarpSpecialization::cooperative : WarpSpecialization::pingpong;
      s.consumer_warpgroups = 2;
      s.coop_split = CoopSplit::along_m;  // CUTLASS's cooperative TiledMma lays its 2 warpgroups along M
      s.persistent = true;
    } else if (f.warpspecialized) {
      s.warp_specialization = WarpSpecialization::none;  // KernelTmaWarpSpecialized: one consumer warpgroup
      s.consumer_warpgroups = 1;
      s.persistent = s.stream_k;
    } else {
      r = unsupported("kernel schedule not named (CUTLASS picks it at compile time: 'auto')");
      return false;
    }
    if (s.stream_k) s.persistent = true;
    return true;
  }
  if (arch == 100 || arch == 101 || arch == 103 || arch == 110) {
    s.family = Family::blackwell_tcgen05;
    s.warp_specialization = WarpSpecialization::none;
    s.consumer_warpgroups = 1;
    s.persistent = true;
    s.two_sm = f.two_sm;
    if (!f.one_sm && !f.two_sm) add_note(r, "neither 1sm nor 2sm in the name: two_sm left false");
    return true;
  }
  r = unsupported("CUTLASS 3.x arch sm" + std::to_string(arch) + " is not modelled (only sm90 and sm100-class)");
  return false;
}

}  // namespace

KernelNameResult parse_cutlass3(std::string_view name) {
  const auto tok = split(name, '_');
  const auto arch = tok.size() > 1 ? to_int(tail(tok[1], 2)) : std::nullopt;
  if (tok.size() < 4 || !arch) return unsupported("does not match the CUTLASS 3.x name grammar");
  if (tok[2] == "simt") return unsupported("CUTLASS SIMT kernel (no tensor-core MMA)");
  if (tok[2] != "tensorop") return unsupported("CUTLASS 3.x opclass '" + std::string(tok[2]) + "' is not supported");
  const std::string_view core = tok[3];  // gemm, or <acc><mma shape>[<math>]gemm such as s64x128x16gemm
  if (!core.ends_with("gemm")) return unsupported("CUTLASS 3.x '" + std::string(core) + "' is not a GEMM");
  if (core != "gemm" && core[0] != 's' && core[0] != 'h') {
    return unsupported("'" + std::string(core) + "': only fp32 (s) or fp16 (h) accumulation is modelled");
  }
  KernelNameResult r;
  r.supported = true;
  Schedule& s = r.schedule;
  s.name = std::string(name);
  std::size_t i = 4;
  if (i < tok.size() && tok[i] == "grouped") {
    s.grouped = true;
    ++i;
  }
  std::vector<std::string_view> types;
  for (; i < tok.size() && !dims3(tok[i]); ++i) types.push_back(tok[i]);
  if (!read_types(types, r)) return r;
  if (core.find("tf32") != std::string_view::npos && s.a_type == DType::fp32) s.a_type = s.b_type = DType::tf32;
  const auto tile = i < tok.size() ? dims3(tok[i++]) : std::nullopt;
  if (!tile) return unsupported("no CTA tile MxNxK after the element types");
  s.tile = {(*tile)[0], (*tile)[1], (*tile)[2]};
  if (const auto cluster = i < tok.size() ? dims3(tok[i]) : std::nullopt) {
    ++i;
    if ((*cluster)[0] == 0 || (*cluster)[1] == 0) {
      add_note(r, "cluster chosen at run time (0 in the name): 1x1 kept");
    } else {
      s.cluster = {(*cluster)[0], (*cluster)[1]};
    }
  } else {
    add_note(r, "cluster is not in the name: 1x1 kept");
  }
  const auto stages = i < tok.size() ? to_int(tok[i++]) : std::nullopt;
  if (!stages || i + 1 >= tok.size() || !is_layout(tok[i], 3) || !tok[i + 1].starts_with("align")) {
    return unsupported("expected <stages>_<layouts>_align<N> after the tile and cluster");
  }
  if (*stages > 0) {
    s.stages = *stages;
  } else {
    add_note(r, "stage count 0 (CUTLASS fills shared memory at compile time): default kept");
  }
  s.layout_a = blas_letter(tok[i][0]);
  s.layout_b = blas_letter(tok[i][1]);
  const Cutlass3Flags flags = read_flags(tok, i + 2, r);
  if (!read_schedule(*arch, flags, r)) return r;
  return r;
}

}  // namespace tgsim::gemm::detail
