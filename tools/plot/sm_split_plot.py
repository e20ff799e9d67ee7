#!/usr/bin/env python3
"""Measured and predicted time versus communication SMs for SM-split sweeps.

Usage: sm_split_plot.py ROWS.csv OUT.png [--bytes B] [--threads T] [--chains C] [--mma M]
ROWS.csv is `tgsim validate --measurements traces/h200x2/sm_split.csv --rows-out ROWS.csv`.
One panel per steal setting, one line pair (measured solid, predicted dashed) per tile count.
matplotlib only.
"""
import argparse
import collections
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rows")
    ap.add_argument("out")
    ap.add_argument("--bytes", default="67108864")
    ap.add_argument("--chunk", default="1048576")
    ap.add_argument("--threads", default="256")
    ap.add_argument("--chains", default="4")
    ap.add_argument("--mma", default="1024")
    a = ap.parse_args()
    groups = collections.defaultdict(list)
    for r in csv.DictReader(open(a.rows)):
        if (r["bytes"], r["chunk_bytes"], r["threads"], r["mma_chains"], r["mma_per_warp_per_tile"]) != (
                a.bytes, a.chunk, a.threads, a.chains, a.mma) or not r.get("predicted_us"):
            continue
        groups[(r["steal"], int(r["tiles"]))].append((int(r["comm_blocks"]), float(r["time_us"]), float(r["predicted_us"])))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    all_tiles = sorted({t for _, t in groups})
    for ax, steal in zip(axes, ["0", "1"]):
        for tiles in sorted(t for s, t in groups if s == steal):
            pts = sorted(groups[(steal, tiles)])
            c = colours[all_tiles.index(tiles) % len(colours)]  # one colour per tile count in both panels
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "-o", color=c, ms=3, label=f"{tiles} tiles measured")
            ax.plot([p[0] for p in pts], [p[2] for p in pts], "--", color=c, label=f"{tiles} tiles predicted")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("communication SMs (c)")
        ax.set_title(f"steal = {steal}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("kernel time (us)")
    fig.suptitle(f"SM split on 2 x H200: {int(a.bytes) >> 20} MiB pushed, {a.threads} threads, {a.mma} mma x {a.chains} chains per tile")
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)


if __name__ == "__main__":
    main()
