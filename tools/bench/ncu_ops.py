#!/usr/bin/env python3
"""Per-kernel SASS opcode histogram from an `ncu --page source --csv --print-source sass` export:
instructions executed (warp-level) and warp-stall samples per opcode (predicates stripped,
modifiers kept for HMMA/MUFU/LDSM/BAR/SHFL/LDGSTS). Consecutive duplicate kernel blocks (the
export can print a kernel twice) are written once.

Usage: ncu_ops.py SASS.csv OUT.csv
"""
import collections
import csv
import re
import sys

KEEP_MODIFIERS = ("HMMA", "HGMMA", "MUFU", "LDSM", "BAR", "SHFL", "LDGSTS")


def blocks(path):
    cur = None
    with open(path, newline="") as f:
        for r in csv.reader(f):
            if not r:
                continue
            if r[0] == "Kernel Name":
                if cur:
                    yield cur
                cur = {"name": r[1], "head": None, "rows": []}
            elif r[0] == "Address" and cur is not None:
                cur["head"] = r
            elif cur is not None and cur["head"]:
                cur["rows"].append(r)
    if cur:
        yield cur


def histogram(b):
    h = b["head"]
    src, ex = h.index("Source"), h.index("Instructions Executed")
    st = h.index("Warp Stall Sampling (All Samples)")
    ops, stalls = collections.Counter(), collections.Counter()
    for r in b["rows"]:
        text = re.sub(r"^@!?U?P\w+\s+", "", r[src].strip())
        op = text.split(" ")[0]
        base = op.split(".")[0]
        key = op if base in KEEP_MODIFIERS else base
        ops[key] += int(r[ex] or 0)
        stalls[key] += int(r[st] or 0)
    return ops, stalls


def main():
    src, out = sys.argv[1], sys.argv[2]
    prev = None
    entry = 0
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["entry", "kernel", "opcode", "inst_executed", "stall_samples"])
        for b in blocks(src):
            ops, stalls = histogram(b)
            key = (b["name"], sum(ops.values()))
            if key == prev:
                continue
            prev = key
            for op, n in ops.most_common():
                w.writerow([entry, b["name"], op, n, stalls[op]])
            entry += 1


if __name__ == "__main__":
    main()
