#!/usr/bin/env python3
"""Attention-forward timings on the local GPU through PyTorch SDPA.

Measures torch.nn.functional.scaled_dot_product_attention (forward only, no grad)
with one backend forced at a time (torch.nn.attention.sdpa_kernel with
SDPBackend.FLASH_ATTENTION or SDPBackend.CUDNN_ATTENTION) and writes rows in the
docs/measurements.md schema (op=attention) plus extra columns.

Cases:
  prefill  the FlashAttention papers' convention: batch*seq = 16384 tokens,
           heads*head_dim = 2048, seq in {512..16384}, head_dim in {64,128,256},
           causal 0/1; bf16 (fp16 for head_dim 128 non-causal); both backends
  decode   seq_q = 1, seq_kv in {1024..32768}, batch in {1,8,32,128}, heads 32,
           heads_kv 8 (GQA), head_dim 128, causal 0; both backends
  gqa      prefill with heads_kv < heads: batch 1/4, seq 2048/8192, 32/8 and 64/8
           heads, head_dim 128, causal 0/1; both backends

GQA (heads_kv < heads) is passed natively with enable_gqa=True (K/V keep heads_kv
heads). Only if the forced backend refuses that, K/V are expanded to `heads` heads
beforehand (repeat_interleave, outside the timed region) and the row says
gqa=expand in `source` and `gqa_mode`.

Tensors are made as (batch, seq, heads, head_dim) contiguous and passed to SDPA as
.transpose(1, 2) views, the layout a model has after its QKV projection (the flash
backend then needs no copy). Inputs: torch.randn (never zeros).

Method (docs/measurements.md): warm-up; each timed rep = L2 flush (zero_() of a
256 MiB buffer, > 60 MiB L2) then CUDA events around the SDPA call alone; reps =
clamp(50 ms / t, 5, 50); median over reps; the whole sweep runs in P passes (2, a
third if the time budget allows); time_us = median of pass medians, spread_pct =
(max - min) / median of the pass medians. A GPU sleep kernel before each rep loop
lets the host queue ahead so launch gaps stay out of the events.

Kernel names: one extra call per case under torch.profiler (CUDA activity), every GPU
kernel of that call in launch order, ';'-joined; the leading "void " and the trailing
parameter list "(...)" are stripped, template arguments are kept. CSV via the csv
module (RFC 4180 quoting).

--graph (the committed traces/h200/attention.csv): each case is captured once into a CUDA
graph (torch.cuda.graph) and every timed rep replays it, so the events hold the GPU's work
plus one graph launch and no PyTorch host overhead (which reaches 10 us per call in eager
mode and would swamp decode kernels); `timing` says cuda_graph or eager (if capture failed).
`kernel_span_us`: first kernel start to last kernel end of the profiled call (L2 flushed
before it), from the profiler's trace.

Correctness: a few cases per backend against the math backend on float32 copies of
the inputs; max abs error and relative Frobenius error go to the log.

--settle-ms N --shuffle SEED (settled mode): the GPU idles N ms before each case's timed reps,
so no case inherits the power state (and SM clock) of the heavy cases before it, and each
pass visits the cases in its own random order; `settle_ms` records N (0: plain sweep), which
`tgsim validate` reads (the slow power limit engages only as in a run from rest).

--cases probe: a held-out set chosen before the model saw it (short kernels of 2-64 x 16 heads at
seq 512, sequence lengths that are not tile multiples, GQA prefill and decode shapes the sweep
lacks), both backends -> traces/h200/attention_probe.csv.

--cases tile: a diagnosis set, not validation: one Q tile per (batch, head) (seq_q = block_m), 64 to
2048 keys, on 132, 264 and 2112 CTAs, d = 64/128/256 (cuDNN at d=128 only), so that a tile's fixed
cost and a KV block's cost can be told apart, alone on an SM and beside a neighbour.

Usage: attention_capture.py OUT_DIR [--quick] [--cases sweep|probe|tile] [--passes N] [--budget-s S]
                            [--settle-ms N] [--shuffle SEED]
                            [--dry-run]   (lists the cases; needs no GPU or torch)

The parts live beside this script: attention_cases.py (the case lists), attention_runner.py (the
GPU part), attention_results.py (rows and CSV files).
"""
import argparse
import csv
import math
import os
import random
import sys
import tempfile
import time
import traceback

