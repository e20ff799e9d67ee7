// Element data types of tiles and tensor-core instructions.
#pragma once

#include <optional>
#include <string_view>

namespace tgsim {

enum class DType { fp32, tf32, fp16, bf16, fp8_e4m3, fp8_e5m2, int8, fp4 };

// Tensor-core instruction families: Ampere mma.sync (per warp), Hopper wgmma (per warpgroup,
// async), Blackwell tcgen05 (single-thread issue, TMEM accumulators).
enum class TensorInst { mma_sync, wgmma, tcgen05 };

// Storage size of one element in bits.
constexpr int dtype_bits(DType t) {
  switch (t) {
    case DType::fp32:
    case DType::tf32: return 32;
    case DType::fp16:
    case DType::bf16: return 16;
    case DType::fp8_e4m3:
    case DType::fp8_e5m2:
    case DType::int8: return 8;
    case DType::fp4: return 4;
  }
  return 32;
}

std::string_view to_string(DType t);
std::string_view to_string(TensorInst i);
std::optional<TensorInst> parse_tensor_inst(std::string_view s);
// Accepts the names above plus common aliases ("float32", "half", "fp8", "e4m3", ...).
std::optional<DType> parse_dtype(std::string_view s);

}  // namespace tgsim
