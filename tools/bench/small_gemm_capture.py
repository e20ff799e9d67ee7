#!/usr/bin/env python3
"""Where the time of a small cuBLAS GEMM goes: CUDA-event time around the call versus the kernel
durations the profiler (CUPTI) records, for GEMMs of 6-40 us, after an L2 flush.

What it measures, per case (torch.mm / torch.nn.functional.linear in bf16, row-major
y = x @ W^T as PyTorch calls cuBLAS): (1) event_us: median over REPS of CUDA events around the
call, each rep after a 256 MiB zero_() L2 flush (the method of traces/h200/gemm.csv);
(2) kernels and their median CUPTI durations over REPS flushed calls under torch.profiler;
(3) the same for a 1-element add (the smallest kernel) as the floor. event_us - sum(kernel
durations) is what the launch and the gaps between a call's kernels cost.

--kscan: instead, a K scan of four (M, N) shapes (K = 64 ... 4096, so the per-kernel fixed cost is
the intercept of kernel time against K), each measured after the flush and, with l2=warm, right
after the same call (no flush): OUT_DIR/small_gemm_kscan.csv with an extra `l2` column.
--ce: with --kscan, also l2=ce_flushed: before each call a 256 MiB device-to-device cudaMemcpy
(copy engines: L2 flushed, no SM kernel in between); into small_gemm_kscan_ce.csv.
--feed: instead, the K scan of calib_gemm_feed's six shapes (M x N = 128x8192 ... 8192x128, whose
128 x 64 tiles make 128 CTAs; K = 1024 ... 8192), flushed and warm: small_gemm_feed.csv.

Output (OUT_DIR/small_gemm.csv): case,M,N,K,event_us,kernel_us,kernels,grids,blocks,reps.
Usage: small_gemm_capture.py OUT_DIR [--reps N] [--kscan [--ce] | --feed]
"""
import argparse
import csv
import json
import os
import statistics
import sys

import torch
from torch.profiler import ProfilerActivity, profile

KSCAN_MN = [(512, 512), (1024, 1024), (256, 4096), (1024, 4096)]
KSCAN_K = [64, 128, 256, 512, 1024, 2048, 4096]
FEED_MN = [(128, 8192), (256, 4096), (512, 2048), (1024, 1024), (2048, 512), (4096, 256)]
FEED_K = [1024, 2048, 4096, 8192]
CASES = [(256, 256, 256), (512, 512, 512), (768, 768, 768), (1024, 1024, 1024), (1536, 1536, 1536),
         (2048, 2048, 2048), (1, 4096, 4096), (16, 4096, 4096), (1, 6144, 4096), (64, 6144, 4096),
         (128, 4096, 4096), (256, 4096, 4096), (1, 14336, 4096), (8, 8192, 8192)]


def measure(name, m, n, k, make, op, flush, reps, tmp):
    """One case: median event time and median CUPTI kernel durations over `reps` calls (each after
    `flush()` unless flush is None)."""
    ins = make()
    for _ in range(3):
        op(*ins)
    torch.cuda.synchronize()
    e0 = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    e1 = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        if flush is not None:
            flush()
        e0[i].record()
        op(*ins)
        e1[i].record()
    torch.cuda.synchronize()
    event_us = statistics.median(e0[i].elapsed_time(e1[i]) * 1e3 for i in range(reps))
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            if flush is not None:
                flush()
            op(*ins)
        torch.cuda.synchronize()
    prof.export_chrome_trace(tmp)
    with open(tmp) as f:
        ev = json.load(f)
    ev = ev["traceEvents"] if isinstance(ev, dict) else ev
    ks = sorted((e for e in ev if e.get("cat") == "kernel" and "FillFunctor" not in e["name"]), key=lambda e: e["ts"])
    per = {}
    for e in ks:
        key = (e["name"], "x".join(map(str, e["args"].get("grid", []))), "x".join(map(str, e["args"].get("block", []))))
        per.setdefault(key, []).append(float(e["dur"]))
    kernel_us = sum(statistics.median(v) for v in per.values())
    print(f"{name:24} {getattr(flush, 'label', 'flushed') if flush is not None else 'warm':10} event {event_us:8.2f} us  kernels "
          f"{kernel_us:8.2f} us  "
          + "; ".join(f"{key[0][:50]} {key[1]} {statistics.median(v):.2f}" for key, v in per.items()), flush=True)
    return dict(case=name, M=m, N=n, K=k, event_us=f"{event_us:.3f}", kernel_us=f"{kernel_us:.3f}",
                kernels=";".join(key[0] for key in per), grids=";".join(key[1] for key in per),
                blocks=";".join(key[2] for key in per), reps=reps)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--kscan", action="store_true")
    ap.add_argument("--ce", action="store_true")
    ap.add_argument("--feed", action="store_true")
    a = ap.parse_args()
    if a.feed:
        a.kscan, a.ce = True, False
    os.makedirs(a.out_dir, exist_ok=True)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    ce_src = torch.ones(256 << 20, dtype=torch.uint8, device="cuda") if a.ce else None
    flushes = {"flushed": flush.zero_, "warm": None, "ce_flushed": (lambda: flush.copy_(ce_src)) if a.ce else None}
    tmp = os.path.join(a.out_dir, "last_trace.json")
    rows = []
    ops = [("add_1elem", 1, 1, 1, lambda: (torch.ones(1, device="cuda"),), lambda x: x.add_(1))]
    scan_mn, scan_k = (FEED_MN, FEED_K) if a.feed else (KSCAN_MN, KSCAN_K)
    shapes = [(m, n, k) for m, n in scan_mn for k in scan_k] if a.kscan else CASES
    for m, n, k in shapes:
        ops.append((f"gemm_{m}x{n}x{k}", m, n, k,
                    lambda m=m, n=n, k=k: (torch.randn(m, k, dtype=torch.bfloat16, device="cuda"),
                                           torch.randn(n, k, dtype=torch.bfloat16, device="cuda")),
                    lambda x, w: torch.nn.functional.linear(x, w)))
    states = (["flushed", "ce_flushed", "warm"] if a.ce else ["flushed", "warm"]) if a.kscan else ["flushed"]
    for l2 in states:
        for name, m, n, k, make, op in ops:
            rows.append(measure(name, m, n, k, make, op, flushes[l2], a.reps, tmp))
            if a.kscan:
                rows[-1]["l2"] = l2
    os.remove(tmp)
    out_name = ("small_gemm_feed.csv" if a.feed else "small_gemm_kscan_ce.csv" if a.ce else "small_gemm_kscan.csv") \
        if a.kscan else "small_gemm.csv"
    with open(os.path.join(a.out_dir, out_name), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    sys.exit(main())
