// CUTLASS 3.x template kernels left mangled by the profiler, e.g. PyTorch's grouped GEMM:
//   _ZN7cutlass13device_kernelIN2at4cuda6detail25enable_3x_kernel_for_sm9xINS_4gemm6kernel13GemmUniversalI
//   NS5_17GroupProblemShapeI...EENS5_10collective13CollectiveMmaINS5_39MainloopSm90ArrayTmaGmmaWarpSpecialized
//   ILi4ENSA_IJNS9_1CILi2EEENSG_ILi1EEESI_EEENS5_40KernelPtrArrayTmaWarpSpecializedPingpongEEENSA_IJNSG_ILi64EEE
//   NSG_ILi128EEESN_EEENS_10bfloat16_t...
// Kineto prints a name raw when its demangler fails, and libstdc++'s (abi::__cxa_demangle) fails on
// these (LLVM's succeeds). So: demangle with the C++ runtime where it can, and parse the template
// form; otherwise read the CollectiveMma's fields from the mangled text itself:
//   stages   MainloopSm90...GmmaWarpSpecialized...ILi<stages>E
//   cluster  the tuple right after the stage count: NSA_IJ <C<m>> <C<n>> <C<l>> EE
//   schedule Kernel...Pingpong / Kernel...Cooperative (ptr-array/grouped when "Array" or GroupProblemShape)
//   tile     the tuple right after the schedule: NSA_IJ <C<M>> <C<N>> <C<K>> EE
// A tuple element is either spelled out (N<prefix>ILi<value>EE) or a back-reference (S<id>_) to an
// earlier type, which this reader does not resolve. An unresolved tile K is inferred: the largest
// multiple of 128 bytes of K whose `stages` stages of (M + N) x K fit in the sm_90 CTA shared
// memory (227 KiB, CUDA Programming Guide) -- which is how such configurations are sized; the note
// says so. Unresolved M, N or cluster m/n leave the name unsupported.
#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <regex>
#include <string>

#include <fmt/format.h>

#include "frontend/gemm/kernel_names_detail.h"

