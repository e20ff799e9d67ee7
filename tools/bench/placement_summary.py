#!/usr/bin/env python3
"""Summary of calib_placement's rows (calibration_placement.csv): for each plain launch, how the
CTAs of a grid spread over the GPCs (the groups the cluster launches found).

Prints per plain launch: the GPC group of blocks 0-31; for windows of k consecutive CTAs
(k = 8, 16) the mean number of distinct GPCs; and, for the sharing rings' pattern (CTA c reads
region c mod G), the mean number of readers of a region that share a GPC with another reader —
what the model's per-GPC combining sees (docs/validation.md, "Combining against every profiled
kernel"). On the lent H100 (traces/h100/calibration_placement.csv) a plain grid fills one GPC before
the next, a TPC pair at a time, as the model's block scheduler does (docs/model.md, Placement).

Usage: placement_summary.py calibration_placement.csv
"""
import collections
import csv
import sys


def main():
    rows = list(csv.DictReader(open(sys.argv[1] if len(sys.argv) > 1 else "calibration_placement.csv")))
    groups = sorted({int(r["group"]) for r in rows if int(r["group"]) >= 0})
    sizes = collections.Counter()
    for sm, g in {(int(r["smid"]), int(r["group"])) for r in rows}:
        if g >= 0:
            sizes[g] += 1
    print(f"{len(groups)} GPC groups, SMs each: {sorted(sizes.values(), reverse=True)}")
    launches = collections.defaultdict(dict)
    for r in rows:
        if r["kind"].startswith("plain"):
            launches[(r["kind"], int(r["rep"]))][int(r["block"])] = int(r["group"])
    for (kind, rep), by_block in sorted(launches.items()):
        seq = [by_block[b] for b in sorted(by_block)]
        label = {g: i for i, g in enumerate(dict.fromkeys(x for x in seq if x >= 0))}
        print(f"{kind} rep {rep}: blocks 0-31 -> GPC {' '.join(str(label.get(g, '?')) for g in seq[:32])}")
        for k in (8, 16):
            windows = [len({g for g in seq[i:i + k]}) for i in range(0, len(seq) - k + 1)]
            print(f"  {k} consecutive CTAs: {sum(windows) / len(windows):.2f} distinct GPCs on average")
        n = len(seq)
        for G in (8, 16, 33):
            shared = 0
            for r0 in range(G):
                readers = [seq[c] for c in range(r0, n, G)]
                counts = collections.Counter(readers)
                shared += sum(v for v in counts.values() if v > 1)
            print(f"  regions c mod {G}: {shared / n:.0%} of the CTAs share a GPC with another reader of their region")


if __name__ == "__main__":
    main()
