// Older cuBLAS kernel names: xmma (sm80_xmma_gemm_..., sm90_xmma_gemm_...) and the Ampere family
// (ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_nn). See docs/kernel-names.md.
#include <string>

#include "frontend/gemm/kernel_names_detail.h"

namespace tgsim::gemm::detail {
namespace {

// One type of an xmma type group; false (and r unsupported) when it has no DType.
bool xmma_type(std::string_view tok, DType& out, KernelNameResult& r) {
  std::string why;
  const auto t = type_from_token(tok, &why);
  if (!t) {
    r = unsupported(why);
    return false;
  }
  out = *t;
  return true;
}

// The three type groups: <in><out>_<mma><acc>_<scale>, e.g. bf16bf16_bf16f32_f32 or f32f32_tf32f32_f32.
bool xmma_types(std::string_view io, std::string_view mma, std::string_view scale, KernelNameResult& r) {
  const auto io_t = split_types(io);
  const auto mma_t = split_types(mma);
  if (io_t.size() != 2 || mma_t.size() != 2 || split_types(scale).size() != 1) {
    r = unsupported("xmma type groups '" + std::string(io) + "_" + std::string(mma) + "_" + std::string(scale) +
                    "' not understood (expected <in><out>_<mma><acc>_<scale>)");
    return false;
  }
  Schedule& s = r.schedule;
  DType in{}, out{}, mma_type{}, acc{};
  if (!xmma_type(io_t[0], in, r) || !xmma_type(io_t[1], out, r) || !xmma_type(mma_t[0], mma_type, r) ||
      !xmma_type(mma_t[1], acc, r)) {
    return false;
  }
  // fp32 operands through tf32 MMAs: DType tf32 has fp32's 32-bit storage, so it says both.
  const DType operand = (in == DType::fp32 && mma_type == DType::tf32) ? DType::tf32 : in;
  if (mma_type != operand) {
    add_note(r, "MMA type '" + std::string(mma_t[0]) + "' differs from the input type; input kept");
  }
  s.a_type = operand;
  s.b_type = operand;
  s.c_type = out;
  s.accumulate = acc;
  return true;
}

// Hopper xmma: wgmma warpgroups; Ampere-style xmma (sm80, and sm90 DMMA kernels): warps and stages.
void xmma_family(const std::optional<std::array<int, 3>>& wg, const std::optional<std::array<int, 3>>& warps,
                 std::optional<int> stages, KernelNameResult& r) {
  Schedule& s = r.schedule;
  if (wg) {
    s.family = Family::hopper_warpspecialized;
    s.consumer_warpgroups = (*wg)[0] * (*wg)[1] * (*wg)[2];
    s.warp_specialization = s.consumer_warpgroups > 1 ? WarpSpecialization::cooperative : WarpSpecialization::none;
    s.coop_split = (*wg)[0] > 1 ? CoopSplit::along_m : CoopSplit::along_n;
    s.persistent = false;
    r.persistence_from_launch = true;
    add_note(r, "xmma: persistence is not in the name; non-persistent unless the recorded launch has fewer CTAs than tiles");
  } else {
    s.family = Family::ampere_multistage;
    s.warp_specialization = WarpSpecialization::none;
    s.warps = (*warps)[0] * (*warps)[1] * (*warps)[2];
  }
  if (stages) {
    s.stages = *stages;
  } else {
    add_note(r, "stage count is not in the name; default kept");
  }
}

}  // namespace

std::optional<KernelNameResult> parse_xmma(std::string_view name, DType /*dtype: xmma names carry every type*/) {
  const auto tok = split(name, '_');
  if (tok.size() < 3 || !tok[0].starts_with("sm") || !to_int(tok[0].substr(2)) || tok[1] != "xmma") {
    return std::nullopt;
  }
  if (tok[2] != "gemm") return unsupported("xmma '" + std::string(tok[2]) + "' kernel is not a plain GEMM");
  if (tok.size() < 9 || !is_layout(tok[6], 2) || !is_layout(tok[7], 1)) {
    return unsupported("does not match the xmma grammar smNN_xmma_gemm_<types>_<ab>_<c>_tilesize...");
  }
  KernelNameResult r;
  r.supported = true;
  if (!xmma_types(tok[3], tok[4], tok[5], r)) return r;
  Schedule& s = r.schedule;
  s.name = std::string(name);
  s.layout_a = blas_letter(tok[6][0]);
  s.layout_b = blas_letter(tok[6][1]);
  std::optional<std::array<int, 3>> tile, cga, wg, warps;
  std::optional<int> stages;
  for (std::size_t i = 8; i < tok.size(); ++i) {
    const std::string_view t = tok[i];
    if (t.starts_with("tilesize")) {
      tile = dims3(t.substr(8));
    } else if (t.starts_with("cgasize")) {
      cga = dims3(t.substr(7));
    } else if (t.starts_with("warpgroupsize")) {
      wg = dims3(t.substr(13));
    } else if (t.starts_with("warpsize")) {
      warps = dims3(t.substr(8));
    } else if (t.starts_with("stage") && to_int(t.substr(5))) {
      stages = to_int(t.substr(5));
    } else if (t == "segment" && i + 2 < tok.size() && tok[i + 1] == "k") {
      if (tok[i + 2] == "on") {
        // Segment-K splits K across CTAs like split-K, with the factor chosen at run time.
        s.split_k_runtime = true;
        add_note(r, "segment_k_on: modelled as split-K with a run-time factor and a separate reduction");
      }
      i += 2;
    } else if (!(t.starts_with("tensor") || t.starts_with("align") || t == "execute" || t == "kernel" || t.empty() ||
                 t == "5x" || t == "cublas" || t == "trt")) {
      add_note(r, "ignored token '" + std::string(t) + "' (meaning unknown)");
    }
  }
  if (!tile) return unsupported("xmma name without a readable tilesize<M>x<N>x<K>");
  if (!wg && !warps) return unsupported("xmma name with neither warpgroupsize nor warpsize");
  const int arch = to_int(tok[0].substr(2)).value_or(0);
  if (wg && arch != 90) return unsupported("xmma warpgroup (wgmma) kernel for sm" + std::to_string(arch));
  if (!wg && arch < 80) return unsupported("xmma kernel for sm" + std::to_string(arch) + " (before Ampere)");
  s.tile = {(*tile)[0], (*tile)[1], (*tile)[2]};
  if (cga) {
    s.cluster = {(*cga)[0], (*cga)[1]};
  } else if (wg) {
    r.cluster_from_launch = true;
    add_note(r, "no cgasize: the recorded launch's cluster if there is one, else 1x1");
  }
  xmma_family(wg, warps, stages, r);
  return r;
}

std::optional<KernelNameResult> parse_ampere(std::string_view name, DType /*dtype: the name carries the types*/) {
  if (!name.starts_with("ampere_")) return std::nullopt;
  const auto tok = split(name, '_');
  std::size_t i = 1;
  std::string why;
  std::optional<DType> c_type;
  if (i < tok.size() && !tok[i].ends_with("gemm")) {
    c_type = type_from_token(tok[i], &why);
    if (!c_type) return unsupported("output type: " + why);
    ++i;
  }
  if (i >= tok.size() || !tok[i].ends_with("gemm")) return unsupported("does not match the ampere_*gemm grammar");
  const std::string_view core = tok[i++];  // <acc letter><mma shape>gemm, e.g. s16816gemm
  const std::string_view shape = core.size() > 5 ? core.substr(1, core.size() - 5) : std::string_view{};
  if (shape.empty() || !to_int(shape)) {
    return unsupported("'" + std::string(core) + "' is a SIMT kernel (no tensor-core MMA)");
  }
  if (core[0] != 's' && core[0] != 'h') {
    return unsupported("'" + std::string(core) + "': only fp32 (s) or fp16 (h) accumulation is modelled");
  }
  KernelNameResult r;
  r.supported = true;
  Schedule& s = r.schedule;
  s.name = std::string(name);
  s.family = Family::ampere_multistage;
  s.warp_specialization = WarpSpecialization::none;
  s.accumulate = core[0] == 's' ? DType::fp32 : DType::fp16;
  std::optional<DType> a_type = core[0] == 'h' ? std::optional<DType>(DType::fp16) : std::nullopt;
  if (i < tok.size() && !dims2(tok[i])) {
    a_type = type_from_token(tok[i++], &why);
    if (!a_type) return unsupported("input type: " + why);
  }
  if (!a_type) return unsupported("input type is not in the name");
  const auto tile = i < tok.size() ? dims2(tok[i++]) : std::nullopt;
  if (!tile) return unsupported("expected the CTA tile MxN after the types");
  std::optional<std::array<int, 2>> k_stages, sliced;
  std::optional<std::string_view> layout;
  for (; i < tok.size(); ++i) {
    const std::string_view t = tok[i];
    if (t == "stages" && i + 1 < tok.size() && dims2(tok[i + 1])) {
      k_stages = dims2(tok[++i]);
    } else if (t.starts_with("sliced")) {
      sliced = dims2(t.substr(6));
    } else if (t == "relu") {
      s.epilogue = Epilogue::bias_activation;
    } else if (is_layout(t, 2)) {
      layout = t;
    } else if (!(t.starts_with("ldg") || t == "f2f" || t == "mods" || t == "kernel")) {
      add_note(r, "ignored token '" + std::string(t) + "' (meaning unknown)");
    }
  }
  if (!layout) return unsupported("no layout letters (nn/nt/tn/tt) in the name");
  s.a_type = *a_type;
  s.b_type = *a_type;
  s.c_type = c_type.value_or(s.accumulate);  // no prefix: C has the accumulator's type
  s.layout_a = blas_letter((*layout)[0]);
  s.layout_b = blas_letter((*layout)[1]);
  s.tile.m = (*tile)[0];
  s.tile.n = (*tile)[1];
  if (k_stages) {
    s.tile.k = (*k_stages)[0];
    s.stages = (*k_stages)[1];
  } else {
    add_note(r, "K tile and stage count are not in the name; defaults kept");
  }
  s.warps = ampere_cublas_warps(s.tile.m, s.tile.n, sliced ? (*sliced)[0] * (*sliced)[1] : 1);
  return r;
}

}  // namespace tgsim::gemm::detail