namespace tgsim::gemm::detail {
namespace {

std::optional<std::string> demangle(std::string_view name) {
  int status = 0;
  const std::string s(name);
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(s.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !out) return std::nullopt;
  return std::string(out.get());
}

// Elements of the mangled cute::tuple whose "IJ" starts at `at` (value, or -1 for a back-reference);
// `end` receives the position after the tuple. Empty when the text is not such a tuple.
std::vector<int> mangled_tuple(const std::string& s, std::size_t at, std::size_t* end) {
  static const std::regex kElement(R"(^(?:N(?:S[0-9A-Z]*_)?(?:\d+[A-Za-z_]\w*?)?ILi(\d+)EEE|S[0-9A-Z]*_))");
  std::vector<int> out;
  if (s.compare(at, 2, "IJ") != 0) return out;
  std::size_t p = at + 2;
  while (p < s.size() && s[p] != 'E') {
    std::smatch m;
    const std::string rest = s.substr(p, 64);
    if (!std::regex_search(rest, m, kElement)) return {};
    // an extent no kernel has (or too many digits for an int) reads as unknown
    const auto v = m[1].matched ? to_int(m[1].str()) : std::nullopt;
    out.push_back(v && *v >= 1 && *v <= 4096 ? *v : -1);
    p += static_cast<std::size_t>(m.length(0));
  }
  *end = p;
  return out;
}

// The tuple whose "IJ" opens within `max_gap` characters after `from` (empty if none).
std::vector<int> tuple_after(const std::string& s, std::size_t from, std::size_t max_gap, std::size_t* end) {
  const std::size_t open = s.find("IJ", from);
  if (open == std::string::npos || open > from + max_gap) return {};
  return mangled_tuple(s, open, end);
}

KernelNameResult read_mangled(const std::string& s, DType dtype) {
  static const std::regex kPolicy(R"(MainloopSm90(\w*?)GmmaWarpSpecialized\w*?ILi(\d+)E)");
  static const std::regex kSchedule(R"(\d+(Kernel\w*?(Pingpong|Cooperative))E)");
  std::smatch pol;
  if (!std::regex_search(s, pol, kPolicy)) {
    return unsupported("mangled CUTLASS kernel without an Sm90 GMMA mainloop (only those are decoded)");
  }
  KernelNameResult r;
  r.supported = true;
  Schedule& sc = r.schedule;
  sc.family = Family::hopper_warpspecialized;
  const auto stages = to_int(pol[2].str());
  if (!stages || *stages < 1 || *stages > 64) return unsupported("mangled CUTLASS kernel: stage count not readable");
  sc.stages = *stages;
  const std::size_t after_stages = static_cast<std::size_t>(pol.position(0) + pol.length(0));
  // cluster tuple: N<prefix>IJ... right after the stage count
  std::size_t cl_end = 0;
  const auto cluster = tuple_after(s, after_stages, 8, &cl_end);
  if (cluster.size() != 3 || cluster[0] < 1 || cluster[1] < 1) {
    return unsupported("mangled CUTLASS kernel: cluster shape not readable");
  }
  sc.cluster = {cluster[0], cluster[1]};
  std::smatch sched;
  const std::string from_cluster = s.substr(cl_end);
  if (!std::regex_search(from_cluster, sched, kSchedule)) {
    return unsupported("mangled CUTLASS kernel: kernel schedule (Pingpong/Cooperative) not in the name");
  }
  const std::size_t after_sched = cl_end + static_cast<std::size_t>(sched.position(0) + sched.length(0));
  std::size_t tile_end = 0;
  const auto tile = tuple_after(s, after_sched, 12, &tile_end);
  if (tile.size() != 3 || tile[0] < 1 || tile[1] < 1) {
    return unsupported("mangled CUTLASS kernel: tile M and N not readable (back-references are not resolved)");
  }
  const bool pingpong = sched[2].str() == "Pingpong";
  sc.warp_specialization = pingpong ? WarpSpecialization::pingpong : WarpSpecialization::cooperative;
  sc.consumer_warpgroups = 2;
  sc.coop_split = CoopSplit::along_m;
  sc.persistent = true;
  sc.grouped = s.find("GroupProblemShape") != std::string::npos || pol[1].str().find("Array") != std::string::npos;
  sc.a_type = sc.b_type = dtype;
  sc.c_type = dtype;
  int k = tile[2];
  if (k < 1) {
    const double bytes = dtype_bits(dtype) / 8.0;
    const int step = static_cast<int>(128 / bytes);
    const double per_k = sc.stages * (tile[0] + tile[1]) * bytes;
    k = std::max(step, static_cast<int>((227.0 * 1024 - 1024) / per_k) / step * step);
    add_note(r, "tile K not spelled out in the mangled name: inferred from the stage count and 227 KiB of shared memory");
  }
  sc.tile = {tile[0], tile[1], k};
  // epilogue: Sm90...TmaWarpSpecializedILi<StagesC>ELi<StagesD>E..., then (after the tile) its
  // EpilogueTile tuple; a back-referenced sub-tile extent equal to a tile extent is that extent.
  static const std::regex kEpilogue(R"(CollectiveEpilogueINS[0-9A-Z]*_\d+Sm90\w*?TmaWarpSpecializedILi(\d+)ELi(\d+)E)");
  std::smatch epi;
  if (std::regex_search(s, epi, kEpilogue)) {
    const std::size_t after = static_cast<std::size_t>(epi.position(0) + epi.length(0));
    // the epilogue's copy of the tile (a tuple, or a back-reference), then the sub-tile tuple
    std::size_t e1 = 0, e2 = 0;
    auto sub = tuple_after(s, after, 48, &e1);
    if (sub.size() == 3) sub = tuple_after(s, e1, 12, &e2);
    if (sub.size() == 2) {
      // A back-reference in the sub-tile is to a C<> seen before; 64 (one wgmma M) is the one CUTLASS's
      // automatic epilogue tiles use along M, so only that is accepted.
      const int em = sub[0] > 0 ? sub[0] : 64;
      if (sub[1] > 0) {
        sc.epilogue_stages = std::clamp(to_int(epi[2].str()).value_or(0), 0, 16);
        sc.epilogue_tile_m = em;
        sc.epilogue_tile_n = sub[1];
        if (sub[0] < 1) add_note(r, "epilogue sub-tile M taken as 64 (a back-reference in the mangled name)");
      }
    }
  }
  sc.name = fmt::format("cutlass3x_sm90_{}{}_{}x{}x{}_s{}_c{}x{} (mangled)", sc.grouped ? "ptr_array_" : "",
                        pingpong ? "pingpong" : "cooperative", sc.tile.m, sc.tile.n, sc.tile.k, sc.stages, sc.cluster.m,
                        sc.cluster.n);
  add_note(r, "mangled name the C++ runtime could not demangle: fields read from the mangled text; operand layouts "
              "and element types taken from the request");
  return r;
}

}  // namespace

std::optional<KernelNameResult> parse_cutlass_mangled(std::string_view name, DType dtype) {
  if (!name.starts_with("_Z")) return std::nullopt;
  // Real kernel symbols run to a few thousand characters; std::regex backtracks recursively, so
  // far longer text is refused rather than searched.
  constexpr std::size_t kLongest = 16384;
  if (name.size() > kLongest) return unsupported("mangled name longer than 16384 characters: not read");
  if (name.find("GemmUniversal") == std::string_view::npos && name.find("CollectiveMma") == std::string_view::npos) {
    return std::nullopt;
  }
  if (const auto d = demangle(name)) {
    if (auto r = parse_cutlass_template(*d, dtype)) return r;
    return unsupported("demangled name is not a CUTLASS 3.x GEMM template");
  }
  return read_mangled(std::string(name), dtype);
}

}  // namespace tgsim::gemm::detail
