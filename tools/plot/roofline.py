#!/usr/bin/env python3
"""Roofline plot of simulated runs.

Usage: roofline.py OUT.png REPORT.json [REPORT.json ...]
Each REPORT.json is the output of a tgsim command with --json (gemm, attention, run-graph).
For each run: arithmetic intensity = tensor FLOPs / HBM bytes and achieved FLOP/s = tensor FLOPs
/ latency; the ceilings come from the report's resolved gpu_spec: the peak tensor rate
(flops_per_cycle of the run's dtype path x SMs x boost clock) and HBM bandwidth x efficiency.
Points are labelled with the file name (or the report's schedule). matplotlib only.
"""
import json
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

UNITS = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def leaf(v):
    return v["value"] if isinstance(v, dict) and "value" in v else v


def rate(text):
    """'3.35TB/s' -> bytes/s, '1.98GHz' -> Hz."""
    m = re.match(r"\s*([0-9.eE+-]+)\s*([kMGT]?)", str(leaf(text)))
    return float(m.group(1)) * UNITS[m.group(2)]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, reports = sys.argv[1], sys.argv[2:]
    fig, ax = plt.subplots(figsize=(7, 5))
    ceilings = {}
    for path in reports:
        with open(path) as f:
            r = json.load(f)
        res = r["resources"]
        flops = res.get("tensor", {}).get("flops", 0.0)
        hbm = res.get("hbm", {}).get("bytes", 0.0)
        t = r["latency_us"] * 1e-6
        if flops <= 0 or hbm <= 0 or t <= 0:
            print(f"{path}: no tensor FLOPs or HBM bytes, skipped", file=sys.stderr)
            continue
        spec = r["gpu_spec"]
        sms = leaf(spec["sm"]["count"])
        boost = rate(spec["clock"]["boost"])
        dtype = str(r.get("inputs", {}).get("dtype", "bf16"))
        per_clk = max(leaf(v) for path_rates in spec["tensor"]["flops_per_cycle"].values()
                      for k, v in path_rates.items() if k == dtype) if dtype else 0
        bw = rate(spec["hbm"]["bandwidth"]) * float(leaf(spec["hbm"].get("efficiency", 1.0)))
        ceilings[(r["gpu"], dtype)] = (per_clk * sms * boost, bw)
        label = os.path.splitext(os.path.basename(path))[0]
        ax.scatter(flops / hbm, flops / t / 1e12, zorder=3)
        ax.annotate(label, (flops / hbm, flops / t / 1e12), fontsize=7, xytext=(4, 4), textcoords="offset points")
    for (gpu, dtype), (peak, bw) in ceilings.items():
        xs = [0.01 * peak / bw * 10 ** (i / 20) for i in range(0, 101)]
        ax.plot(xs, [min(peak, bw * x) / 1e12 for x in xs], label=f"{gpu} {dtype}: {peak / 1e12:.0f} TFLOP/s, {bw / 1e12:.2f} TB/s")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (tensor FLOPs / HBM byte)")
    ax.set_ylabel("achieved TFLOP/s (simulated)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=130)


if __name__ == "__main__":
    main()
