// Small string helpers shared by the kernel-name grammars.
#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#include "frontend/gemm/kernel_names_detail.h"

namespace tgsim::gemm::detail {

KernelNameResult unsupported(std::string reason) {
  KernelNameResult r;
  r.supported = false;
  r.reason = std::move(reason);
  return r;
}

void add_note(KernelNameResult& r, std::string note) {
  if (std::find(r.notes.begin(), r.notes.end(), note) == r.notes.end()) r.notes.push_back(std::move(note));
}

std::string_view tail(std::string_view s, std::size_t from) {
  return from < s.size() ? s.substr(from) : std::string_view{};
}

bool is_layout(std::string_view s, std::size_t letters) {
  if (s.size() != letters) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return c == 'n' || c == 't' || c == 'N' || c == 'T'; });
}

char blas_letter(char c) { return (c == 't' || c == 'T') ? 'T' : 'N'; }

std::optional<DType> type_from_token(std::string_view tok, std::string* why) {
  static constexpr std::array<std::pair<std::string_view, DType>, 16> kTypes{{
      {"bf16", DType::bf16},
      {"f16", DType::fp16},
      {"fp16", DType::fp16},
      {"f32", DType::fp32},
      {"fp32", DType::fp32},
      {"tf32", DType::tf32},
      {"e4m3", DType::fp8_e4m3},
      {"e5m2", DType::fp8_e5m2},
      {"s8", DType::int8},
      {"i8", DType::int8},
      {"int8", DType::int8},
      {"u8", DType::int8},
      {"e2m1", DType::fp4},
      {"bfloat16", DType::bf16},
      {"half", DType::fp16},
      {"float", DType::fp32},
  }};
  for (const auto& [name, t] : kTypes) {
    if (name == tok) return t;
  }
  if (why != nullptr) {
    if (tok == "s32" || tok == "i32" || tok == "int32") {
      *why = "int32 accumulate/output has no DType (integer GEMMs are not modelled)";
    } else if (tok == "f64" || tok == "fp64") {
      *why = "fp64 has no DType (double-precision GEMMs are not modelled)";
    } else if (tok == "void") {
      *why = "type 'void' where an element type is needed";
    } else {
      *why = "unknown element type '" + std::string(tok) + "'";
    }
  }
  return std::nullopt;
}

std::vector<std::string_view> split_types(std::string_view s) {
  // Longest tokens first so "tf32" wins over "f32" and "bf16" over "f16".
  static constexpr std::array<std::string_view, 12> kTokens{"bf16", "tf32", "e4m3", "e5m2", "e2m1", "f16",
                                                            "f32",  "f64",  "s32",  "i32",  "s8",   "i8"};
  std::vector<std::string_view> out;
  while (!s.empty()) {
    bool matched = false;
    for (const auto tok : kTokens) {
      if (s.starts_with(tok)) {
        out.push_back(s.substr(0, tok.size()));
        s.remove_prefix(tok.size());
        matched = true;
        break;
      }
    }
    if (!matched) return {};
  }
  return out;
}

int ampere_cublas_warps(int tile_m, int tile_n, int slices) {
  // cuBLAS Ampere kernels give each warp a 64x64 piece of the CTA tile (elementRowsPerWarp and
  // elementColsPerWarp = 64, threadsPerCta 128 for 128x128 and 256 for 256x128 in the kernel tables of
  // nvmexp/lw_firmware tools/mods/gpu/tests/lwca/linpack/ampere_mods_modular_decls.h); "sliced1x2"
  // splits K over a further 2 warps.
  return std::max(1, tile_m / 64) * std::max(1, tile_n / 64) * std::max(1, slices);
}

int cutlass2_warps(int tile_m, int tile_n) {
  // CUTLASS's sm80 generator (python/cutlass_library/generator.py, GenerateSM80_TensorOp_16816) uses
  // warp counts [4,2,1] / [2,4,1] for 256x128 / 128x256 and four warps for every smaller tile.
  return (tile_m * tile_n >= 256 * 128) ? 8 : 4;
}

}  // namespace tgsim::gemm::detail
