#!/usr/bin/env python3
"""Grouped (MoE expert) GEMM timings on the local GPU through torch._grouped_mm.

What it measures, per case: `experts` problems of M = `tokens_per_expert` rows each, with the
same N and K (an expert-parallel MoE layer's GEMM0, gate and up fused: N = 2 x intermediate,
K = hidden; GEMM1: N = hidden, K = intermediate), in bf16 with fp32 accumulation:
    y[T, N] = torch._grouped_mm(x[T, K], w[E, N, K].transpose(-2, -1), offs)
T = experts x tokens_per_expert rows of x sorted by expert, offs = cumulative row ends (int32),
w stored as nn.Linear weights are (N x K, K contiguous). Model shapes from
../shared/docs/HARDWARE.md: Mixtral-8x7B (hidden 4096, intermediate 14336, 8 experts),
Qwen3-30B-A3B (2048, 768, 128 experts), DeepSeek-V3 (7168, 2048, 256 experts), with the local
expert counts of expert parallelism (all experts, or a quarter/eighth of them).

Method (docs/measurements.md, as traces/h200/gemm.csv): random inputs (never zeros); warm-up;
each timed rep = L2 flush (zero_() of a 256 MiB buffer, > 2x L2), then CUDA events around the
_grouped_mm call alone (the flush gives the host time to queue ahead, so the events hold the
launch and the kernel); reps = clamp(50 ms / t, 5, 50); median over reps; the sweep runs in
PASSES passes, time_us = median of the pass medians, spread_pct = (max - min) / median.
Kernel names and their CUPTI durations from one extra flushed call under torch.profiler
(`kernel`, `kernel_us`; leading "void " and the parameter list stripped).
Correctness: each case against a per-expert torch.mm loop in fp32 (max relative error logged).

Output: OUT_DIR/grouped_gemm.csv (op=grouped_gemm rows, docs/measurements.md schema, plus
spread_pct, tflops, reps, passes, pass_us, kernel_us, grid, block, model, which).
--calib: the calibration shapes instead (calib_cases(): group switches, clusters over the edge),
to OUT_DIR/grouped_gemm_calib.csv.
Usage: grouped_gemm_capture.py OUT_DIR [--passes N] [--calib] [--dry-run]
"""
import argparse
import csv
import json
import os
import statistics
import sys
import tempfile

from capture_util import strip_kernel_name

FIELDS = ["op", "gpu", "dtype", "experts", "tokens_per_expert", "M", "N", "K", "order", "layout", "kernel",
          "time_us", "source", "spread_pct", "tflops", "reps", "passes", "pass_us", "kernel_us", "grid", "block",
          "model", "which"]
FLUSH_BYTES = 256 << 20
# model: (hidden, intermediate, local expert counts, tokens per expert)
MODELS = {
    "mixtral-8x7b": (4096, 14336, (2, 8), (16, 128, 512, 2048)),
    "qwen3-30b-a3b": (2048, 768, (32, 128), (8, 32, 128, 512)),
    "deepseek-v3": (7168, 2048, (8, 32), (16, 64, 256, 1024)),
}


