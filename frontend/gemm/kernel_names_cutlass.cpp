// CUTLASS library kernel names: 2.x (cutlass_80_tensorop_bf16_s16816gemm_bf16_128x128_64x3_tn_align8) and
// 3.x (cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_bf16_bf16_128x256x64_2x1x1_0_tnn_align8_warpspecialized_
// cooperative_epi_tma). Both follow cutlass_library's procedural names; see docs/kernel-names.md.
#include <cctype>
#include <string>

#include <fmt/format.h>

#include "frontend/gemm/kernel_names_detail.h"
#include "frontend/gemm/problem.h"

namespace tgsim::gemm::detail {
namespace {

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// The identifier starting at `pos`: up to the first non-identifier character, or, inside an Itanium-mangled
// symbol (..Kernel2I66cutlass_80_...EEv..), exactly as long as the length digits in front of it say.
std::string_view identifier_at(std::string_view s, std::size_t pos) {
  std::size_t digits = pos;
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(s[digits - 1])) != 0) --digits;
  if (digits < pos && digits > 0 && std::isalpha(static_cast<unsigned char>(s[digits - 1])) != 0) {
    const auto len = to_int(s.substr(digits, pos - digits));
    if (len && pos + static_cast<std::size_t>(*len) <= s.size()) return s.substr(pos, static_cast<std::size_t>(*len));
  }
  std::size_t end = pos;
  while (end < s.size() && is_ident(s[end])) ++end;
  return s.substr(pos, end - pos);
}

// Every occurrence of `prefix` that starts an identifier (a digit in front is a mangled length).
std::vector<std::string_view> identifiers_with_prefix(std::string_view s, std::string_view prefix) {
  std::vector<std::string_view> out;
  for (std::size_t pos = s.find(prefix); pos != std::string_view::npos; pos = s.find(prefix, pos + 1)) {
    if (pos == 0 || !is_ident(s[pos - 1]) || std::isdigit(static_cast<unsigned char>(s[pos - 1])) != 0) {
      const std::string_view id = identifier_at(s, pos);
      if (id.starts_with(prefix)) out.push_back(id);  // a mangled length shorter than the prefix: not a name
    }
  }
  return out;
}

DType acc_from_letter(char c, bool* ok) {
  *ok = c == 's' || c == 'h';
  return c == 'h' ? DType::fp16 : DType::fp32;
}

