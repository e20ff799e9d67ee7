"""The GPU part of attention_capture.py: Runner forces one SDPA backend, makes the inputs, records the
kernel names and span of one call (torch.profiler), times a case (L2 flush + CUDA events, eager or
CUDA-graph replay) and checks it against the math backend. Importing this needs no torch: the
caller passes the torch module to Runner."""
import json
import math
import os
import statistics
import warnings

from attention_cases import MEM_LIMIT_BYTES, case_bytes
from capture_util import strip_kernel_name

FLUSH_BYTES = 256 << 20


def log(*a):
    print(*a, flush=True)


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
