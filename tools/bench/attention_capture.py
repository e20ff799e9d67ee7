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
"""
import argparse
import csv
import json
import math
import os
import random
import re
import statistics
import sys
import tempfile
import time
import traceback
import warnings

from capture_util import strip_kernel_name

FIELDS = ["op", "gpu", "dtype", "batch", "heads", "heads_kv", "seq_q", "seq_kv",
          "head_dim", "causal", "kernel", "time_us", "source",
          "backend", "spread_pct", "tflops", "reps", "passes", "case_set",
          "gqa_mode", "pass_us", "timing", "kernel_span_us", "settle_ms", "causal_align"]
TOKENS = 16384
HIDDEN = 2048
FLUSH_BYTES = 256 << 20
MEM_LIMIT_BYTES = 40 << 30
BACKENDS = ["flash", "cudnn"]


def log(*a):
    print(*a, flush=True)


# ---------------------------------------------------------------- cases (no torch)
def make_cases(quick=False, probe=False, tile=False):
    """Returns a list of dicts: set, backend, dtype, batch, heads, heads_kv, seq_q,
    seq_kv, head_dim, causal. probe: the held-out set; tile: the one-Q-tile diagnosis set
    (see --cases)."""
    cases = []

    def add(cset, dtype, b, h, hkv, sq, skv, d, causal, backends=BACKENDS):
        for be in backends:
            cases.append(dict(set=cset, backend=be, dtype=dtype, batch=b, heads=h,
                              heads_kv=hkv, seq_q=sq, seq_kv=skv, head_dim=d,
                              causal=causal))

    if tile:
        # One Q tile per (batch, head) (seq_q = the kernels' block_m: 128, or 64 at d=256), n KV
        # blocks per CTA, on 132 CTAs (4 heads x 33: one wave, one CTA per SM), 264 (one wave, two
        # per SM) and 2112 (eight waves of two per SM): time = waves x (F + n c) separates a
        # tile's fixed cost F from a block's cost c, alone on an SM or beside a neighbour.
        for b in (33, 66, 528):
            for skv in (64, 128, 256, 512, 1024, 2048):
                for causal in (0, 1):
                    add("tile", "bf16", b, 4, 4, 128, skv, 128, causal)
                add("tile", "bf16", b, 4, 4, 64, skv, 256, 0, backends=["flash"])
                if skv >= 128:
                    for causal in (0, 1):
                        add("tile", "bf16", b, 4, 4, 128, skv, 64, causal, backends=["flash"])
        return cases
    if probe:
        # short kernels at a fixed per-CTA work (seq 512) with 1/16 ... 4x the CTAs of the sweep
        for b in (2, 8, 64):
            for causal in (0, 1):
                add("probe", "bf16", b, 16, 16, 512, 512, 128, causal)
                add("probe", "bf16", b, 32, 32, 512, 512, 64, causal)
        # sequence lengths that are not multiples of the tiles (ragged last blocks)
        for s, b in ((1000, 8), (3000, 2), (768, 16)):
            for causal in (0, 1):
                add("probe", "bf16", b, 16, 16, s, s, 128, causal)
        add("probe", "bf16", 4, 32, 32, 1500, 1500, 64, 1)
        add("probe", "bf16", 2, 8, 8, 2500, 2500, 256, 0)
        # GQA prefill and decode at shapes the sweep does not have
        add("probe", "bf16", 2, 32, 8, 1024, 1024, 128, 1)
        add("probe", "bf16", 2, 64, 8, 4096, 4096, 128, 0)
        for b, skv in ((2, 2048), (4, 6000), (16, 2048), (64, 3000)):
            add("probe", "bf16", b, 32, 8, 1, skv, 128, 0)
        return cases
    if quick:
        add("prefill", "bf16", 8, 16, 16, 2048, 2048, 128, 0)
        add("decode", "bf16", 8, 32, 8, 1, 8192, 128, 0)
        add("gqa", "bf16", 1, 32, 8, 2048, 2048, 128, 1)
        return cases
    seqs = [512, 1024, 2048, 4096, 8192, 16384]
    for d in (64, 128, 256):
        for causal in (0, 1):
            for s in seqs:
                add("prefill", "bf16", TOKENS // s, HIDDEN // d, HIDDEN // d, s, s, d, causal)
    for s in seqs:
        add("prefill", "fp16", TOKENS // s, HIDDEN // 128, HIDDEN // 128, s, s, 128, 0)
    for b in (1, 8, 32, 128):
        for skv in (1024, 4096, 8192, 16384, 32768):
            add("decode", "bf16", b, 32, 8, 1, skv, 128, 0)
    for b in (1, 4):
        for s in (2048, 8192):
            for h, hkv in ((32, 8), (64, 8)):
                for causal in (0, 1):
                    add("gqa", "bf16", b, h, hkv, s, s, 128, causal)
    return cases


def flops(c):
    f = 4.0 * c["batch"] * c["heads"] * c["seq_q"] * c["seq_kv"] * c["head_dim"]
    if c["causal"] and c["seq_q"] == c["seq_kv"]:
        f /= 2
    return f


def case_bytes(c, expand=False):
    """Bytes of Q, K, V, O (plus the expanded K/V copies when expand)."""
    e = 2
    q = c["batch"] * c["seq_q"] * c["heads"] * c["head_dim"] * e
    kv = 2 * c["batch"] * c["seq_kv"] * c["heads_kv"] * c["head_dim"] * e
    if expand:
        kv += 2 * c["batch"] * c["seq_kv"] * c["heads"] * c["head_dim"] * e
    return 2 * q + kv


def key_of(c):
    return (c["set"], c["backend"], c["dtype"], c["batch"], c["heads"], c["heads_kv"],
            c["seq_q"], c["seq_kv"], c["head_dim"], c["causal"])


def pct_spread(vals):
    if len(vals) < 2:
        return 0.0
    m = statistics.median(vals)
    return (max(vals) - min(vals)) / m * 100.0 if m > 0 else 0.0


def source_text(c, r):
    timing = ("CUDA graph of the SDPA call replayed between CUDA events (no host overhead)"
              if r.get("timing") == "cuda_graph" else "CUDA events around the SDPA call only")
    be = {"flash": "PyTorch SDPA FLASH_ATTENTION backend",
          "cudnn": "PyTorch SDPA CUDNN_ATTENTION backend"}[c["backend"]]
    gqa = ""
    if c["heads_kv"] != c["heads"]:
        gqa = ("; GQA via enable_gqa=True" if r["gqa_mode"] == "native"
               else "; GQA via K/V expanded to heads (repeat_interleave before timing)")
    return (f"{be} (torch {r.get('torch', '?')}); forward only, no grad; "
            f"bshd tensors passed as transpose(1,2){gqa}; random inputs; "
            f"{timing}; L2 flushed (256 MiB zero_) "
            f"before each rep; median of {r['reps']} reps x {r['passes']} passes{r.get('settled', '')}")


def write_csv(path, rows):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, quoting=csv.QUOTE_MINIMAL)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in FIELDS})
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def aggregate_rows(cases, results, torch_version):
    rows = []
    for c in cases:
        r = results.get(key_of(c))
        if not r or not r["pass_medians"]:
            continue
        pm = r["pass_medians"]
        t = statistics.median(pm)
        rr = dict(r, passes=len(pm), torch=torch_version)
        rows.append(dict(
            op="attention", gpu="h200", dtype=c["dtype"], batch=c["batch"],
            heads=c["heads"], heads_kv=c["heads_kv"], seq_q=c["seq_q"],
            seq_kv=c["seq_kv"], head_dim=c["head_dim"], causal=c["causal"],
            # is_causal=True in PyTorch's SDPA aligns the mask to the top left (CausalBias)
            causal_align="top_left" if c["causal"] else "",
            kernel=r["kernel"], time_us=f"{t:.3f}", source=source_text(c, rr),
            backend=c["backend"], spread_pct=f"{pct_spread(pm):.2f}",
            tflops=f"{flops(c) / (t * 1e-6) / 1e12:.2f}", reps=r["reps"],
            passes=len(pm), case_set=c["set"], gqa_mode=r["gqa_mode"],
            pass_us=";".join(f"{x:.3f}" for x in pm), timing=r.get("timing", "eager"),
            kernel_span_us=r.get("kernel_span_us", ""), settle_ms=r.get("settle_ms", 0)))
    return rows


# ---------------------------------------------------------------- GPU part
class Runner:
    def __init__(self, torch):
        self.torch = torch
        from torch.nn.attention import SDPBackend, sdpa_kernel
        self.sdpa_kernel = sdpa_kernel
        self.BE = {"flash": SDPBackend.FLASH_ATTENTION,
                   "cudnn": SDPBackend.CUDNN_ATTENTION,
                   "math": SDPBackend.MATH}
        self.F = torch.nn.functional
        self.flush_buf = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda")
        self.tensors = {}
        self.last_span_us = None
        self.last_timing = "eager"

    def dt(self, name):
        return {"bf16": self.torch.bfloat16, "fp16": self.torch.float16}[name]

    def make_inputs(self, c, expand):
        torch = self.torch
        dt = self.dt(c["dtype"])
        b, h, hkv, sq, skv, d = (c["batch"], c["heads"], c["heads_kv"], c["seq_q"],
                                 c["seq_kv"], c["head_dim"])
        q = torch.randn(b, sq, h, d, device="cuda", dtype=dt).transpose(1, 2)
        k = torch.randn(b, skv, hkv, d, device="cuda", dtype=dt).transpose(1, 2)
        v = torch.randn(b, skv, hkv, d, device="cuda", dtype=dt).transpose(1, 2)
        if expand and hkv != h:
            k = k.repeat_interleave(h // hkv, dim=1)
            v = v.repeat_interleave(h // hkv, dim=1)
        return q, k, v

    def call(self, c, q, k, v, gqa_native, backend=None):
        be = self.BE[backend or c["backend"]]
        with self.sdpa_kernel(be):
            if gqa_native:
                return self.F.scaled_dot_product_attention(
                    q, k, v, is_causal=bool(c["causal"]), enable_gqa=True)
            return self.F.scaled_dot_product_attention(q, k, v, is_causal=bool(c["causal"]))

    def try_prepare(self, c):
        """Returns (q, k, v, gqa_native, gqa_mode) or raises with the reason."""
        torch = self.torch
        modes = [("native", True)] if c["heads_kv"] == c["heads"] else \
            [("native", True), ("expand", False)]
        reasons = []
        for mode, native in modes:
            if mode == "expand" and case_bytes(c, True) > MEM_LIMIT_BYTES:
                reasons.append(f"{mode}: needs {case_bytes(c, True) / 2**30:.1f} GiB > 40 GiB")
                continue
            q = k = v = None
            try:
                q, k, v = self.make_inputs(c, expand=(mode == "expand"))
                with warnings.catch_warnings(record=True) as wl:
                    warnings.simplefilter("always")
                    try:
                        o = self.call(c, q, k, v, native if c["heads_kv"] != c["heads"] else False)
                        torch.cuda.synchronize()
                    except Exception as e:
                        msg = " | ".join(str(w.message).replace("\n", " ") for w in wl)
                        reasons.append(f"{mode}: {str(e).splitlines()[0]} [{msg[:600]}]")
                        del q, k, v
                        torch.cuda.empty_cache()
                        continue
                if not torch.isfinite(o).all().item():
                    reasons.append(f"{mode}: non-finite output")
                    continue
                return q, k, v, (native if c["heads_kv"] != c["heads"] else False), \
                    ("native" if c["heads_kv"] == c["heads"] else mode)
            except torch.cuda.OutOfMemoryError as e:
                reasons.append(f"{mode}: OOM {e}")
                torch.cuda.empty_cache()
        raise RuntimeError("; ".join(reasons))

    def kernels(self, c, q, k, v, native, tmpdir):
        torch = self.torch
        from torch.profiler import profile, ProfilerActivity
        self.flush_buf.zero_()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            self.call(c, q, k, v, native)
            torch.cuda.synchronize()
        path = os.path.join(tmpdir, "trace.json")
        names = []
        try:
            prof.export_chrome_trace(path)
            with open(path) as f:
                tr = json.load(f)
            evs = [e for e in tr.get("traceEvents", [])
                   if e.get("cat") == "kernel" and e.get("ph") == "X"]
            evs.sort(key=lambda e: float(e.get("ts", 0)))
            names = [e["name"] for e in evs]
            if evs:
                self.last_span_us = (max(float(e["ts"]) + float(e.get("dur", 0)) for e in evs)
                                     - float(evs[0]["ts"]))
        except Exception as e:  # fall back to the profiler's event list
            log(f"    chrome trace parse failed ({e}); using prof.events()")
            evs = [e for e in prof.events()
                   if str(getattr(e, "device_type", "")).endswith("CUDA")
                   and not e.name.startswith(("Memset", "Memcpy"))]
            evs.sort(key=lambda e: e.time_range.start)
            names = [e.name for e in evs]
        return ";".join(strip_kernel_name(n) for n in names)

    def graph_of(self, c, q, k, v, native):
        """A CUDA graph of one SDPA call, or None if capture fails."""
        torch = self.torch
        try:
            st = torch.cuda.Stream()
            st.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(st):
                for _ in range(2):
                    self.call(c, q, k, v, native)
            torch.cuda.current_stream().wait_stream(st)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                self.graph_out = self.call(c, q, k, v, native)
            torch.cuda.synchronize()
            return g
        except Exception as e:
            log(f"    CUDA graph capture failed ({str(e).splitlines()[0][:200]}); timing eagerly")
            torch.cuda.synchronize()
            return None

    def time_case(self, c, q, k, v, native, use_graph=False):
        torch = self.torch
        g = self.graph_of(c, q, k, v, native) if use_graph else None
        run = g.replay if g is not None else (lambda: self.call(c, q, k, v, native))
        self.last_timing = "cuda_graph" if g is not None else "eager"
        for _ in range(3):
            run()
        torch.cuda.synchronize()
        # estimate
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        self.flush_buf.zero_()
        s.record()
        for _ in range(3):
            run()
        e.record()
        torch.cuda.synchronize()
        est_ms = max(s.elapsed_time(e) / 3, 1e-3)
        reps = int(min(50, max(5, math.floor(50.0 / est_ms))))
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        torch.cuda._sleep(2_000_000)  # ~1 ms head start for the host
        for i in range(reps):
            self.flush_buf.zero_()
            starts[i].record()
            run()
            ends[i].record()
        torch.cuda.synchronize()
        ts = [a.elapsed_time(b) * 1000.0 for a, b in zip(starts, ends)]
        return statistics.median(ts), reps

    def check(self, c, q, k, v, native):
        torch = self.torch
        o = self.call(c, q, k, v, native).float()
        qf, kf, vf = q.float(), k.float(), v.float()
        with self.sdpa_kernel(self.BE["math"]):
            if c["heads_kv"] != c["heads"] and native:
                ref = self.F.scaled_dot_product_attention(
                    qf, kf, vf, is_causal=bool(c["causal"]), enable_gqa=True)
            else:
                ref = self.F.scaled_dot_product_attention(qf, kf, vf, is_causal=bool(c["causal"]))
        err = (o - ref).abs().max().item()
        rel = ((o - ref).norm() / ref.norm()).item()
        return err, rel


CHECK_KEYS = {  # (set, dtype, seq, head_dim, causal) checked for every backend
    ("prefill", "bf16", 1024, 64, 0), ("prefill", "bf16", 1024, 128, 1),
    ("prefill", "bf16", 2048, 256, 1), ("prefill", "fp16", 1024, 128, 0),
    ("decode", "bf16", 4096, 128, 0), ("gqa", "bf16", 2048, 128, 1),
}


def wants_check(c, quick):
    if quick:
        return True
    if c["set"] == "decode":
        return c["batch"] == 8 and c["seq_kv"] == 4096
    if c["set"] == "gqa":
        return c["batch"] == 1 and c["seq_q"] == 2048 and c["heads"] == 32 and c["causal"] == 1
    return (c["set"], c["dtype"], c["seq_q"], c["head_dim"], c["causal"]) in CHECK_KEYS


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
    R = Runner(torch)
    csv_path = os.path.join(a.out, "attention.csv")
    passes_path = os.path.join(a.out, "attention_passes.csv")
    skip_path = os.path.join(a.out, "attention_skipped.csv")
    tmpdir = tempfile.mkdtemp()
    results = {}
    skipped = {}
    pf = open(passes_path, "w", newline="")
    pw = csv.writer(pf)
    pw.writerow(["pass", "set", "backend", "dtype", "batch", "heads", "heads_kv", "seq_q",
                 "seq_kv", "head_dim", "causal", "median_us", "reps", "min_us", "t_wall_s"])
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
        rows = aggregate_rows(cases, results, torch.__version__)
        write_csv(csv_path, rows)
        with open(skip_path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["set", "backend", "dtype", "batch", "heads", "heads_kv", "seq_q",
                        "seq_kv", "head_dim", "causal", "reason"])
            for kk, why in skipped.items():
                w.writerow(list(kk) + [why])
        log(f"### pass {p} done in {pass_durations[-1]:.0f}s; {len(rows)} rows written")
    pf.close()
    rows = aggregate_rows(cases, results, torch.__version__)
    write_csv(csv_path, rows)
    log(f"### done: {len(rows)} rows, {len(skipped)} skipped, {time.time() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
