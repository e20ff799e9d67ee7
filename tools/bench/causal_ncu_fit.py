#!/usr/bin/env python3
"""cuDNN's causal excess from `run_ncu.sh attention_causal` (docs/validation.md, attention point 4).

Fits, per head dim, the causal and the non-causal kernels at 1024 and 4096 keys as
  quantity = per_block * (128-key blocks visited) + per_tile * (128-row tiles)
for two quantities: warp instructions executed (opcode histogram, per consumer warp: 8 per CTA)
and SM-cycles (duration x GPC clock x 132 SMs). Prints both fits and each kernel's
max/average active SM cycles (the persistent CTAs' imbalance).

With --model TGSIM, also runs the same eight cases through the simulator (`tgsim attention
--gpu h200 --family cudnn`) and prints the same SM-cycle fits (kernel duration x the clock it
ran at x 132 SMs) and the model's imbalance (longest over average persistent-CTA span, from
the Chrome trace's CTA events), next to the measured ones.

Usage: causal_ncu_fit.py [--model build/tools/tgsim/tgsim]
                         [traces/h200/attention_causal_ncu_ops.csv traces/h200/attention_causal_ncu_raw.csv.gz]
"""
import collections
import csv
import json
import os
import subprocess
import sys
import tempfile

import ncu_raw

# The cases of attention_ncu.py --set causal, in order: (batch, heads, seq, head_dim, causal).
CASES = [(16, 16, 1024, 128, 0), (16, 16, 1024, 128, 1), (4, 16, 4096, 128, 0), (4, 16, 4096, 128, 1),
         (16, 8, 1024, 256, 0), (16, 8, 1024, 256, 1), (4, 8, 4096, 256, 0), (4, 8, 4096, 256, 1)]
SMS = 132


def counts(b, h, seq, causal):
    n = seq // 128
    return b * h * n, b * h * (n * (n + 1) // 2 if causal else n * n)  # tiles, blocks


def fit(points):
    """per_block, per_tile from two (blocks, tiles, value) points."""
    (b1, t1, v1), (b2, t2, v2) = points
    det = b1 * t2 - t1 * b2
    return (v1 * t2 - t1 * v2) / det, (b1 * v2 - b2 * v1) / det


def model_case(tgsim, case):
    """(SM-cycles, max/avg CTA span) of one case in the simulator."""
    b, h, seq, d, causal = case
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "trace.json")
        cmd = [tgsim, "attention", "--gpu", "h200", "--family", "cudnn", "--batch", str(b), "--heads", str(h),
               "--seq-q", str(seq), "--head-dim", str(d), "--json", "--trace", trace, "--trace-sms", "0"]
        if causal:
            cmd.append("--causal")
        out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        with open(trace) as f:
            events = json.load(f)
    events = events["traceEvents"] if isinstance(events, dict) else events
    spans = [e["dur"] for e in events if e.get("ph") == "X" and e.get("cat") == "cta"]
    k = out["kernels"][0]
    return k["duration_us"] * 1e-6 * k["sm_clock_mhz"] * 1e6 * SMS, max(spans) / (sum(spans) / len(spans))


def groups():
    """Per head dim and causality: the two cases' indices and their (tiles, blocks)."""
    for d in (128, 256):
        for causal in (0, 1):
            idx = [i for i, c in enumerate(CASES) if c[3] == d and c[4] == causal]
            yield d, causal, idx, [counts(*CASES[i][:3], causal) for i in idx]


def print_model(tgsim):
    results = [model_case(tgsim, c) for c in CASES]
    for d, causal, idx, shape in groups():
        bc, tc = fit([(blocks, tiles, results[i][0]) for i, (tiles, blocks) in zip(idx, shape)])
        imb = " / ".join(f"{results[i][1]:.3f}" for i in idx)
        print(f"model d={d} {'causal    ' if causal else 'non-causal'}: SM-cycles: {bc:.0f} per block, "
              f"{tc:.0f} per tile; max/avg CTA span at 1024 / 4096 keys: {imb}")


def main():
    args = sys.argv[1:]
    tgsim = None
    if "--model" in args:
        i = args.index("--model")
        if i + 1 >= len(args):
            sys.exit("causal_ncu_fit.py: --model needs the tgsim binary's path")
        tgsim = args[i + 1]
        del args[i:i + 2]
    ops_file = args[0] if len(args) > 0 else "traces/h200/attention_causal_ncu_ops.csv"
    raw_file = args[1] if len(args) > 1 else "traces/h200/attention_causal_ncu_raw.csv.gz"
    inst = collections.defaultdict(float)
    for r in csv.DictReader(open(ops_file)):
        inst[int(r["entry"])] += float(r["inst_executed"])
    profiled = ncu_raw.kernels(raw_file)
    cycles = [k.duration_us * 1e-6 * k.clock_hz * SMS for k in profiled]
    imbalance = [k.value("sm__cycles_active.max") / k.value("sm__cycles_active.avg") for k in profiled]
    for d, causal, idx, shape in groups():
        bi, ti = fit([(blocks, tiles, inst[i] / 8) for i, (tiles, blocks) in zip(idx, shape)])
        bc, tc = fit([(blocks, tiles, cycles[i]) for i, (tiles, blocks) in zip(idx, shape)])
        imb = " / ".join(f"{imbalance[i]:.3f}" for i in idx)
        print(f"d={d} {'causal    ' if causal else 'non-causal'}: warp instructions per consumer warp: "
              f"{bi:.0f} per block, {ti:.0f} per tile; SM-cycles: {bc:.0f} per block, {tc:.0f} per tile; "
              f"max/avg active SM cycles at 1024 / 4096 keys: {imb}")
    if tgsim:
        print_model(tgsim)


if __name__ == "__main__":
    main()
