#include "frontend/moe/layer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/units/error.h"

namespace tgsim::moe {

std::int64_t MoeLayer::tokens(int src, int expert) const {
  return routing.tokens[static_cast<std::size_t>(src)][static_cast<std::size_t>(expert)];
}

std::int64_t MoeLayer::expert_rows(int expert) const {
  std::int64_t n = 0;
  for (int s = 0; s < gpus; ++s) n += tokens(s, expert);
  return n;
}

std::int64_t MoeLayer::pair_tokens(int src, int dst) const {
  std::int64_t n = 0;
  for (int l = 0; l < experts_per_gpu(); ++l) n += tokens(src, global_expert(dst, l));
  return n;
}

double MoeLayer::expert_flops(int gpu) const {
  double w = 0;
  const auto h = static_cast<double>(shape.hidden), i = static_cast<double>(shape.intermediate);
  for (int l = 0; l < experts_per_gpu(); ++l) {
    const auto t = static_cast<double>(expert_rows(global_expert(gpu, l)));
    w += 2 * t * 2 * i * h + 2 * t * h * i;
  }
  return w;
}

std::int64_t MoeLayer::push_bytes(int gpu) const {
  std::int64_t b = 0;
  for (int o = 0; o < gpus; ++o) {
    if (o == gpu) continue;
    b += pair_bytes(gpu, o) + pair_bytes(o, gpu);
  }
  return b;
}

MoeLayer make_layer(const MoeShape& shape, int gpus, std::int64_t tokens_per_gpu, const std::string& routing) {
  if (shape.experts < 1 || shape.hidden < 1 || shape.intermediate < 1)
    throw InputError(fmt::format("model \"{}\" has no MoE layer (moe.experts)", shape.model));
  if (gpus < 1 || shape.experts % gpus != 0)
    throw InputError(fmt::format("{} experts of \"{}\" do not split evenly over {} GPUs", shape.experts, shape.model, gpus));
  if (tokens_per_gpu < 1) throw InputError("--tokens must be >= 1");
  MoeLayer l;
  l.shape = shape;
  l.gpus = gpus;
  l.tokens_per_gpu = tokens_per_gpu;
  l.routing = make_routing(routing, gpus, shape.experts, shape.top_k, tokens_per_gpu);
  return l;
}

double sm_push_rate(const hw::SystemSpec& sys, int threads) {
  const double little = threads * static_cast<double>(sys.nvlink.sm_bytes_in_flight_per_thread.value) /
                        to_seconds(sys.nvlink.sm_store.round_trip);
  return std::min(sys.nvlink.sm_store.max_rate.value, little);
}

double link_rate(const hw::SystemSpec& sys) { return sys.nvlink.bandwidth.value * sys.nvlink.sm_efficiency; }

double sm_tensor_rate(const hw::GpuSpec& spec) {
  const auto fam = spec.tensor.flops_per_cycle.find(TensorInst::wgmma);
  if (fam == spec.tensor.flops_per_cycle.end() || !fam->second.count(DType::bf16))
    throw InputError(fmt::format("GPU \"{}\" has no wgmma bf16 path (the MoE frontend's expert tiles are Hopper "
                                 "TMA + wgmma)",
                                 spec.name));
  return fam->second.at(DType::bf16) * spec.clock.boost.value;
}

CostModelTerms choose_comm_sms(const MoeLayer& layer, int gpu, const hw::GpuSpec& spec, const hw::SystemSpec& sys,
                               int threads) {
  CostModelTerms t;
  const double r = sm_push_rate(sys, threads);
  const int sms = spec.sm.count;
  t.comm_s_per_sm = static_cast<double>(layer.push_bytes(gpu)) / r;
  t.compute_s_per_sm = layer.expert_flops(gpu) / sm_tensor_rate(spec);
  t.c_link = static_cast<int>(std::ceil(link_rate(sys) / r));
  const double sum = t.comm_s_per_sm + t.compute_s_per_sm;
  t.c_star = sum > 0 ? sms * t.comm_s_per_sm / sum : 0;
  t.chosen = std::clamp(static_cast<int>(std::lround(t.c_star)), 1, std::min(t.c_link, sms - 1));
  return t;
}

}  // namespace tgsim::moe
