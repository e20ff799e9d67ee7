#include "frontend/gemm/request.h"

#include <algorithm>

#include <fmt/format.h>

#include "frontend/gemm/default_schedule.h"
#include "frontend/gemm/kernel_names.h"
#include "frontend/gemm/schedule_json.h"
#include "sim/units/error.h"

namespace tgsim::gemm {
namespace {

std::int64_t product(const std::array<int, 3>& d) {
  return static_cast<std::int64_t>(d[0]) * d[1] * d[2];
}

// What a name leaves out, from the recorded launch. The cluster: its CTA count, placed along the
// library's m so that the CTAs of a cluster share (multicast) the B tile. Evidence: Nsight Compute
// of the tf32 4096^3 xmma kernel (tilesize128x256x32, launched with 1x2x1 clusters) counts 2.38 GB
// of L2 traffic (traces/h200/gemm_ncu_raw.csv, lts__t_sectors.sum); its operand loads alone are
// 3.2 GB without multicast, 2.7 GB sharing A and 2.15 GB sharing B. Persistence: a launch of fewer
// CTAs than output tiles loops over tiles.
// A cluster larger than the problem's tiles along m cannot lie along m (cuBLAS launches segment-K
// xmma kernels of 2 x 4 tiles with 4-CTA clusters, traces/h200/gemm.csv): it then goes along n (the
// CTAs share A) if it fits there, else it is not modelled (1x1).
void complete_from_launch(const KernelNameResult& k, const Request& r, Resolved& out) {
  Schedule& s = out.schedule;
  const Problem& p = out.problem;
  const std::int64_t cluster = product(r.launch_cluster);
  if (k.cluster_from_launch && cluster > 1 && s.tile.m > 0 && s.tile.n > 0) {
    const std::int64_t m_tiles = (p.m + s.tile.m - 1) / s.tile.m;
    const std::int64_t n_tiles = (p.n + s.tile.n - 1) / s.tile.n;
    if (m_tiles >= cluster) {
      s.cluster = {static_cast<int>(cluster), 1};
      out.notes.push_back(fmt::format("cluster {} from the recorded launch, along m (the CTAs share B)", cluster));
    } else if (n_tiles >= cluster) {
      s.cluster = {1, static_cast<int>(cluster)};
      out.notes.push_back(fmt::format(
          "cluster {} from the recorded launch, along n (the CTAs share A): only {} tile(s) along m", cluster, m_tiles));
    } else {
      out.notes.push_back(fmt::format("cluster {} from the recorded launch does not fit {}x{} tiles: modelled as 1x1",
                                      cluster, m_tiles, n_tiles));
    }
  }
  // xmma's segment-K factor is chosen at run time; the launch shows it: one CTA per tile and
  // segment (tf32 256x256x65536, tilesize128x64: 120 CTAs for 8 tiles).
  if (k.persistence_from_launch && s.split_k_runtime && s.split_k <= 1 && s.tile.m > 0 && s.tile.n > 0) {
    const std::int64_t tiles = ((p.m + s.tile.m - 1) / s.tile.m) * ((p.n + s.tile.n - 1) / s.tile.n) * p.groups;
    const std::int64_t launched = product(r.launch_grid);
    if (launched > tiles && launched % tiles == 0) {
      s.split_k = static_cast<int>(launched / tiles);
      out.notes.push_back(
          fmt::format("split-K {} from the recorded launch ({} CTAs for {} tiles)", s.split_k, launched, tiles));
    }
  }
  // CUTLASS 2.x kernels (Kernel2<cutlass_*>) launch (tiles along m, tiles along n, K slices):
  // grid z > 1 is the split-K factor. With a reduction kernel after it the slices go to a
  // workspace; without one it is CUTLASS's serial split-K (the slices add into C in turn).
  const int z = r.launch_grid[2];
  if (s.family == Family::ampere_multistage && z > 1 && s.split_k <= 1 && !s.stream_k) {
    s.split_k = z;
    s.split_k_runtime = false;
    s.split_k_serial = !k.has_splitk_reduce;
    out.notes.push_back(fmt::format("split-K {} from the recorded launch's grid z{}", z,
                                    s.split_k_serial ? " (no reduction kernel: serial split-K into C)" : ""));
  }
  const std::int64_t ctas = product(r.launch_grid);
  if (k.persistence_from_launch && ctas > 0 && s.tile.m > 0 && s.tile.n > 0) {
    const std::int64_t tiles = ((p.m + s.tile.m - 1) / s.tile.m) * ((p.n + s.tile.n - 1) / s.tile.n) * p.groups;
    if (ctas < tiles && s.split_k <= 1 && !s.split_k_runtime) {
      s.persistent = true;
      out.notes.push_back(fmt::format("persistent: the recorded launch has {} CTAs for {} tiles", ctas, tiles));
    }
  }
}

}  // namespace

Resolved resolve(const Request& r, const hw::GpuSpec& spec) {
  Resolved out;
  const DType out_type = r.out_dtype.value_or(default_output_type(r.dtype));
  // Grouped kernels (CUTLASS pointer-array, torch._grouped_mm) tile the row-major problem as it is
  // stated (m = tokens per group): no swap to a column-major library's view.
  const bool swap = r.row_major && !(r.grouped || r.groups > 1);
  out.problem = swap ? from_row_major(r.m, r.n, r.k, r.dtype, out_type) : Problem{r.m, r.n, r.k, 1, r.dtype, r.dtype, out_type};
  out.problem.groups = std::max<std::int64_t>(1, r.groups);
  if (!r.kernel.empty() && !r.schedule_file.empty())
    throw InputError("--kernel and --schedule both given: pick one way to state the schedule");
  if (!r.kernel.empty()) {
    KernelNameResult k = parse_gemm_kernel_names(r.kernel, r.dtype);
    if (!k.supported) throw InputError(fmt::format("kernel \"{}\" is not supported: {}", r.kernel, k.reason));
    out.schedule = k.schedule;
    out.schedule_source = "kernel";
    out.notes = k.notes;
    if (out.schedule.name.empty()) out.schedule.name = k.kernels.empty() ? r.kernel : k.kernels.front();
    complete_from_launch(k, r, out);
  } else if (!r.schedule_file.empty()) {
    out.schedule = read_schedule(r.schedule_file);
    out.schedule_source = "schedule file";
  } else {
    out.schedule = default_schedule(out.problem, spec, r.grouped);
    out.schedule_source = "default rule";
    if (const int align = operand_alignment_bytes(out.problem); align < 16) {
      out.notes.push_back(fmt::format(
          "leading dimensions only {}-byte aligned (library view: A and B rows of k, C columns of m): {}", align,
          out.schedule.load_alignment == 2
              ? std::string("CUTLASS's sm75 register-staged kernel (2-byte loads), as cuBLASLt runs")
              : fmt::format("CUTLASS 2.x cp.async copies of {} bytes, no TMA, as cuBLASLt runs", out.schedule.load_alignment)));
      // One row (or column) with 2-byte rows: cuBLASLt runs a GEMV kernel there, not a tiled GEMM.
      if (out.schedule.load_alignment == 2 && std::min(out.problem.m, out.problem.n) == 1) {
        out.notes.push_back(
            "a single row with 2-byte aligned rows: cuBLASLt runs a GEMV kernel (gemv2T_kernel) here, which tgsim does "
            "not model; this tiled schedule over-predicts it several-fold (docs/gemm.md)");
      }
    }
  }
  // The problem's types win over what a name implied (a name may carry no types at all).
  out.schedule.a_type = out.problem.a_type;
  out.schedule.b_type = out.problem.b_type;
  out.schedule.c_type = out.problem.c_type;
  return out;
}

}  // namespace tgsim::gemm
