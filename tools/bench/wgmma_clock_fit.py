#!/usr/bin/env python3
"""The clock ceiling of kernels that issue wgmma, from calib_attn's loops (clock.tensor_max_wgmma).

`calib_attn` (tools/bench/calib_attn.cu, traces/h200/calibration_attn.csv) records for every loop
its SM cycles per block, the tensor-core time of its GEMMs and its effective clock (clock64 cycles
over %globaltimer ns, median over the 132 CTAs). For the 31 loops that issue wgmma (the consumer
loops with and without a softmax, and the PV loops) this fits

  clock = tensor_max_wgmma - tensor_max_wgmma_per_duty x duty,  duty = tensor time / cycles per block

by least squares and prints the fit, its residuals and, for comparison, the clocks of the loops
that issue mma.sync instead (clock.tensor_max). Usage: wgmma_clock_fit.py [calibration_attn.csv]
"""
import csv
import re
import statistics
import sys


def loops(path):
    wgmma, mma_sync = [], []
    for r in csv.DictReader(open(path)):
        q, method = r["quantity"], r["method"]
        clock = re.search(r"effective clock (\d+(?:\.\d+)?) MHz", method)
        if not clock:
            continue
        if q.startswith("attn_mma_"):
            mma_sync.append((q, float(clock.group(1))))
            continue
        tensor = re.search(r"tensor-core time (?:of the GEMMs )?(\d+(?:\.\d+)?) clk", method)
        if not tensor or "nogemm" in q:  # the loops without GEMMs issue no wgmma
            continue
        wgmma.append((q, min(1.0, float(tensor.group(1)) / float(r["value"])), float(clock.group(1))))
    return wgmma, mma_sync


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "traces/h200/calibration_attn.csv"
    wgmma, mma_sync = loops(path)
    n = len(wgmma)
    mx = sum(d for _, d, _ in wgmma) / n
    my = sum(f for _, _, f in wgmma) / n
    sxx = sum((d - mx) ** 2 for _, d, _ in wgmma)
    sxy = sum((d - mx) * (f - my) for _, d, f in wgmma)
    syy = sum((f - my) ** 2 for _, _, f in wgmma)
    slope = sxy / sxx
    intercept = my - slope * mx
    residuals = [f - (intercept + slope * d) for _, d, f in wgmma]
    for (q, d, f), res in sorted(zip(wgmma, residuals), key=lambda x: x[0][1]):
        print(f"{q:45s} duty {d:.2f}  {f:.0f} MHz  fit {intercept + slope * d:.0f}  ({res:+.0f})")
    print(f"\n{n} wgmma loops: clock = {intercept:.0f} MHz - {-slope:.0f} MHz x duty "
          f"(r {sxy / (sxx * syy) ** 0.5:.2f}, residual sd {statistics.pstdev(residuals):.0f} MHz, "
          f"median clock {statistics.median(f for _, _, f in wgmma):.0f} MHz)")
    clocks = [f for _, f in mma_sync]
    print(f"{len(clocks)} mma.sync loops: {min(clocks):.0f}-{max(clocks):.0f} MHz, median {statistics.median(clocks):.0f}")


if __name__ == "__main__":
    main()