def calib_cases():
    """Calibration shapes, unlike the validation set: (1) the cost of a tile whose group differs from
    the CTA's previous one -- 16384 rows split into E = 1..64 groups (M per group 16384..256, so the
    cooperative kernel throughout), N = 2048, K = 512 and 2048: the same tiles and FLOPs, more group
    switches; (2) clusters that hang over a group's last m tile -- E = 8, N = 8192, K = 4096,
    M per group 8..128 (ping-pong kernel; a 2x1 cluster covers 128 rows, so M <= 64 leaves one CTA of
    each cluster outside the problem)."""
    out = []
    for k in (512, 2048):
        for e in (1, 2, 8, 32, 64):
            out.append(dict(model="calib", which=f"switch_k{k}", experts=e, tpe=16384 // e, N=2048, K=k))
    for t in (8, 16, 32, 64, 96, 128):
        out.append(dict(model="calib", which="cluster_overhang", experts=8, tpe=t, N=8192, K=4096))
    return out


def cases():
    out = []
    for model, (hidden, inter, experts, tpes) in MODELS.items():
        for e in experts:
            for t in tpes:
                out.append(dict(model=model, which="gemm0", experts=e, tpe=t, N=2 * inter, K=hidden))
                out.append(dict(model=model, which="gemm1", experts=e, tpe=t, N=hidden, K=inter))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--calib", action="store_true", help="the calibration shapes (grouped_gemm_calib.csv)")
    a = ap.parse_args()
    cs = calib_cases() if a.calib else cases()
    if a.dry_run:
        for c in cs:
            print(c)
        return 0
    import torch
    from torch.profiler import ProfilerActivity, profile
    os.makedirs(a.out_dir, exist_ok=True)
    dev = "cuda"
    flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device=dev)
    print("torch", torch.__version__, "CUDA", torch.version.cuda, torch.cuda.get_device_name(), flush=True)
    gen = torch.Generator(device=dev)
    gen.manual_seed(7)
    state = {}
    for c in cs:
        E, T, N, K = c["experts"], c["tpe"], c["N"], c["K"]
        try:
            x = torch.randn(E * T, K, device=dev, dtype=torch.bfloat16, generator=gen)
            w = torch.randn(E, N, K, device=dev, dtype=torch.bfloat16, generator=gen) * (K ** -0.5)
            offs = torch.arange(1, E + 1, device=dev, dtype=torch.int32) * T
            op = lambda x=x, w=w, offs=offs: torch._grouped_mm(x, w.transpose(-2, -1), offs=offs)
            y = op()
            torch.cuda.synchronize()
            ref_err = 0.0
            for e in range(0, E, max(1, E // 4)):
                r = x[e * T:(e + 1) * T].float() @ w[e].float().t()
                d = (y[e * T:(e + 1) * T].float() - r).abs().max().item() / max(r.abs().max().item(), 1e-6)
                ref_err = max(ref_err, d)
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                flush.zero_()
                op()
                torch.cuda.synchronize()
            with tempfile.TemporaryDirectory() as td:
                p = os.path.join(td, "t.json")
                prof.export_chrome_trace(p)
                tr = json.load(open(p))
            ev = [e for e in tr.get("traceEvents", []) if e.get("cat") == "kernel" and e.get("ph") == "X"]
            ev.sort(key=lambda e: float(e["ts"]))
            ev = [e for e in ev if "FillFunctor" not in e["name"]][-8:]
            # drop the flush's fill kernel (it runs first); keep the grouped GEMM's kernels
            c["kernel"] = ";".join(strip_kernel_name(e["name"]) for e in ev)
            c["kernel_us"] = ";".join(f"{float(e['dur']):.3f}" for e in ev)
            c["grid"] = ";".join("x".join(map(str, e["args"].get("grid", []))) for e in ev)
            c["block"] = ";".join("x".join(map(str, e["args"].get("block", []))) for e in ev)
            state[id(c)] = (op, x, w, offs)
            print(f"{c['model']:14} {c['which']} E={E:4} T={T:5} N={N:6} K={K:6} err {ref_err:.2e}  "
                  f"{c['kernel'][:110]} {c['kernel_us']}", flush=True)
        except Exception as ex:  # a case the op refuses is reported, never fatal
            print(f"SKIP {c}: {str(ex).splitlines()[0]}", flush=True)
            torch.cuda.empty_cache()
    MAXR = 50
    e0 = [torch.cuda.Event(enable_timing=True) for _ in range(MAXR)]
    e1 = [torch.cuda.Event(enable_timing=True) for _ in range(MAXR)]

    def timed(op, reps):
        for i in range(reps):
            flush.zero_()
            e0[i].record()
            op()
            e1[i].record()
        torch.cuda.synchronize()
        return statistics.median(e0[i].elapsed_time(e1[i]) * 1e3 for i in range(reps))

    for p in range(a.passes):
        for c in cs:
            if id(c) not in state:
                continue
            op = state[id(c)][0]
            op()
            if "reps" not in c:
                c["reps"] = int(min(MAXR, max(5, 50000.0 / max(timed(op, 3), 1.0))))
            c.setdefault("pass_us", []).append(timed(op, c["reps"]))
        print(f"pass {p + 1} done", flush=True)
        rows = []
        for c in cs:
            if "pass_us" not in c:
                continue
            pm = c["pass_us"]
            t = statistics.median(pm)
            flops = 2.0 * c["experts"] * c["tpe"] * c["N"] * c["K"]
            rows.append(dict(
                op="grouped_gemm", gpu="h200", dtype="bf16", experts=c["experts"], tokens_per_expert=c["tpe"],
                M=c["tpe"], N=c["N"], K=c["K"], order="row", layout="TN", kernel=c["kernel"], time_us=f"{t:.3f}",
                source=(f"torch {torch.__version__} torch._grouped_mm (x[T,K] @ w[E,N,K].transpose(-2,-1), int32 offs, "
                        "bf16 in/out, fp32 accumulate); CUDA events around the call only; L2 flushed (256 MiB zero_) "
                        f"before each rep; random inputs; median of {c['reps']} reps x {len(pm)} passes"),
                spread_pct=f"{(max(pm) - min(pm)) / t * 100:.2f}", tflops=f"{flops / t / 1e6:.2f}", reps=c["reps"],
                passes=len(pm), pass_us=";".join(f"{v:.3f}" for v in pm), kernel_us=c["kernel_us"], grid=c["grid"],
                block=c["block"], model=c["model"], which=c["which"]))
        path = os.path.join(a.out_dir, "grouped_gemm_calib.csv" if a.calib else "grouped_gemm.csv")
        with open(path + ".tmp", "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=FIELDS)
            wr.writeheader()
            wr.writerows(rows)
        os.replace(path + ".tmp", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
