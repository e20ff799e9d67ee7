#!/usr/bin/env python3
"""The SM-split best-c check: for every sweep over comm_blocks (same bytes, chunk_bytes, tiles,
compute shape, threads and steal), the c the model predicts fastest must be the measured fastest c
or within `tolerance` of its time. Reads the rows CSV `tgsim validate --rows-out` writes.

usage: check_best_c.py ROWS.csv [--tolerance 0.02] [--max-failures N]
       check_best_c.py --tgsim TGSIM --measurements sm_split.csv [...]   (runs tgsim validate first)
Exit 1 when more than N groups fail (default 0)."""
import argparse
import csv
import os
import subprocess
import sys
import tempfile
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rows", nargs="?")
    ap.add_argument("--tgsim")
    ap.add_argument("--measurements")
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--max-failures", type=int, default=0)
    a = ap.parse_args()
    if a.tgsim:
        fd, a.rows = tempfile.mkstemp(suffix=".csv")
        os.close(fd)
        run = subprocess.run([a.tgsim, "validate", "--measurements", a.measurements, "--rows-out", a.rows],
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(f"tgsim validate failed ({run.returncode}):\n{run.stderr}", file=sys.stderr)
            return 1
    groups = defaultdict(list)
    with open(a.rows, newline="") as f:
        for r in csv.DictReader(f):
            if r.get("op") != "sm_split" or not r.get("predicted_us") or r.get("bytes") in ("", "0"):
                continue
            key = tuple(r[k] for k in ("bytes", "chunk_bytes", "tiles", "mma_per_warp_per_tile", "mma_chains", "threads", "steal"))
            groups[key].append((int(r["comm_blocks"]), float(r["time_us"]), float(r["predicted_us"])))
    failures = 0
    exact = 0
    for key, rows in sorted(groups.items(), key=lambda kv: tuple(int(x) for x in kv[0])):
        if len(rows) < 2:
            continue
        best_meas = min(rows, key=lambda x: (x[1], x[0]))
        best_pred = min(rows, key=lambda x: (x[2], x[0]))
        loss = best_pred[1] / best_meas[1] - 1
        ok = best_pred[0] == best_meas[0] or loss <= a.tolerance
        exact += best_pred[0] == best_meas[0]
        failures += not ok
        print("{} X={} chunk={} tiles={} mma={}x{} thr={} steal={}: measured best c={} ({:.1f} us), predicted best c={} "
              "(measured {:.1f} us, +{:.2f}%)".format("ok  " if ok else "FAIL", *key, best_meas[0], best_meas[1],
                                                      best_pred[0], best_pred[1], 100 * loss))
    n = sum(1 for v in groups.values() if len(v) >= 2)
    print(f"best-c check: {n - failures} of {n} groups pass ({exact} exact, tolerance {100 * a.tolerance:.0f}%)")
    if a.tgsim:
        os.remove(a.rows)
    return 1 if failures > a.max_failures else 0


if __name__ == "__main__":
    sys.exit(main())
