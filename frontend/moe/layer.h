// One MoE layer under expert parallelism (docs/moe.md): E routed experts split evenly over the
// system's G GPUs (expert e on GPU e / (E / G)), every GPU holding `tokens` tokens that each pick
// top-k experts. Dispatch sends every token-expert pair's hidden vector (bf16) to the expert's
// GPU; the expert runs GEMM0 (T_e x 2I x H, gate and up), SiLU(gate) * up, GEMM1 (T_e x H x I);
// combine sends each result back. Tokens of a remote source are only counted, not deduplicated
// per GPU (a token with two experts on one GPU is sent twice).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/moe/routing.h"
#include "sim/hw/gpu_spec.h"
#include "sim/hw/system_spec.h"
#include "sim/units/dtype.h"

namespace tgsim::moe {

struct MoeShape {
  std::string model;
  std::int64_t hidden = 0;        // H
  std::int64_t intermediate = 0;  // I, per expert
  int experts = 0;                // E (routed; shared experts are not part of the exchange)
  int top_k = 0;
};

struct MoeLayer {
  MoeShape shape;
  int gpus = 0;
  std::int64_t tokens_per_gpu = 0;
  Routing routing;

  int experts_per_gpu() const { return shape.experts / gpus; }
  int owner(int expert) const { return expert / experts_per_gpu(); }
  int global_expert(int gpu, int local) const { return gpu * experts_per_gpu() + local; }
  std::int64_t bytes_per_token() const { return shape.hidden * 2; }  // bf16 hidden vector
  // Tokens of expert e that come from source GPU s, and all of them.
  std::int64_t tokens(int src, int expert) const;
  std::int64_t expert_rows(int expert) const;
  // Token-expert pairs GPU src sends to GPU dst in dispatch (dst == src: stays local).
  std::int64_t pair_tokens(int src, int dst) const;
  std::int64_t pair_bytes(int src, int dst) const { return pair_tokens(src, dst) * bytes_per_token(); }
  // FLOPs of GPU g's experts (GEMM0 + GEMM1; the activation is not counted).
  double expert_flops(int gpu) const;
  // Bytes GPU g pushes over NVLink: dispatch to other GPUs plus combine of what others sent it.
  std::int64_t push_bytes(int gpu) const;
};

// Throws InputError if E is not a multiple of G or the routing does not match.
MoeLayer make_layer(const MoeShape& shape, int gpus, std::int64_t tokens_per_gpu, const std::string& routing);

// Weave's spatial scheduler as a cost model: communication SMs C so that the time to push
// push_bytes(g) with C SMs matches the time to compute expert_flops(g) on the other SMs:
//   C*  = S * (B / r) / (B / r + W / f)
// with S SMs, B bytes, r one SM's push rate (system sm_store: min(max_rate, threads x bytes in
// flight / round_trip)), W FLOPs, f one SM's wgmma bf16 rate at boost; then rounded and clamped
// to [1, ceil(link / r)] (beyond saturating the SM-reachable link, more SMs do not help) and to
// S - 1. B = 0: C = 1 (someone still waits for the combine).
struct CostModelTerms {
  double comm_s_per_sm = 0;     // B / r
  double compute_s_per_sm = 0;  // W / f
  double c_star = 0;
  int c_link = 0;
  int chosen = 0;
};
CostModelTerms choose_comm_sms(const MoeLayer& layer, int gpu, const hw::GpuSpec& spec, const hw::SystemSpec& sys,
                               int threads);

// One SM's remote-store rate with `threads` threads (bytes/s) and the SM-reachable link rate.
double sm_push_rate(const hw::SystemSpec& sys, int threads);
double link_rate(const hw::SystemSpec& sys);
// One SM's dense bf16 wgmma rate at the boost clock (FLOP/s).
double sm_tensor_rate(const hw::GpuSpec& spec);

}  // namespace tgsim::moe