from attention_cases import MEM_LIMIT_BYTES, case_bytes, flops, key_of, make_cases, wants_check
from attention_results import PASSES_HEADER, aggregate_rows, gpu_key, write_csv, write_skipped
from attention_runner import Runner, log


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--passes", type=int, default=3, help="max passes (2 minimum if time allows)")
    ap.add_argument("--budget-s", type=float, default=330.0)
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--settle-ms", type=float, default=0.0, help="GPU idle before each case's reps")
    ap.add_argument("--shuffle", type=int, default=-1, help="seed: each pass in its own random order")
    ap.add_argument("--graph", action="store_true", help="time CUDA-graph replays (no host overhead)")
    ap.add_argument("--cases", choices=["sweep", "probe", "tile"], default="sweep",
                    help="probe: the held-out shapes (short kernels, ragged lengths, new GQA/decode); "
                         "tile: one Q tile per CTA, 1-32 KV blocks, 132/264/2112 CTAs (diagnosis)")
    a = ap.parse_args()
    t0 = time.time()
    os.makedirs(a.out, exist_ok=True)
    cases = make_cases(a.quick, a.cases == "probe", a.cases == "tile")
    if a.dry_run:
        for c in cases:
            log(c, f"{flops(c) / 1e9:.1f} GFLOP", f"{case_bytes(c) / 2**20:.0f} MiB")
        log(len(cases), "cases")
        return 0

    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    log(f"torch {torch.__version__} cuda {torch.version.cuda} cudnn "
        f"{torch.backends.cudnn.version()} device {torch.cuda.get_device_name()} "
        f"sm {torch.cuda.get_device_capability()} "
        f"props {torch.cuda.get_device_properties(0)}")
    torch.manual_seed(0)
    gpu = gpu_key(torch.cuda.get_device_name())
    R = Runner(torch)
    csv_path = os.path.join(a.out, "attention.csv")
    passes_path = os.path.join(a.out, "attention_passes.csv")
    skip_path = os.path.join(a.out, "attention_skipped.csv")
    tmpdir = tempfile.mkdtemp()
    results = {}
    skipped = {}
    pf = open(passes_path, "w", newline="")
    pw = csv.writer(pf)
    pw.writerow(PASSES_HEADER)
    pass_durations = []
    for p in range(a.passes):
        elapsed = time.time() - t0
        if p >= 2 and pass_durations and elapsed + 1.15 * pass_durations[-1] > a.budget_s:
            log(f"### pass {p}: skipped (elapsed {elapsed:.0f}s, last pass "
                f"{pass_durations[-1]:.0f}s, budget {a.budget_s:.0f}s)")
            break
        ps = time.time()
        log(f"### pass {p} (t={elapsed:.0f}s)")
        order = list(cases)
        if a.shuffle >= 0:
            random.Random(a.shuffle * 1000003 + p).shuffle(order)
        for i, c in enumerate(order):
            kk = key_of(c)
            if kk in skipped:
                continue
            if time.time() - t0 > a.budget_s:
                log(f"### budget spent in pass {p} at case {i}")
                break
            tag = (f"{c['set']:7s} {c['backend']:5s} {c['dtype']} b={c['batch']} h={c['heads']}"
                   f"/{c['heads_kv']} sq={c['seq_q']} skv={c['seq_kv']} d={c['head_dim']} "
                   f"causal={c['causal']}")
            if case_bytes(c) > MEM_LIMIT_BYTES:
                skipped[kk] = f"needs {case_bytes(c) / 2**30:.1f} GiB > 40 GiB"
                log(f"  SKIP {tag}: {skipped[kk]}")
                continue
            try:
                q, k, v, native, mode = R.try_prepare(c)
            except Exception as e:
                skipped[kk] = f"backend refused: {e}"
                log(f"  SKIP {tag}: {skipped[kk][:700]}")
                torch.cuda.empty_cache()
                continue
            try:
                r = results.get(kk)
                if r is None:
                    r = results[kk] = dict(pass_medians=[], reps=0, kernel="", gqa_mode=mode)
                    try:
                        R.last_span_us = None
                        r["kernel"] = R.kernels(c, q, k, v, native, tmpdir)
                        if R.last_span_us is not None:
                            r["kernel_span_us"] = f"{R.last_span_us:.3f}"
                    except Exception as e:
                        log(f"    profiler failed: {e}")
                    if wants_check(c, a.quick):
                        try:
                            err, rel = R.check(c, q, k, v, native)
                            ok = rel < 2e-2 and math.isfinite(err)
                            log(f"  CHECK {tag}: max_abs_err {err:.3e} rel_fro_err {rel:.3e} "
                                f"{'PASS' if ok else 'FAIL'}")
                        except Exception as e:
                            log(f"  CHECK {tag}: failed to run ({str(e).splitlines()[0]})")
                        torch.cuda.empty_cache()
                if a.settle_ms > 0:
                    torch.cuda.synchronize()
                    time.sleep(a.settle_ms / 1000.0)
                    r["settle_ms"] = f"{a.settle_ms:g}"
                    r["settled"] = (f"; GPU idle {a.settle_ms:.0f} ms before each case's reps"
                                    + (f"; case order shuffled per pass (seed {a.shuffle})"
                                       if a.shuffle >= 0 else ""))
                med, reps = R.time_case(c, q, k, v, native, use_graph=a.graph)
                r["timing"] = R.last_timing
                r["pass_medians"].append(med)
                r["reps"] = reps
                tf = flops(c) / (med * 1e-6) / 1e12
                pw.writerow([p, c["set"], c["backend"], c["dtype"], c["batch"], c["heads"],
                             c["heads_kv"], c["seq_q"], c["seq_kv"], c["head_dim"], c["causal"],
                             f"{med:.3f}", reps, "", f"{time.time() - t0:.1f}"])
                log(f"  {tag}: {med:10.2f} us {tf:7.1f} TFLOP/s reps {reps} gqa {mode}"
                    + (f" | {r['kernel'][:160]}" if p == 0 else ""))
            except Exception as e:
                log(f"  ERROR {tag}: {e}")
                traceback.print_exc()
            finally:
                del q, k, v
        pf.flush()
        pass_durations.append(time.time() - ps)
        rows = aggregate_rows(cases, results, torch.__version__, gpu)
        write_csv(csv_path, rows)
        write_skipped(skip_path, skipped)
        log(f"### pass {p} done in {pass_durations[-1]:.0f}s; {len(rows)} rows written")
    pf.close()
    rows = aggregate_rows(cases, results, torch.__version__, gpu)
    write_csv(csv_path, rows)
    log(f"### done: {len(rows)} rows, {len(skipped)} skipped, {time.time() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
