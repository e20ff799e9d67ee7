#!/usr/bin/env python3
"""Replays calib_gemm_feed's operand-feed rings in tgsim and prints them beside the measurement.

Each row of calibration_gemm_feed.csv (tools/bench/calib_gemm_feed.cu) is the data movement of
nvjet_sm90_tst_128x64_64x8_1x2 without its MMAs. This script lowers that kernel for the row's
shape with `tgsim lower gemm` (so the tile order, multicast and loads are the lowering's own),
turns every MMA into a delay of the row's hold cycles, drops the epilogue, and replays the graph
with `tgsim run-graph`: after a dirty L2 start for `flushed` rows, and as the second of two
identical kernels for `warm` rows. Rows with the other tile order (`alt_*`) get their clusters
renumbered the other way. It prints the measured in-kernel span, the model's kernel time, their
ratio, and (where small_gemm_feed.csv lies beside the CSV) the cuBLAS kernel's CUPTI time for the
same shape and L2 state, with the mean absolute error per L2 state, apart for rows that hold
their stages (one consumer warp whose holds add to its release cost: not the memory system).

Usage: gemm_feed_check.py [--gpu h200] [--csv traces/h200/calibration_gemm_feed.csv]
                          [--tgsim build/tools/tgsim/tgsim] [--set FIELD=VALUE ...] [--only SUBSTR]
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

KERNEL = "nvjet_sm90_tst_128x64_64x8_{cluster}_h_bz_TNT"


def feed_graph(tgsim, gpu, row, sets, tmp):
    """The lowered kernel of the row's shape with its MMAs as delays and no epilogue."""
    path = os.path.join(tmp, "lowered.json")
    cluster = "1x2" if row["cluster"] == "2" else "1x1"
    # the lowering takes M, N as PyTorch states them: M = the library's n, N = the library's m
    cmd = [tgsim, "lower", "gemm", "--gpu", gpu, "--m", row["n"], "--n", row["m"], "--k", row["k"],
           "--kernel", KERNEL.format(cluster=cluster), "--out", path]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    with open(path) as f:
        g = json.load(f)
    kernel = g["kernels"][0]
    hold = max(int(row["hold_cycles"]), 1)
    for t in kernel["templates"]:
        dropped = {n["id"] for n in t["nodes"] if n["kind"] in ("simt", "smem", "store")}
        nodes = []
        for n in t["nodes"]:
            if n["id"] in dropped:
                continue
            if n["kind"] == "mma":
                n = {"id": n["id"], "kind": "delay", "role": n["role"], "cycles": f"{hold}cycles"}
            nodes.append(n)
        t["nodes"] = nodes
        t["edges"] = [e for e in t["edges"] if e["from"] not in dropped and e["to"] not in dropped]
    if row["order"].startswith("alt"):
        for grid in kernel["grid"]:
            k = int(row["cluster"])
            params = grid["params"]
            clusters = [params[i:i + k] for i in range(0, len(params), k)]
            n_first = row["order"] == "alt_nfirst"
            clusters.sort(key=lambda c: (c[0][0], c[0][1]) if n_first else (c[0][1], c[0][0]))
            grid["params"] = [p for c in clusters for p in c]
    if row["l2"] == "warm":
        second = json.loads(json.dumps(kernel))
        second["name"] = kernel["name"] + "_warm"
        g["kernels"] = [kernel, second]
    return g


def replay(tgsim, gpu, graph, sets, tmp):
    path = os.path.join(tmp, "feed.json")
    with open(path, "w") as f:
        json.dump(graph, f)
    cmd = [tgsim, "run-graph", path, "--gpu", gpu, "--json"]
    for s in sets:
        cmd += ["--set", s]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["kernels"][-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpu", default="h200")
    ap.add_argument("--csv", default=None)
    ap.add_argument("--tgsim", default="build/tools/tgsim/tgsim")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    path = a.csv
    if path is None:  # the newest run of the GPU's folder
        found = [f"traces/{a.gpu}/{n}" for n in ("calibration_gemm_feed.csv", "calibration_gemm_feed_run1.csv")
                 if os.path.exists(f"traces/{a.gpu}/{n}")]
        if not found:
            sys.exit(f"gemm_feed_check.py: no calibration_gemm_feed*.csv in traces/{a.gpu}/ (give --csv)")
        path = found[0]
    with open(path) as f:
        rows = [r for r in csv.DictReader(f) if a.only in r["case"]]
    cublas = {}
    cublas_path = os.path.join(os.path.dirname(path), "small_gemm_feed.csv")
    if os.path.exists(cublas_path):
        with open(cublas_path) as f:
            for r in csv.DictReader(f):
                if "128x64_64x8_1x2" in r["kernels"]:  # row order: the library's m is N
                    cublas[(r["N"], r["M"], r["K"], r["l2"])] = float(r["kernel_us"])
    errs = {}
    print(f"{'case':48s} {'span_us':>8s} {'model_us':>8s} {'ratio':>6s} {'hbm_MB':>7s} {'l2_MB':>7s} {'cublas':>7s}")
    with tempfile.TemporaryDirectory() as tmp:
        for r in rows:
            k = replay(a.tgsim, a.gpu, feed_graph(a.tgsim, a.gpu, r, a.set, tmp), a.set, tmp)
            span, model = float(r["span_us"]), k["duration_us"]
            group = r["l2"] + (", holding" if int(r["hold_cycles"]) > 0 else "")
            errs.setdefault(group, []).append(abs(model / span - 1))
            cb = cublas.get((r["m"], r["n"], r["k"], r["l2"])) if r["cluster"] == "2" and r["order"] in (
                "nfirst", "mfirst") and r["hold_cycles"] == "0" else None
            print(f"{r['case']:48s} {span:8.2f} {model:8.2f} {model / span:6.3f} {k['hbm_bytes'] / 1e6:7.1f} "
                  f"{k['l2_bytes'] / 1e6:7.1f} {cb if cb is not None else '':>7}")
    for group, e in errs.items():
        print(f"{group}: {len(e)} rows, mean |model/span - 1| {100 * statistics.mean(e):.1f}%, worst {100 * max(e):.1f}%")


if __name__ == "__main__":
    main()
