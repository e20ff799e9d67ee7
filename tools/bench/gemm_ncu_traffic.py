#!/usr/bin/env python3
"""L2 read traffic of each profiled GEMM kernel against the model's.

For every nvjet kernel of the committed GEMM profiles (the same list as gemm_ncu_cycles.py) and the
xmma tf32 kernels of the tf32 profile, prints the bytes the SMs asked the L2 for
(`lts__t_sectors_srcunit_tex_op_read.sum` x 32 B, Nsight Compute) next to what the model moves
through the L2 (`resources.l2.bytes` of

  tgsim gemm --gpu h200 --kernel NAME --m M --n N --k K --dtype D --l2-start clean --json
             [--launch-grid G --launch-cluster C]   (xmma kernels: the launch Nsight Compute recorded)

: every CTA's operand tiles once, a multicast slice once per cluster) and the ratio, with the
kernel's cluster shape and whether its K rows are 128-byte aligned. `--set FIELD=VALUE` arguments go
on to tgsim, e.g. `--set l2.gpc_combine_window=1us --set l2.gpc_combine_fraction=0.3` for the
optional request combining within a GPC (docs/validation.md, "The K-heavy row's L2 traffic").

Usage: gemm_ncu_traffic.py [--tgsim build/tools/tgsim/tgsim] [--set FIELD=VALUE ...]
"""
import argparse
import math
import re
import statistics

from gemm_ncu_cycles import launch_of, model_json, profiled_nvjet_kernels, profiled_xmma_kernels

SECTOR_BYTES = 32


def rows():
    """(shape, dtype, kernel, launch or None) for every profiled kernel this script replays."""
    for shape, kern in profiled_nvjet_kernels():
        yield shape, "bf16", kern, None
    for shape, kern in profiled_xmma_kernels():
        yield shape, "tf32", kern, launch_of(kern)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tgsim", default="build/tools/tgsim/tgsim")
    ap.add_argument("--set", action="append", default=[], dest="sets", metavar="FIELD=VALUE")
    args = ap.parse_args()
    print("| M × N × K | dtype | kernel | cluster | K rows 128 B aligned | Nsight MB | model MB | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    ratios = []
    for shape, dtype, kern, launch in rows():
        measured = kern.value("lts__t_sectors_srcunit_tex_op_read.sum") * SECTOR_BYTES
        model = model_json(args.tgsim, shape, kern.name, *args.sets, dtype=dtype, launch=launch)["resources"]["l2"]["bytes"]
        named = re.search(r"_(\d+x\d+)_[hv]_", kern.name)
        cluster = named.group(1) if named else launch[1].rsplit("x", 1)[0]
        elem = 4 if dtype == "tf32" else 2
        aligned = "yes" if shape[2] * elem % 128 == 0 else "no"  # K-major rows
        ratios.append(measured / model)
        short = kern.name if len(kern.name) < 60 else kern.name[:57] + "..."
        print(f"| {shape[0]}×{shape[1]}×{shape[2]} | {dtype} | `{short}` | {cluster} | {aligned} | "
              f"{measured / 1e6:.1f} | {model / 1e6:.1f} | {measured / model:.2f} |")
    within = sum(1 for r in ratios if 0.8 <= r <= 1.25)
    print(f"\n{len(ratios)} kernels: Nsight / model median {statistics.median(ratios):.2f}, range "
          f"{min(ratios):.2f}-{max(ratios):.2f}, mean |ln ratio| {statistics.mean(abs(math.log(r)) for r in ratios):.3f}, "
          f"{within} within 0.8-1.25")


if __name__ == "__main__":
    main()
