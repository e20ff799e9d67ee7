// CUTLASS 3.x kernels printed as their full (demangled) template, e.g.
//   void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>,
//     cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<4,
//     cute::tuple<cute::C<2>, cute::C<1>, cute::C<1>>, cutlass::gemm::KernelTmaWarpSpecializedCooperative>,
//     cute::tuple<cute::C<128>, cute::C<256>, cute::C<64>>, cutlass::bfloat16_t, cute::tuple<long, cute::C<1>,
//     long>, cutlass::bfloat16_t, cute::tuple<long, cute::C<1>, long>, cute::TiledMMA<...>, ...>, ...>>(...)
// CollectiveMma's arguments are (dispatch policy, tile, ElementA, StrideA, ElementB, StrideB, TiledMma, ...);
// the policy's are (stages, cluster, kernel schedule). Only Sm90 GMMA mainloops are decoded.
#include <array>
#include <cctype>
#include <string>

#include "frontend/gemm/kernel_names_detail.h"

namespace tgsim::gemm::detail {
namespace {

// Top-level template arguments of the list whose '<' is at `open`; *complete is false when the name
// ends (truncated by the profiler) before the closing '>'.
std::vector<std::string_view> template_args(std::string_view s, std::size_t open, bool* complete) {
  std::vector<std::string_view> args;
  int depth = 0;
  std::size_t start = open + 1;
  for (std::size_t i = open; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<' || c == '(') {
      ++depth;
    } else if (c == '>' || c == ')') {
      if (--depth == 0) {
        args.push_back(trim(s.substr(start, i - start)));
        *complete = true;
        return args;
      }
    } else if (c == ',' && depth == 1) {
      args.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  *complete = false;
  return args;
}

// The integers of a cute shape: cute::tuple<cute::C<128>, cute::_256, cute::C<(int)64>> -> 128, 256, 64.
std::vector<int> shape_values(std::string_view s) {
  std::vector<int> out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    std::size_t p = std::string_view::npos;
    if (s.substr(i).starts_with("C<")) {
      p = i + 2;
      if (s.substr(p).starts_with("(int)")) p += 5;
    } else if (s.substr(i).starts_with("::_")) {
      p = i + 3;
    }
    if (p == std::string_view::npos) continue;
    std::size_t e = p;
    while (e < s.size() && std::isdigit(static_cast<unsigned char>(s[e])) != 0) ++e;
    if (const auto v = to_int(s.substr(p, e - p))) out.push_back(*v);
  }
  return out;
}

std::optional<DType> element_type(std::string_view t, std::string* why) {
  static constexpr std::array<std::pair<std::string_view, DType>, 12> kTypes{{
      {"cutlass::bfloat16_t", DType::bf16},
      {"cutlass::half_t", DType::fp16},
      {"cutlass::float_e4m3_t", DType::fp8_e4m3},
      {"cutlass::float_e5m2_t", DType::fp8_e5m2},
      {"cutlass::tfloat32_t", DType::tf32},
      {"cutlass::float_e2m1_t", DType::fp4},
      {"float", DType::fp32},
      {"__nv_bfloat16", DType::bf16},
      {"__half", DType::fp16},
      {"signed char", DType::int8},
      {"cutlass::int8_t", DType::int8},
      {"int8_t", DType::int8},
  }};
  for (const auto& [name, type] : kTypes) {
    if (t == name) return type;
  }
  *why = "element type '" + std::string(t) + "' has no DType";
  return std::nullopt;
}

// A K-major operand (unit stride in K, the second of (M|N, K, L)) is 'T' for A and 'N' for B in BLAS letters.
std::optional<char> layout_letter(std::string_view stride, bool is_a) {
  const std::size_t open = stride.find('<');
  if (open == std::string_view::npos) return std::nullopt;
  bool complete = false;
  const auto e = template_args(stride, open, &complete);
  if (!complete || e.size() < 2) return std::nullopt;
  const auto unit = [](std::string_view x) { return x == "cute::C<1>" || x == "cute::_1" || x == "cute::C<(int)1>"; };
  if (unit(e[1])) return is_a ? 'T' : 'N';
  if (unit(e[0])) return is_a ? 'N' : 'T';
  return std::nullopt;
}

// Accumulator of the wgmma atom: cute::SM90::GMMA::MMA_64x256x16_F32BF16BF16_SS -> F32.
std::optional<DType> accumulator(std::string_view tiled_mma) {
  for (std::size_t at = tiled_mma.find("MMA_"); at != std::string_view::npos; at = tiled_mma.find("MMA_", at + 1)) {
    if (at + 4 >= tiled_mma.size() || std::isdigit(static_cast<unsigned char>(tiled_mma[at + 4])) == 0) continue;
    const std::size_t us = tiled_mma.find('_', at + 4);  // after the instruction shape
    if (us == std::string_view::npos) return std::nullopt;
    const std::string_view rest = tiled_mma.substr(us + 1);
    if (rest.starts_with("F32")) return DType::fp32;
    if (rest.starts_with("F16")) return DType::fp16;
    return std::nullopt;
  }
  return std::nullopt;
}

// ElementD of cutlass::epilogue::collective::CollectiveEpilogue<Policy, Tile, EpiTile, ElementC, StrideC,
// ElementD, ...>.
std::optional<DType> output_type(std::string_view full) {
  const std::size_t at = full.find("CollectiveEpilogue<");
  if (at == std::string_view::npos) return std::nullopt;
  bool complete = false;
  const auto args = template_args(full, at + 18, &complete);
  if (args.size() < 6) return std::nullopt;
  std::string why;
  return element_type(args[5], &why);
}

// CollectiveEpilogue<Sm90[PtrArray]TmaWarpSpecialized<StagesC, StagesD, ...>, Tile, EpilogueTile, ...>:
// the store pipeline's depth and sub-tile.
void read_epilogue(std::string_view full, Schedule& s) {
  const std::size_t at = full.find("CollectiveEpilogue<");
  if (at == std::string_view::npos) return;
  bool complete = false;
  const auto args = template_args(full, at + 18, &complete);
  if (args.size() < 3 || args[0].find("TmaWarpSpecialized<") == std::string_view::npos) return;
  bool pol_complete = false;
  const auto pol = template_args(args[0], args[0].find('<'), &pol_complete);
  const auto epi = shape_values(args[2]);
  const auto stages_d = pol.size() >= 2 ? to_int(pol[1]) : std::nullopt;
  if (!stages_d || epi.size() != 2) return;
  s.epilogue_stages = *stages_d;
  s.epilogue_tile_m = epi[0];
  s.epilogue_tile_n = epi[1];
}

void read_schedule_kind(std::string_view policy_and_schedule, KernelNameResult& r) {
  Schedule& s = r.schedule;
  if (policy_and_schedule.find("Pingpong") != std::string_view::npos) {
    s.warp_specialization = WarpSpecialization::pingpong;
    s.consumer_warpgroups = 2;
    s.persistent = true;
  } else if (policy_and_schedule.find("Cooperative") != std::string_view::npos) {
    s.warp_specialization = WarpSpecialization::cooperative;
    s.consumer_warpgroups = 2;
    s.coop_split = CoopSplit::along_m;
    s.persistent = true;
  } else {
    s.warp_specialization = WarpSpecialization::none;  // KernelTmaWarpSpecialized: one consumer warpgroup
    s.consumer_warpgroups = 1;
    s.persistent = false;
  }
}

KernelNameResult decode(std::string_view full, std::string_view policy_name, const std::vector<std::string_view>& pol,
                        const std::vector<std::string_view>& mma, DType dtype) {
  KernelNameResult r;
  r.supported = true;
  Schedule& s = r.schedule;
  s.name = std::string(full);
  s.family = Family::hopper_warpspecialized;
  const auto stages = to_int(pol[0].starts_with("(int)") ? pol[0].substr(5) : pol[0]);
  const auto cluster = shape_values(pol[1]);
  const auto tile = shape_values(mma[1]);
  if (!stages || cluster.size() != 3 || tile.size() != 3) {
    return unsupported("stages, cluster or tile of the CollectiveMma not readable");
  }
  s.stages = *stages;
  s.cluster = {cluster[0], cluster[1]};
  s.tile = {tile[0], tile[1], tile[2]};
  if (pol.size() < 3 && policy_name.find("Cooperative") == std::string_view::npos &&
      policy_name.find("Pingpong") == std::string_view::npos) {
    return unsupported("kernel schedule not in the name");
  }
  read_schedule_kind(std::string(policy_name) + " " + std::string(pol.size() > 2 ? pol[2] : ""), r);
  const auto has = [&](std::string_view x) { return full.find(x) != std::string_view::npos; };
  s.grouped = has("GroupProblemShape") || policy_name.find("Array") != std::string_view::npos;
  s.stream_k = has("StreamKScheduler");
  if (s.stream_k) s.persistent = true;
  if (policy_name.find("RmemA") != std::string_view::npos) {
    add_note(r, "A read from registers (RS wgmma); modelled as SS");
  }
  std::string why;
  const auto a = element_type(mma[2], &why);
  const auto b = a ? element_type(mma[4], &why) : std::nullopt;
  if (!b) return unsupported(why);
  s.a_type = *a;
  s.b_type = *b;
  const auto la = layout_letter(mma[3], true);
  const auto lb = layout_letter(mma[5], false);
  if (la && lb) {
    s.layout_a = *la;
    s.layout_b = *lb;
  } else {
    add_note(r, "operand layouts not readable from the strides: defaults kept");
  }
  if (const auto acc = accumulator(mma[6])) {
    s.accumulate = *acc;
  } else {
    add_note(r, "accumulator type not readable from the TiledMma: fp32 assumed");
  }
  read_epilogue(full, s);
  s.c_type = output_type(full).value_or(dtype);
  if (!output_type(full)) add_note(r, "output type not readable from the CollectiveEpilogue: taken from dtype");
  return r;
}

}  // namespace

std::optional<KernelNameResult> parse_cutlass_template(std::string_view name, DType dtype) {
  std::size_t at = name.find("CollectiveMma<");
  while (at != std::string_view::npos && at > 0 && name[at - 1] != ':' && name[at - 1] != '<' && name[at - 1] != ' ') {
    at = name.find("CollectiveMma<", at + 1);  // DualCollectiveMma<, ...: not ours
  }
  if (at == std::string_view::npos) {
    if (name.find("GemmUniversal") == std::string_view::npos) return std::nullopt;
    return unsupported(
        "GemmUniversal without a plain CollectiveMma (CUTLASS 2.x templates and dual/gated "
        "mainloops are not decoded)");
  }
  bool complete = false;
  const auto mma = template_args(name, at + 13, &complete);
  if (mma.empty()) return unsupported("CollectiveMma without arguments (truncated name?)");
  const std::string_view policy = mma[0];
  const std::size_t open = policy.find('<');
  if (open == std::string_view::npos) {
    return unsupported("mainloop policy '" + std::string(policy) + "' has no arguments");
  }
  const std::size_t ns = policy.rfind("::", open);
  const std::string_view policy_name = tail(policy.substr(0, open), ns == std::string_view::npos ? 0 : ns + 2);
  if (!policy_name.starts_with("MainloopSm90") || policy_name.find("Gmma") == std::string_view::npos) {
    return unsupported("mainloop '" + std::string(policy_name) +
                       "' is not decoded (only Sm90 GMMA mainloops; Sm80/Sm100/Sm120 template names are not)");
  }
  if (mma.size() < 7) return unsupported("CollectiveMma arguments cut short (truncated name?)");
  bool policy_complete = false;
  const auto pol = template_args(policy, open, &policy_complete);
  if (!policy_complete || pol.size() < 2) return unsupported("mainloop policy arguments not readable");
  return decode(name, policy_name, pol, mma, dtype);
}

}  // namespace tgsim::gemm::detail
