// An attention forward problem: O = softmax(Q K^T * scale [+ causal mask]) V per (batch, head).
// Q: [batch, heads, seq_q, head_dim]; K, V: [batch, heads_kv, seq_kv, head_dim] (GQA/MQA when
// heads_kv < heads: query head h reads KV head h / (heads / heads_kv)).
// The causal mask is aligned to the bottom right by default (FlashAttention >= 2.1): query row i
// sees keys j <= i + seq_kv - seq_q. PyTorch's scaled_dot_product_attention(is_causal=True) aligns
// it to the top left instead (torch.nn.attention.bias.CausalBias): row i sees keys j <= i. With
// seq_q == seq_kv both are the usual lower triangle.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>

#include "sim/units/dtype.h"

namespace tgsim::attention {

enum class CausalAlign { bottom_right, top_left };

inline std::string_view to_string(CausalAlign a) { return a == CausalAlign::top_left ? "top_left" : "bottom_right"; }

// "bottom_right" / "bottom-right" or "top_left" / "top-left"; nullopt otherwise.
inline std::optional<CausalAlign> parse_causal_align(std::string_view s) {
  if (s == "bottom_right" || s == "bottom-right") return CausalAlign::bottom_right;
  if (s == "top_left" || s == "top-left") return CausalAlign::top_left;
  return std::nullopt;
}

struct Problem {
  std::int64_t batch = 1;
  std::int64_t heads = 1;
  std::int64_t heads_kv = 1;
  std::int64_t seq_q = 1;
  std::int64_t seq_kv = 1;
  std::int64_t head_dim = 128;
  bool causal = false;
  DType dtype = DType::bf16;
  CausalAlign causal_align = CausalAlign::bottom_right;

  std::int64_t group() const { return heads / std::max<std::int64_t>(1, heads_kv); }

  // Query row i of a causal problem sees keys j <= i + causal_offset().
  std::int64_t causal_offset() const { return causal_align == CausalAlign::top_left ? 0 : seq_kv - seq_q; }

  // Query-key pairs that are computed (not masked) for one (batch, head).
  double visible_pairs() const {
    const double sq = static_cast<double>(seq_q), skv = static_cast<double>(seq_kv);
    if (!causal) return sq * skv;
    // Row i sees clamp(i + offset + 1, 0, skv) keys: rows [lo, hi) see a growing prefix, rows
    // from max(lo, hi) on see every key.
    const double offset = static_cast<double>(causal_offset());
    const double lo = std::max(0.0, -offset);
    const double hi = std::min(sq, skv - offset - 1);
    double pairs = 0;
    if (hi > lo) pairs += (hi - lo) * (lo + hi - 1) / 2.0 + (hi - lo) * (offset + 1);
    if (sq > std::max(lo, hi)) pairs += (sq - std::max(lo, hi)) * skv;
    return pairs;
  }

  // FLOPs of the two matrix products (QK^T and PV) over the visible pairs.
  double flops() const {
    return 4.0 * static_cast<double>(batch) * static_cast<double>(heads) * visible_pairs() * static_cast<double>(head_dim);
  }

  // The FlashAttention papers' convention for TFLOPs/s: 4·b·h·sq·skv·d, halved when causal.
  double paper_flops() const {
    const double full = 4.0 * static_cast<double>(batch) * static_cast<double>(heads) * static_cast<double>(seq_q) *
                        static_cast<double>(seq_kv) * static_cast<double>(head_dim);
    return causal ? full / 2 : full;
  }
};

}  // namespace tgsim::attention
