#include "sim/units/dtype.h"

#include <array>
#include <utility>

namespace tgsim {

std::string_view to_string(DType t) {
  switch (t) {
    case DType::fp32: return "fp32";
    case DType::tf32: return "tf32";
    case DType::fp16: return "fp16";
    case DType::bf16: return "bf16";
    case DType::fp8_e4m3: return "fp8_e4m3";
    case DType::fp8_e5m2: return "fp8_e5m2";
    case DType::int8: return "int8";
    case DType::fp4: return "fp4";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view s) {
  static constexpr std::array<std::pair<std::string_view, DType>, 16> kNames{{
      {"fp32", DType::fp32},         {"float32", DType::fp32},     {"f32", DType::fp32},
      {"tf32", DType::tf32},         {"fp16", DType::fp16},        {"float16", DType::fp16},
      {"half", DType::fp16},         {"bf16", DType::bf16},        {"bfloat16", DType::bf16},
      {"fp8_e4m3", DType::fp8_e4m3}, {"fp8", DType::fp8_e4m3},     {"e4m3", DType::fp8_e4m3},
      {"fp8_e5m2", DType::fp8_e5m2}, {"e5m2", DType::fp8_e5m2},    {"int8", DType::int8},
      {"fp4", DType::fp4},
  }};
  for (const auto& [name, t] : kNames) {
    if (name == s) return t;
  }
  return std::nullopt;
}

std::string_view to_string(TensorInst i) {
  switch (i) {
    case TensorInst::mma_sync: return "mma_sync";
    case TensorInst::wgmma: return "wgmma";
    case TensorInst::tcgen05: return "tcgen05";
  }
  return "?";
}

std::optional<TensorInst> parse_tensor_inst(std::string_view s) {
  if (s == "mma_sync" || s == "mma.sync") return TensorInst::mma_sync;
  if (s == "wgmma") return TensorInst::wgmma;
  if (s == "tcgen05" || s == "umma") return TensorInst::tcgen05;
  return std::nullopt;
}

}  // namespace tgsim
