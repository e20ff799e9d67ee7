// Entry point of the kernel-name import: splits the ';'-list, sends each name to its grammar and checks
// that the list is one GEMM optionally followed by its split-K reduction.
#include "frontend/gemm/kernel_names.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <string>

#include "frontend/gemm/kernel_names_detail.h"

namespace tgsim::gemm {
namespace {

using detail::unsupported;

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Why a name of no known grammar is not imported: a more useful message than "unknown" where we can tell.
std::string why_not_gemm(std::string_view name) {
  const std::string n = lower(name);
  const auto has = [&](std::string_view x) { return n.find(x) != std::string::npos; };
  if (has("fmha") || has("attn") || has("attention")) return "attention kernel, not a GEMM";
  if (has("nccl") || has("allreduce") || has("all_reduce")) return "communication kernel, not a GEMM";
  if (has("gemv")) return "GEMV (matrix-vector) kernel, not a tiled GEMM";
  if (has("triton")) return "Triton kernel: its name carries no schedule";
  if (has("elementwise") || has("reduce_kernel")) return "elementwise/reduction kernel, not a GEMM";
  if (has("gemm") || has("matmul")) {
    return "GEMM kernel of a family whose names are not decoded (known: nvjet_*, smNN_xmma_gemm_*, ampere_*gemm*, "
           "cutlass_*/cutlass3x_* library names, cutlass::device_kernel<...CollectiveMma<...>>)";
  }
  if (has("flash")) return "attention kernel, not a GEMM";  // after "gemm": flashinfer also ships GEMMs
  if (has("norm") || has("softmax") || has("rotary") || has("copy")) return "memory-bound helper kernel, not a GEMM";
  return "not a recognised GEMM kernel name";
}

// A name can match a grammar and still say nonsense (a tile of 0); such a name is not imported.
std::optional<std::string> implausible(const Schedule& s) {
  if (s.tile.m < 1 || s.tile.n < 1 || s.tile.k < 1) return "tile has a zero dimension";
  if (s.stages < 1) return "stage count is zero";
  if (s.cluster.m < 1 || s.cluster.n < 1) return "cluster has a zero dimension";
  if (s.warps < 1 || s.consumer_warpgroups < 1) return "zero warps or warpgroups";
  return std::nullopt;
}

KernelNameResult parse_one(std::string_view name, DType dtype) {
  using Parser = std::optional<KernelNameResult> (*)(std::string_view, DType);
  // Named grammars before the template form: a library name may sit inside cutlass::device_kernel<...>.
  static constexpr std::array<Parser, 6> kParsers{detail::parse_nvjet,         detail::parse_xmma,
                                                  detail::parse_ampere,        detail::parse_cutlass_named,
                                                  detail::parse_cutlass_mangled, detail::parse_cutlass_template};
  for (const Parser parse : kParsers) {
    if (auto r = parse(name, dtype)) {
      if (!r->supported) return std::move(*r);
      if (const auto why = implausible(r->schedule)) return unsupported(*why);
      return std::move(*r);
    }
  }
  return unsupported(why_not_gemm(name));
}

KernelNameResult parse_list(const std::vector<std::string>& kernels, DType dtype) {
  if (kernels.empty()) return unsupported("no kernel name given");
  std::optional<KernelNameResult> gemm;
  int reductions = 0;
  bool setup = false;
  for (const std::string& k : kernels) {
    if (detail::is_grouped_setup(k)) {
      if (gemm) return unsupported("grouped-GEMM setup kernel '" + k + "' comes after the GEMM kernel");
      setup = true;
      continue;
    }
    if (detail::is_splitk_reduce(k)) {
      if (!gemm) return unsupported("split-K reduction kernel '" + k + "' comes before any GEMM kernel");
      ++reductions;
      continue;
    }
    if (gemm) return unsupported("more than one GEMM kernel in the list ('" + gemm->schedule.name + "', '" + k + "')");
    KernelNameResult one = parse_one(k, dtype);
    if (!one.supported) return unsupported("kernel '" + k + "': " + one.reason);
    gemm = std::move(one);
  }
  if (!gemm) return unsupported("the list holds only split-K reduction or grouped-GEMM setup kernels, no GEMM");
  if (setup) {
    if (!gemm->schedule.grouped) return unsupported("grouped-GEMM setup kernel before a GEMM that is not grouped");
    gemm->schedule.grouped_setup = true;
  }
  if (reductions > 1) return unsupported("more than one split-K reduction kernel in the list");
  if (reductions == 1) {
    gemm->has_splitk_reduce = true;
    if (gemm->schedule.split_k <= 1 && !gemm->schedule.split_k_runtime) {
      gemm->schedule.split_k_runtime = true;
      detail::add_note(*gemm, "split-K inferred from the reduction kernel (the GEMM's name does not say so)");
    }
  }
  return std::move(*gemm);
}

}  // namespace

namespace detail {

bool is_grouped_setup(std::string_view name) { return name.find("prepare_grouped_gemm_data") != std::string_view::npos; }

bool is_splitk_reduce(std::string_view name) {
  // cuBLASLt: splitKreduce_kernel / cublasLt::splitKreduce_kernel<32, 16, int, float, ...>;
  // CUTLASS 2.x parallel split-K: cutlass::reduction::kernel::ReduceSplitK<...>; cuBLAS's xmma
  // kernels: sm90_xmma_gemm_<types>_..._execute_split_k_kernel__5x_cublas, which follows an
  // ..._execute_segment_k_on_kernel__5x_cublas and sums its K segments' partial tiles.
  const auto has = [&](std::string_view part) { return name.find(part) != std::string_view::npos; };
  return has("splitKreduce_kernel") || has("ReduceSplitK") || (has("_xmma_") && has("_execute_split_k_kernel"));
}

}  // namespace detail

KernelNameResult parse_gemm_kernel_names(std::string_view names, DType dtype) {
  std::vector<std::string> kernels;
  for (const std::string_view part : detail::split(names, ';')) {
    const std::string_view k = detail::trim(part);
    if (!k.empty()) kernels.emplace_back(k);
  }
  KernelNameResult result = parse_list(kernels, dtype);
  result.kernels = std::move(kernels);
  return result;
}

}  // namespace tgsim::gemm