KernelNameResult parse_cutlass2(std::string_view name, const std::vector<std::string_view>& tok, std::size_t i,
                                std::optional<int> cc, bool wmma) {
  KernelNameResult r;
  r.supported = true;
  Schedule& s = r.schedule;
  s.name = std::string(name);
  s.family = Family::ampere_multistage;
  s.warp_specialization = WarpSpecialization::none;
  if (!cc) add_note(r, "no compute capability in the name: assumed sm80");
  // sm75 (Turing-style MmaPipelined: 2 stages, loads staged through registers) is modelled for
  // the 16-bit align1 kernels libraries run for 2-byte aligned rows; other pre-sm80 names are not.
  const bool sm75 = cc && *cc == 75 && !wmma;
  if (cc && *cc < 80 && !sm75) return unsupported("CUTLASS sm" + std::to_string(*cc) + " kernels are not modelled");
  std::string why;
  std::optional<DType> c_type, a_type;
  if (i < tok.size() && !tok[i].ends_with("gemm")) {
    c_type = type_from_token(tok[i++], &why);
    if (!c_type) return unsupported("output type: " + why);
  }
  if (i >= tok.size() || !tok[i].ends_with("gemm")) return unsupported("does not match the CUTLASS 2.x name grammar");
  const std::string_view core = tok[i++];  // <acc><mma shape>[<math type>]gemm, e.g. s16816gemm
  std::size_t digits = 1;
  while (digits < core.size() && std::isdigit(static_cast<unsigned char>(core[digits])) != 0) ++digits;
  if (digits == 1) return unsupported("'" + std::string(core) + "' is a SIMT kernel (no tensor-core MMA)");
  bool acc_ok = false;
  s.accumulate = acc_from_letter(core[0], &acc_ok);
  if (!acc_ok) return unsupported("'" + std::string(core) + "': only fp32 (s) or fp16 (h) accumulation is modelled");
  const std::string_view math = core.substr(digits, core.size() - 4 - digits);
  for (; i < tok.size() && !dims2(tok[i]); ++i) {
    if (tok[i] == "relu" || tok[i] == "gelu" || tok[i] == "bias" || tok[i] == "silu") {
      s.epilogue = Epilogue::bias_activation;
    } else if (const auto t = type_from_token(tok[i], &why)) {
      a_type = t;
    } else {
      return unsupported("input type: " + why);
    }
  }
  // sm75 names carry no <K>x<stages>: CUTLASS's sm75 tensor-op GEMMs are K 32, 2 stages
  // (cutlass_library generator.py, GenerateSM75_TensorOp_1688).
  const std::size_t fields = sm75 ? 2 : 3;
  if (i + fields > tok.size()) return unsupported(sm75 ? "expected <M>x<N>_<layout>_align<N>" : "expected <M>x<N>_<K>x<stages>_<layout>_align<N>");
  const auto tile = dims2(tok[i]);
  const auto k_stages = sm75 ? std::optional<std::array<int, 2>>{std::array<int, 2>{32, 2}} : dims2(tok[i + 1]);
  if (!tile || !k_stages || !is_layout(tok[i + fields - 1], 2)) {
    return unsupported(sm75 ? "expected <M>x<N>_<layout>_align<N>" : "expected <M>x<N>_<K>x<stages>_<layout>_align<N>");
  }
  if (sm75) add_note(r, "sm75 kernel: K tile 32 and 2 stages (CUTLASS's sm75 tensor-op tiles), loads staged through registers");
  std::optional<int> align;
  for (std::size_t j = i + fields; j < tok.size(); ++j) {
    if (tok[j].starts_with("align") && to_int(tok[j].substr(5))) {
      align = to_int(tok[j].substr(5));
    } else {
      add_note(r, "ignored token '" + std::string(tok[j]) + "' (meaning unknown)");
    }
  }
  // cutlass_library leaves out A's and C's type when they equal the accumulator's.
  DType a = a_type.value_or(s.accumulate);
  if (math == "tf32" || (a == DType::fp32 && core[0] == 's')) {
    a = DType::tf32;
    add_note(r, "32-bit operands on tensor cores: tf32 math");
  }
  s.a_type = a;
  s.b_type = a;
  s.c_type = c_type.value_or(s.accumulate);
  s.tile = {(*tile)[0], (*tile)[1], (*k_stages)[0]};
  s.stages = (*k_stages)[1];
  s.layout_a = blas_letter(tok[i + fields - 1][0]);
  s.layout_b = blas_letter(tok[i + fields - 1][1]);
  s.warps = cutlass2_warps(s.tile.m, s.tile.n);
  // The MMA shape in the name (s1688: m16n8k8) for 16-bit operands (tf32 is k8 by type).
  if (core.substr(1, digits - 1) == "1688" && dtype_bits(a) == 16) s.mma_k = 8;
  if (sm75) {
    const int bytes = static_cast<int>(align.value_or(1) * element_bytes(a));
    if (bytes != 2) return unsupported(fmt::format("sm75 kernels with {}-byte accesses are not modelled (only the 16-bit align1 fallbacks)", bytes));
    s.load_alignment = 2;
  } else if (align) {  // alignN: N elements per copy; cp.async copies 4, 8 or 16 bytes
    const int bytes = static_cast<int>(*align * element_bytes(a));
    s.load_alignment = bytes >= 16 ? 16 : bytes >= 8 ? 8 : 4;
    if (bytes < 4) add_note(r, fmt::format("align{}: {} bytes per copy, modelled as 4", *align, bytes));
  }
  if (wmma) add_note(r, "wmma tensor-op kernel modelled as ampere_multistage");
  return r;
}

}  // namespace

std::optional<KernelNameResult> parse_cutlass_named(std::string_view full, DType /*dtype: names carry types*/) {
  const auto names3 = identifiers_with_prefix(full, "cutlass3x_sm");
  if (!names3.empty()) return parse_cutlass3(names3.front());
  for (const std::string_view name : identifiers_with_prefix(full, "cutlass_")) {
    const auto tok = split(name, '_');
    std::size_t i = 1;
    const std::optional<int> cc = i < tok.size() ? to_int(tok[i]) : std::nullopt;
    if (cc) ++i;
    const bool wmma = i < tok.size() && tok[i] == "wmma";
    if (wmma) ++i;
    if (i < tok.size() && tok[i] == "simt") return unsupported("CUTLASS SIMT kernel (no tensor-core MMA)");
    if (i < tok.size() && tok[i] == "tensorop") return parse_cutlass2(name, tok, i + 1, cc, wmma);
    // Not a library name (e.g. vllm::cutlass_3x_gemm<...>): look further.
  }
  return std::nullopt;
}

}  // namespace tgsim::gemm::detail
