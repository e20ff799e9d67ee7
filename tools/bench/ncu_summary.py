#!/usr/bin/env python3
"""A short per-kernel summary of an `ncu --page raw --csv` export: time, clocks, issue use,
tensor-pipe use, instructions per pipe and the largest warp stall reasons.

Usage: ncu_summary.py RAW.csv [TOP]
"""
import csv
import re
import sys

KEEP = [r"^gpu__time_duration\.sum$", r"^sm__cycles_elapsed\.avg$", r"^smsp__cycles_active\.avg$",
        r"^gpc__cycles_elapsed\.avg\.per_second$", r"^smsp__issue_active\.avg\.pct_of_peak_sustained_active$",
        r"^smsp__inst_executed\.sum$", r"^smsp__warps_active\.avg\.per_cycle_active$",
        r"^sm__pipe_tensor_op_.*cycles_active\.avg\.pct_of_peak_sustained_active$",
        r"^sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active$",
        r"^launch__(grid_size|block_size|registers_per_thread|occupancy_limit_.*)$",
        r"^dram__throughput\.avg\.pct_of_peak_sustained_elapsed$", r"^lts__t_sector_hit_rate\.pct$"]
STALL = re.compile(r"^smsp__average_warps_issue_stalled_(.*)_per_issue_active\.ratio$")


def number(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return None


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if len(rows) < 3:
        print(f"{path}: no kernels")
        return
    head, units, data = rows[0], rows[1], rows[2:]
    keep = [i for i, h in enumerate(head) if any(re.search(p, h) for p in KEEP)]
    stalls = [(i, STALL.match(h).group(1)) for i, h in enumerate(head) if STALL.match(h)]
    name_col = head.index("Kernel Name") if "Kernel Name" in head else None
    for r in data:
        name = r[name_col] if name_col is not None else "?"
        print(f"== {name[:160]}")
        for i in keep:
            print(f"   {head[i]} = {r[i]} {units[i]}")
        ranked = sorted(((number(r[i]) or 0.0, s) for i, s in stalls), reverse=True)[:top]
        print("   stalls per issue: " + ", ".join(f"{s} {v:.2f}" for v, s in ranked))


if __name__ == "__main__":
    main()
