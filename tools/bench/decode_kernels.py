#!/usr/bin/env python3
"""Per-kernel durations of small attention decode calls (PyTorch SDPA, flash and cuDNN backends).

The decode rows of traces/h200/attention.csv time the whole SDPA call (a split-KV kernel and its
combine / reduction kernel, CUDA graph replay between events). This script says how that time
splits between the two kernels: each case runs under torch.profiler (CUDA activity: CUPTI kernel
records, exact GPU durations whatever the launch gaps), with the L2 flushed (256 MiB zero_)
before every call, 20 calls after 3 warm-ups; per kernel the median duration.

Output: CSV backend,batch,heads,heads_kv,seq_kv,head_dim,kernel_index,kernel,duration_us,calls.
Usage: decode_kernels.py OUT.csv [--dry-run]
"""
import sys

from capture_util import kernels_per_call, median_per_kernel, write_rows

# backend, batch, heads, heads_kv, seq_kv, head_dim (seq_q = 1, bf16)
CASES = [(be, b, 32, 8, kv, 128) for be in ("flash", "cudnn") for b, kv in
         ((1, 1024), (1, 4096), (1, 8192), (1, 32768), (2, 2048), (8, 1024), (8, 8192))]
CALLS = 20


def is_flush(name):
    """The flush's fill kernel, which opens each profiled call."""
    return "fill" in name.lower() or "memset" in name.lower()


def main(argv):
    if "--dry-run" in argv:
        for c in CASES:
            print(*c)
        return 0
    out = argv[0]
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.profiler import ProfilerActivity, profile
    backends = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    rows = []
    for be, b, h, hkv, kv, d in CASES:
        q = torch.randn(b, 1, h, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
        k = torch.randn(b, kv, hkv, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
        v = torch.randn(b, kv, hkv, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)

        def call():
            with sdpa_kernel(backends[be]):
                return torch.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True)

        for _ in range(3):
            call()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(CALLS):
                flush.zero_()
                torch.cuda.synchronize()
                call()
                torch.cuda.synchronize()
        for i, name, dur, calls in median_per_kernel(kernels_per_call(prof, is_flush)):
            rows.append(dict(backend=be, batch=b, heads=h, heads_kv=hkv, seq_kv=kv, head_dim=d, kernel_index=i,
                             kernel=name, duration_us=f"{dur:.3f}", calls=calls))
            print(f"{be} b{b} kv{kv} kernel {i}: {dur:8.2f} us  {name[:90]}", flush=True)
    write_rows(out, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
