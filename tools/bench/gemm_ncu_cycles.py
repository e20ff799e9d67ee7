#!/usr/bin/env python3
"""Cycles apart from the clock: each nvjet GEMM kernel profiled under Nsight Compute against the
model run at the clock that kernel ran at.

Nsight Compute records each kernel's duration (`gpu__time_duration.sum`, caches flushed before the
pass, `--cache-control all`) and its average GPC clock (`gpc__cycles_elapsed.avg.per_second`, with
`--clock-control none`). This script replays each nvjet kernel of the committed GEMM profiles with

  tgsim gemm --gpu h200 --kernel NAME --m M --n N --k K --l2-start clean
             --set clock.model=constant --set clock.boost=<the measured clock>

so the difference is the model's cycles alone (memory at its own speed), not its clock model and
not the launch costs that an event-timed row carries. Kernels whose schedule the name does not
carry (xmma, CUTLASS 2.x) are left out: `tgsim gemm` has no grid or cluster flags for them.

Usage: gemm_ncu_cycles.py [build/tools/tgsim/tgsim] [--xmma] [--set FIELD=VALUE ...]
"""
import argparse
import json
import subprocess

import ncu_raw

# (raw export, the M, N, K of each GEMM in profile order; None: a GEMM not replayed here). The
# shapes are gemm_ncu.py's sets: cluster, tf32 (its two bf16 controls), the default set, traffic.
PROFILES = [
    ("traces/h200/gemm_cluster_ncu_raw.csv.gz",
     [(1536, 576, 7168), (384, 1536, 7168), (384, 5120, 2048), (96, 576, 7168), (1024, 1024, 8192),
      (4096, 4096, 4096)]),
    ("traces/h200/gemm_tf32_ncu_raw.csv.gz", [None] * 5 + [(1000, 1000, 1000), (256, 4096, 4096)]),
    ("traces/h200/gemm_ncu_raw.csv", [None, (2560, 2560, 2560)]),
    ("traces/h200/gemm_traffic_ncu_raw.csv",
     [(256, 57344, 8192), (1024, 14336, 4096), (512, 28672, 4096), (256, 10240, 8192), (256, 14336, 4096),
      (4096, 4096, 4096)]),
]
def profiled_nvjet_kernels():
    """(shape, profiled kernel) for every nvjet GEMM kernel of PROFILES, in profile order."""
    for path, shapes in PROFILES:
        ks = ncu_raw.kernels(path)
        i = 0
        for shape in shapes:
            kernel = ks[i]
            i += 1
            while i < len(ks) and "reduce" in ks[i].name.lower():  # a split-K GEMM's reduction
                i += 1
            if shape is not None and kernel.name.startswith("nvjet"):
                yield shape, kernel


# The xmma tf32 GEMMs of gemm_ncu.py's tf32 set (the first five of its profile). Their names carry
# no cluster or persistence: the model takes both from the launch Nsight Compute recorded.
XMMA_PROFILES = [
    ("traces/h200/gemm_tf32_ncu_raw.csv.gz",
     [(1000, 1000, 1000), (1024, 1024, 1024), (512, 512, 512), (256, 4096, 4096), (16, 4096, 4096)]),
]


def profiled_xmma_kernels():
    """(shape, profiled kernel) for the xmma tf32 kernels of XMMA_PROFILES, in profile order."""
    for path, shapes in XMMA_PROFILES:
        for shape, kernel in zip(shapes, ncu_raw.kernels(path)):
            if "xmma" in kernel.name:
                yield shape, kernel


def launch_of(kernel):
    """--launch-grid / --launch-cluster arguments from a profiled kernel's recorded launch."""
    dims = [int(kernel.value(f"launch__{w}_dim_{a}")) for w in ("grid", "cluster") for a in "xyz"]
    return (f"{dims[0]}x{dims[1]}x{dims[2]}", f"{max(1, dims[3])}x{max(1, dims[4])}x{max(1, dims[5])}")


def model_json(tgsim, shape, name, *sets, dtype="bf16", launch=None):
    """`tgsim gemm --gpu h200 ... --l2-start clean --json` for one kernel, with `--set` overrides and
    optionally the recorded launch (grid, cluster)."""
    m, n, k = shape
    cmd = [tgsim, "gemm", "--gpu", "h200", "--m", str(m), "--n", str(n), "--k", str(k), "--kernel", name,
           "--dtype", dtype, "--l2-start", "clean", "--json"]
    if launch:
        cmd += ["--launch-grid", launch[0], "--launch-cluster", launch[1]]
    for s in sets:
        cmd += ["--set", s]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def model_us(tgsim, shape, name, hz, *sets, dtype="bf16", launch=None):
    out = model_json(tgsim, shape, name, "clock.model=constant", "clock.base=1000MHz", f"clock.boost={hz / 1e6:.0f}MHz",
                     *sets, dtype=dtype, launch=launch)
    return out["kernels"][0]["duration_us"]


def main():
    ap = argparse.ArgumentParser(description="Cycles apart from the clock: profiled GEMM kernels against the model.")
    ap.add_argument("tgsim", nargs="?", default="build/tools/tgsim/tgsim")
    ap.add_argument("--xmma", action="store_true", help="also the xmma tf32 kernels, with their recorded launch")
    ap.add_argument("--set", action="append", default=[], dest="sets", metavar="FIELD=VALUE",
                    help="passed on to tgsim, e.g. l2.gpc_combine_window=1us")
    args = ap.parse_args()
    tgsim = args.tgsim
    rows = [(shape, kernel, "bf16", None) for shape, kernel in profiled_nvjet_kernels()]
    if args.xmma:
        rows += [(shape, kernel, "tf32", launch_of(kernel)) for shape, kernel in profiled_xmma_kernels()]
    print("| M × N × K | kernel | measured µs | clock GHz | model µs at that clock | error |")
    print("|---|---|---|---|---|---|")
    errors = []
    for shape, kernel, dtype, launch in rows:
        name, t, hz = kernel.name, kernel.duration_us, kernel.clock_hz
        mu = model_us(tgsim, shape, name, hz, *args.sets, dtype=dtype, launch=launch)
        errors.append(mu / t - 1)
        print(f"| {shape[0]}×{shape[1]}×{shape[2]} | `{name}` | {t:.2f} | {hz / 1e9:.3f} | {mu:.2f} | "
              f"{100 * (mu / t - 1):+.1f}% |")
    mape = 100 * sum(abs(e) for e in errors) / len(errors)
    mean = 100 * sum(errors) / len(errors)
    print(f"\n{len(errors)} kernels: mean error {mean:+.1f}%, mean |error| {mape:.1f}%")


if __name__ == "__main__":
    main()
