#!/usr/bin/env python3
"""L2 read traffic of each profiled nvjet GEMM kernel against the model's.

For every nvjet kernel of the committed GEMM profiles (the same list as gemm_ncu_cycles.py), prints
the bytes the SMs asked the L2 for (`lts__t_sectors_srcunit_tex_op_read.sum` x 32 B, Nsight Compute)
next to what the model moves through the L2 (`resources.l2.bytes` of

  tgsim gemm --gpu h200 --kernel NAME --m M --n N --k K --l2-start clean --json

: every CTA's operand tiles once, a multicast slice once per cluster) and the ratio, with the
kernel's cluster shape and whether its K rows are 128-byte aligned. The model has no combining of
requests from SMs that read the same lines (docs/validation.md, "The K-heavy row's L2 traffic").

Usage: gemm_ncu_traffic.py [build/tools/tgsim/tgsim]
"""
import re
import sys

from gemm_ncu_cycles import model_json, profiled_nvjet_kernels

SECTOR_BYTES = 32


def main():
    tgsim = sys.argv[1] if len(sys.argv) > 1 else "build/tools/tgsim/tgsim"
    print("| M × N × K | kernel | cluster | K rows 128 B aligned | Nsight MB | model MB | ratio |")
    print("|---|---|---|---|---|---|---|")
    for shape, kern in profiled_nvjet_kernels():
        measured = kern.value("lts__t_sectors_srcunit_tex_op_read.sum") * SECTOR_BYTES
        model = model_json(tgsim, shape, kern.name)["resources"]["l2"]["bytes"]
        cluster = re.search(r"_(\d+x\d+)_[hv]_", kern.name)
        aligned = "yes" if shape[2] * 2 % 128 == 0 else "no"  # bf16 operands, K-major rows
        print(f"| {shape[0]}×{shape[1]}×{shape[2]} | `{kern.name}` | {cluster.group(1) if cluster else '?'} | "
              f"{aligned} | {measured / 1e6:.1f} | {model / 1e6:.1f} | {measured / model:.2f} |")


if __name__ == "__main__":
    main()
