#!/usr/bin/env python3
"""Checks a preset's `l2.flush_dirty_fraction` against calib_tma's memset-flush rows.

calib_tma streams 2D TMA boxes (8 KiB, 8 stages, each CTA its own region) after two kinds of L2
flush: a 256 MiB memset (`tiled_len`: L2 left full of dirty lines) and a memset followed by a 256
MiB read (`tiled_len_rdflush`: L2 left clean). The difference of the two is what writing back the
dirty lines costs. This script replays the same rings as tile graphs (`tgsim run-graph`, one ring
per CTA count and bytes per CTA, written to a temporary folder) with `--l2-start clean` and
`--l2-start dirty` at each given fraction, and prints the model's difference beside the measured
one, with the mean absolute residual and that residual relative to the memset rows' time. Using
the difference takes out the ring's own error (printed as the clean rows' error).

Usage: flush_dirty_check.py GPU FRACTION... [--tgsim build/tools/tgsim/tgsim]
  e.g. flush_dirty_check.py h100 0.4 0.5 0.6   (reads traces/GPU/calibration_tma.csv)
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import tempfile

BOX = 8192
STAGES = 8


def ring_graph(ctas, per_cta_bytes):
    """One producer ring per CTA: box i waits for the release of box i - STAGES."""
    nodes, edges = [], []
    for i in range(per_cta_bytes // BOX):
        nodes.append({"id": f"ld{i}", "kind": "load", "engine": "tma", "role": "producer", "bytes": BOX,
                      "tile": {"tensor": "A", "coords": ["p0", i, 0]}})
        nodes.append({"id": f"rel{i}", "kind": "delay", "role": "consumer", "cycles": "1cycles"})
        edges.append({"from": f"ld{i}", "to": f"rel{i}", "kind": "data"})
        if i > 0:
            edges.append({"from": f"rel{i - 1}", "to": f"rel{i}", "kind": "order"})
        if i >= STAGES:
            edges.append({"from": f"rel{i - STAGES}", "to": f"ld{i}", "kind": "order"})
    return {"format": "tgsim-tile-graph/1", "name": "ring", "kernels": [{
        "name": "ring", "cta": {"threads": 64, "shared_memory": "120KiB"},
        "tensors": [{"name": "A", "bytes": ctas * per_cta_bytes}],
        "templates": [{"name": "main", "roles": [{"name": "producer", "warps": 1},
                                                  {"name": "consumer", "first_warp": 1, "warps": 1}],
                       "nodes": nodes, "edges": edges}],
        "grid": [{"template": "main", "count": ctas, "params_per_cta": 1, "params": [[c] for c in range(ctas)]}]}]}


def measured_pairs(gpu):
    """(ctas, bytes per CTA) -> {variant: event time in us} for the 8-stage length rows."""
    rows = {}
    with open(f"traces/{gpu}/calibration_tma.csv") as f:
        for r in csv.DictReader(f):
            if r["variant"] in ("tiled_len", "tiled_len_rdflush") and r["stages"] == str(STAGES):
                per_cta = int(re.search(r"(\d+) B per CTA", r["method"]).group(1))
                rows.setdefault((int(r["ctas"]), per_cta), {})[r["variant"]] = float(r["time_us"])
    return {k: v for k, v in sorted(rows.items()) if len(v) == 2}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gpu")
    ap.add_argument("fractions", type=float, nargs="+")
    ap.add_argument("--tgsim", default="build/tools/tgsim/tgsim")
    a = ap.parse_args()
    pairs = measured_pairs(a.gpu)
    with tempfile.TemporaryDirectory() as tmp:
        def latency(key, start, fraction=0.5):
            path = os.path.join(tmp, f"ring_{key[0]}_{key[1]}.json")
            if not os.path.exists(path):
                with open(path, "w") as f:
                    json.dump(ring_graph(*key), f)
            cmd = [a.tgsim, "run-graph", path, "--gpu", a.gpu, "--l2-start", start, "--json",
                   "--set", f"l2.flush_dirty_fraction={fraction}"]
            return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)["latency_us"]

        clean = {k: latency(k, "clean") for k in pairs}
        measured = {k: v["tiled_len"] - v["tiled_len_rdflush"] for k, v in pairs.items()}
        print(f"{len(pairs)} pairs (CTAs, KiB per CTA): " + " ".join(f"{c}/{b // 1024}" for c, b in pairs))
        print("clean rows, model error %: " +
              " ".join(f"{100 * (clean[k] / v['tiled_len_rdflush'] - 1):+.1f}" for k, v in pairs.items()))
        print("measured memset - read flush, us: " + " ".join(f"{measured[k]:.1f}" for k in pairs))
        for fraction in a.fractions:
            model = {k: latency(k, "dirty", fraction) - clean[k] for k in pairs}
            resid = [model[k] - measured[k] for k in pairs]
            rel = [100 * abs(r) / pairs[k]["tiled_len"] for r, k in zip(resid, pairs)]
            print(f"fraction {fraction}: model difference, us: " + " ".join(f"{model[k]:.1f}" for k in pairs) +
                  f" | mean |residual| {statistics.mean(map(abs, resid)):.2f} us, "
                  f"{statistics.mean(rel):.2f}% of the memset rows' time")


if __name__ == "__main__":
    main()
