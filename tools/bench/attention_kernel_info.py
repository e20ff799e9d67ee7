#!/usr/bin/env python3
"""Launch configuration of the attention kernels PyTorch SDPA runs (grid, block, registers,
shared memory, CTAs per SM as the profiler reports them), for the lowering's occupancy and
tile-shape assumptions (docs/attention.md). One profiled call per case (torch.profiler,
CUDA activity; kineto's per-kernel args). Output: OUT_DIR/attention_kernel_info.csv.

Usage: attention_kernel_info.py OUT_DIR
"""
import csv
import json
import os
import sys
import tempfile

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile

CASES = [  # backend, batch, heads, heads_kv, seq_q, seq_kv, head_dim, causal
    ("flash", 4, 32, 32, 4096, 4096, 64, 0), ("flash", 4, 16, 16, 4096, 4096, 128, 0),
    ("flash", 4, 8, 8, 4096, 4096, 256, 0), ("flash", 4, 16, 16, 4096, 4096, 128, 1),
    ("flash", 1, 32, 8, 1, 8192, 128, 0), ("flash", 32, 32, 8, 1, 8192, 128, 0),
    ("cudnn", 4, 32, 32, 4096, 4096, 64, 0), ("cudnn", 4, 16, 16, 4096, 4096, 128, 0),
    ("cudnn", 4, 8, 8, 4096, 4096, 256, 0), ("cudnn", 4, 16, 16, 4096, 4096, 128, 1),
    ("cudnn", 1, 32, 8, 1, 8192, 128, 0), ("cudnn", 32, 32, 8, 1, 8192, 128, 0),
]
KEYS = ["grid", "block", "registers per thread", "shared memory", "blocks per SM", "warps per SM",
        "est. achieved occupancy %"]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    be = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}
    rows = []
    for backend, b, h, hkv, sq, skv, d, causal in CASES:
        q = torch.randn(b, sq, h, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
        k = torch.randn(b, skv, hkv, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
        v = torch.randn(b, skv, hkv, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
        call = lambda: torch.nn.functional.scaled_dot_product_attention(  # noqa: E731
            q, k, v, is_causal=bool(causal), enable_gqa=hkv != h)
        with sdpa_kernel(be[backend]):
            call()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                call()
                torch.cuda.synchronize()
        path = os.path.join(tempfile.mkdtemp(), "t.json")
        prof.export_chrome_trace(path)
        evs = [e for e in json.load(open(path))["traceEvents"] if e.get("cat") == "kernel"]
        for e in sorted(evs, key=lambda e: float(e["ts"])):
            a = e.get("args", {})
            row = dict(backend=backend, batch=b, heads=h, heads_kv=hkv, seq_q=sq, seq_kv=skv, head_dim=d,
                       causal=causal, kernel=e["name"][:300], dur_us=e.get("dur", ""))
            for key in KEYS:
                row[key] = json.dumps(a.get(key, "")) if isinstance(a.get(key), list) else a.get(key, "")
            rows.append(row)
            print(backend, b, h, hkv, sq, skv, d, causal, e["name"][:90], {k: row[k] for k in KEYS}, flush=True)
    with open(os.path.join(out, "attention_kernel_info.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
