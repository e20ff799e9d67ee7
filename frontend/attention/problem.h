// An attention forward problem: O = softmax(Q K^T * scale [+ causal mask]) V per (batch, head).
// Q: [batch, heads, seq_q, head_dim]; K, V: [batch, heads_kv, seq_kv, head_dim] (GQA/MQA when
// heads_kv < heads: query head h reads KV head h / (heads / heads_kv)).
// The causal mask is aligned to the bottom right (FlashAttention >= 2.1): query row i sees keys
// j <= i + seq_kv - seq_q; with seq_q == seq_kv that is the usual lower triangle.
#pragma once

#include <algorithm>
#include <cstdint>

#include "sim/units/dtype.h"

namespace tgsim::attention {

struct Problem {
  std::int64_t batch = 1;
  std::int64_t heads = 1;
  std::int64_t heads_kv = 1;
  std::int64_t seq_q = 1;
  std::int64_t seq_kv = 1;
  std::int64_t head_dim = 128;
  bool causal = false;
  DType dtype = DType::bf16;

  std::int64_t group() const { return heads / std::max<std::int64_t>(1, heads_kv); }

  // Query-key pairs that are computed (not masked) for one (batch, head).
  double visible_pairs() const {
    const double sq = static_cast<double>(seq_q), skv = static_cast<double>(seq_kv);
    if (!causal) return sq * skv;
    // Row i sees clamp(i + offset + 1, 0, skv) keys: rows [lo, hi) see a growing prefix, rows
    // from max(lo, hi) on see every key.
    const double offset = skv - sq;
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
