#!/usr/bin/env python3
"""Kernel durations of PyTorch's memory-bound kernels (elementwise, copy/cast, cat, row reductions)
over a sweep of sizes, to calibrate how tgsim models them (docs/profile-replay.md).

What it measures: for every case, the CUDA kernel(s) one eager PyTorch op launches, by name, with
grid and block, and their durations as the profiler (CUPTI, torch.profiler) records them - the
same clock `tgsim validate --profile` compares against. Each case: 3 warm-up calls, then REPS
calls, each after a 256 MiB `zero_()` (L2 flush, as in docs/measurements.md) and one without
(`l2=warm`: the op's inputs were just written or read, as in an eager model step); the median
duration per kernel name.

Cases (bf16 unless said), chosen to hit each PyTorch kernel template at sizes from a few
thousand to ~10^8 elements, with shapes that are NOT the Llama-8B shapes of the profiles:
  add_contig       x + y, both contiguous            -> vectorized_elementwise_kernel
  mul_bcast_row    [R, C] * [C] (weight broadcast)    -> elementwise_kernel<128, 4> (generic)
  mul_bcast_col32  [R, C] fp32 * [R, 1] fp32          -> elementwise_kernel<128, 2>
  neg_slice        -x[..., :C/2] of a 4D tensor       -> elementwise_kernel<128, 4> (strided)
  silu_slice       silu(x[:, :C]) of [R, 2C]          -> elementwise_kernel<128, 4> (strided)
  silu_contig      silu(x) contiguous                 -> vectorized_elementwise_kernel
  cast_bf16_fp32   x.float()                          -> unrolled_elementwise_kernel
  cat_last         cat((a, b), -1) of two 4D halves   -> CatArrayBatchedCopy
  mean_last_fp32   x.mean(-1, keepdim=True), fp32     -> reduce_kernel<512, 1>
  pow_fp32         x.pow(2), fp32 contiguous          -> vectorized_elementwise_kernel

--cold: only the cases of at most 2^18 elements, in three L2 states: `flushed` as above,
`ce_flushed` (before each call a 256 MiB device-to-device cudaMemcpy, which the copy engines run:
L2 is flushed as by the memset, but no SM runs other code in between) and `warm`; written to
OUT_DIR/elementwise_cold.csv. Whether a tiny kernel's extra time after a flush is its data (then
ce_flushed = flushed) or its code and parameters, fetched again by the SMs (then ce_flushed < flushed).

Output (OUT_DIR/elementwise.csv), docs/measurements.md rows with op=elementwise: op,gpu,case,l2,
dtype,shape,elements,rows (reductions),read_bytes,write_bytes,kernel,grid,block,reps,time_us (the
median kernel duration),min_us,max_us,source. Usage: elementwise_capture.py OUT_DIR [--reps N] [--cold]
"""
import argparse
import csv
import json
import os
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

BF = torch.bfloat16
F32 = torch.float32


