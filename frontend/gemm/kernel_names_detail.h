// Internals of kernel_names.cpp: one parser per name grammar plus the small helpers they share.
// Not part of the public API; tests go through parse_gemm_kernel_names().
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/gemm/kernel_names.h"
#include "frontend/text.h"

namespace tgsim::gemm::detail {

// --- Grammar parsers. Each returns std::nullopt when the name is not of its grammar at all, so the
// --- dispatcher can try the next; a name of its grammar that it cannot decode comes back unsupported.

// cuBLAS(Lt) nvjet kernels: nvjet_[smNN_]<types>_<M>x<N>_<K>x<stages>_<cluster>_[2cta_]<h|v>_..._<LLL>.
std::optional<KernelNameResult> parse_nvjet(std::string_view name, DType dtype);
// cuBLAS xmma kernels: smNN_xmma_gemm_<types>_<ab>_<c>_tilesize<M>x<N>x<K>_...
std::optional<KernelNameResult> parse_xmma(std::string_view name, DType dtype);
// cuBLAS Ampere kernels: ampere_[<c>_]<acc><mma>gemm_[<a>_]<M>x<N>_..._stages_<K>x<S>_<ab>.
std::optional<KernelNameResult> parse_ampere(std::string_view name, DType dtype);
// CUTLASS library names, 2.x (cutlass_80_tensorop_...) and 3.x (cutlass3x_sm90_tensorop_...), bare or
// inside a wrapper such as cutlass::Kernel2<...> or an Itanium-mangled symbol.
std::optional<KernelNameResult> parse_cutlass_named(std::string_view name, DType dtype);
// The 3.x part of parse_cutlass_named, given the bare library name (kernel_names_cutlass3.cpp).
KernelNameResult parse_cutlass3(std::string_view name);
// CUTLASS 3.x template form: cutlass::device_kernel<...GemmUniversal<..., CollectiveMma<Policy<...>, ...>>>.
std::optional<KernelNameResult> parse_cutlass_template(std::string_view name, DType dtype);
// The same template form left Itanium-mangled (_ZN7cutlass13device_kernel...): demangled where the C++
// runtime can, else read from the mangled text (kernel_names_mangled.cpp).
std::optional<KernelNameResult> parse_cutlass_mangled(std::string_view name, DType dtype);

// PyTorch's grouped-GEMM setup kernel (at::cuda::detail::prepare_grouped_gemm_data<...>), which fills
// the groups' pointer and shape arrays before the grouped GEMM runs.
bool is_grouped_setup(std::string_view name);

// cuBLASLt's splitKreduce_kernel or CUTLASS's ReduceSplitK: the reduction that follows a split-K GEMM.
bool is_splitk_reduce(std::string_view name);

// --- Helpers (kernel_names_util.cpp).

KernelNameResult unsupported(std::string reason);
void add_note(KernelNameResult& r, std::string note);  // once: repeated notes are dropped
using frontend::dims2;   // "AxB"
using frontend::dims3;   // "AxBxC"
using frontend::split;
using frontend::to_int;  // decimal digits only
using frontend::trim;
std::string_view tail(std::string_view s, std::size_t from);  // s.substr(from), empty when s is shorter
bool is_layout(std::string_view s, std::size_t letters);      // only n/t/N/T, `letters` long
char blas_letter(char c);                                     // 'n'/'t' -> 'N'/'T'

// A type token as CUTLASS and cuBLAS names spell it ("bf16", "f16", "f32", "tf32", "e4m3", "e5m2",
// "s8", "e2m1", "fp16", "int8", ...). Sets *why when the token is a real type with no DType (int32, fp64).
std::optional<DType> type_from_token(std::string_view tok, std::string* why);
// Splits concatenated type tokens ("bf16bf16", "f32tf32") into their parts; empty when it cannot.
std::vector<std::string_view> split_types(std::string_view s);

// Warps per CTA of an Ampere-style kernel whose name gives only the CTA tile; see docs/kernel-names.md.
int ampere_cublas_warps(int tile_m, int tile_n, int slices);
int cutlass2_warps(int tile_m, int tile_n);

}  // namespace tgsim::gemm::detail