def cases():
    """(name, dtype, shape text, make inputs, op, elements, read bytes, write bytes)."""
    out = []
    for n in (1 << 12, 1 << 15, 1 << 18, 1 << 21, 1 << 24, 1 << 26):
        out.append(("add_contig", BF, f"[{n}]", lambda n=n: (torch.randn(n, dtype=BF, device="cuda"),
                                                              torch.randn(n, dtype=BF, device="cuda")),
                    lambda a, b: a + b, n, 4 * n, 2 * n))
        out.append(("silu_contig", BF, f"[{n}]", lambda n=n: (torch.randn(n, dtype=BF, device="cuda"),),
                    lambda a: F.silu(a), n, 2 * n, 2 * n))
        out.append(("cast_bf16_fp32", BF, f"[{n}]", lambda n=n: (torch.randn(n, dtype=BF, device="cuda"),),
                    lambda a: a.float(), n, 2 * n, 4 * n))
        out.append(("pow_fp32", F32, f"[{n}]", lambda n=n: (torch.randn(n, dtype=F32, device="cuda"),),
                    lambda a: a.pow(2), n, 4 * n, 4 * n))
    for r, c in ((3, 5120), (96, 5120), (768, 5120), (3072, 5120), (12288, 5120), (3, 3072), (1536, 3072),
                 (6144, 3072), (24576, 3072)):
        n = r * c
        out.append(("mul_bcast_row", BF, f"[{r},{c}] [{c}]",
                    lambda r=r, c=c: (torch.randn(r, c, dtype=BF, device="cuda"), torch.randn(c, dtype=BF, device="cuda")),
                    lambda a, w: a * w, n, 2 * n + 2 * c, 2 * n))
        out.append(("mul_bcast_col32", F32, f"[{r},{c}] [{r},1]",
                    lambda r=r, c=c: (torch.randn(r, c, dtype=F32, device="cuda"), torch.randn(r, 1, dtype=F32, device="cuda")),
                    lambda a, s: a * s, n, 4 * n + 4 * r, 4 * n))
        out.append(("mean_last_fp32", F32, f"[{r},{c}]", lambda r=r, c=c: (torch.randn(r, c, dtype=F32, device="cuda"),),
                    lambda a: a.mean(-1, keepdim=True), n, 4 * n, 4 * r))
        out.append(("silu_slice", BF, f"[{r},{2 * c}][:, :{c}]", lambda r=r, c=c: (torch.randn(r, 2 * c, dtype=BF, device="cuda"),),
                    lambda a, c=c: F.silu(a[:, :c]), n, 2 * n, 2 * n))
    for b, h, s, d in ((1, 40, 4, 96), (2, 40, 300, 96), (1, 40, 3000, 96), (4, 40, 3000, 96), (1, 16, 1000, 64),
                       (8, 16, 1000, 64), (1, 64, 1, 128), (16, 64, 1, 128)):
        n = b * h * s * d
        out.append(("neg_slice", BF, f"[{b},{h},{s},{d}][..., :{d // 2}]",
                    lambda b=b, h=h, s=s, d=d: (torch.randn(b, h, s, d, dtype=BF, device="cuda"),),
                    lambda x: -x[..., x.shape[-1] // 2:], n // 2, n, n))
        out.append(("cat_last", BF, f"2 x [{b},{h},{s},{d // 2}] (strided halves)",
                    lambda b=b, h=h, s=s, d=d: (torch.randn(b, h, s, d, dtype=BF, device="cuda"),),
                    lambda x: torch.cat((x[..., x.shape[-1] // 2:], x[..., : x.shape[-1] // 2]), dim=-1), n, 2 * n, 2 * n))
    return out


GPU = "h200"  # the config name (configs/gpus) of the GPU this runs on
SOURCE = ("PyTorch eager op; kernel duration from torch.profiler (CUPTI); median of REPS calls; l2=flushed: "
          "256 MiB zero_() before each call; l2=warm: the op ran just before")


def reduced_rows(case, shape):
    """Rows of a row reduction ([R,C] -> R), else empty."""
    return shape.strip("[]").split(",")[0] if case.startswith("mean") else ""


def trace_kernels(prof, tmp):
    """(name, grid, block, duration_us) of every CUDA kernel in the profile, in start order."""
    prof.export_chrome_trace(tmp)
    with open(tmp) as f:
        ev = json.load(f)
    ev = ev["traceEvents"] if isinstance(ev, dict) else ev
    trace_kernels.memcpys = sum(1 for e in ev if e.get("cat") == "gpu_memcpy")
    ks = [e for e in ev if e.get("cat") == "kernel"]
    ks.sort(key=lambda e: e["ts"])
    return [(e["name"], "x".join(map(str, e["args"].get("grid", []))), "x".join(map(str, e["args"].get("block", []))),
             float(e["dur"])) for e in ks]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--cold", action="store_true")
    a = ap.parse_args()
    global SOURCE
    SOURCE = SOURCE.replace("REPS", str(a.reps))
    os.makedirs(a.out_dir, exist_ok=True)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    ce_src = torch.ones(256 << 20, dtype=torch.uint8, device="cuda") if a.cold else None
    states = ("flushed", "ce_flushed", "warm") if a.cold else ("flushed", "warm")
    rows = []
    for name, dt, shape, make, op, elems, rd, wr in cases():
        if a.cold and elems > (1 << 18):
            continue
        ins = make()
        for _ in range(3):
            op(*ins)
        torch.cuda.synchronize()
        for l2 in states:
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(a.reps):
                    if l2 == "flushed":
                        flush.zero_()
                    elif l2 == "ce_flushed":
                        flush.copy_(ce_src)  # same dtype, contiguous: cudaMemcpyAsync on a copy engine
                    else:
                        op(*ins)  # the inputs were just read (and an output written)
                    op(*ins)
                torch.cuda.synchronize()
            per = {}
            for kname, grid, block, dur in trace_kernels(prof, os.path.join(a.out_dir, "last_trace.json")):
                if "FillFunctor" in kname:  # the flush
                    continue
                per.setdefault((kname, grid, block), []).append(dur)
            for (kname, grid, block), durs in per.items():
                # warm: both calls of a rep are the same op on L2-resident data; all are kept
                rows.append(dict(op="elementwise", gpu=GPU, case=name, l2=l2, dtype=str(dt).replace("torch.", ""),
                                 shape=shape, elements=elems, rows=reduced_rows(name, shape), read_bytes=rd,
                                 write_bytes=wr, kernel=kname, grid=grid, block=block, reps=len(durs),
                                 time_us=f"{statistics.median(durs):.3f}", min_us=f"{min(durs):.3f}",
                                 max_us=f"{max(durs):.3f}", source=SOURCE))
            if l2 == "ce_flushed" and trace_kernels.memcpys < a.reps:
                print(f"  WARNING {name}: {trace_kernels.memcpys} copy-engine memcpys for {a.reps} reps", flush=True)
            print(f"{name:16} {l2:7} {shape:36} " + "; ".join(
                f"{k[0][:60]} {k[1]} {statistics.median(v):.2f} us" for k, v in per.items()), flush=True)
        del ins
    with open(os.path.join(a.out_dir, "elementwise_cold.csv" if a.cold else "elementwise.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    os.remove(os.path.join(a.out_dir, "last_trace.json"))
    print("rows", len(rows))


if __name__ == "__main__":
    sys.exit(main())
