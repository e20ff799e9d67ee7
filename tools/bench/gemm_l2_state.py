#!/usr/bin/env python3
"""Kernel durations of decode-shaped GEMMs by the state L2 is left in before each call.

Profile replay (tgsim validate --profile) simulates the GEMMs of an eager decode step with a clean
L2, and the GEMM validation sets (gemm_settled.csv) with the dirty L2 a memset flush leaves. This
script measures which is right for these kernels: torch.mm (bf16, cuBLASLt's default heuristic)
of the Llama-3 projection shapes at M = 8 and 32 tokens, each call preceded by one of
  dirty: a 256 MiB zero_() (L2 full of dirty lines, as in gemm_settled.csv);
  clean: a read of a 256 MiB buffer (sum; L2 full of clean lines);
  warm:  nothing but a 4-byte zero_() as a marker (the weights may still be in L2 from the call
         before).
Each call runs under torch.profiler (CUPTI kernel records); per kernel of the GEMM (the GEMM and a
split-K reduction when there is one) the median duration over CALLS calls after 3 warm-ups.

Output: CSV state,M,N,K,kernel_index,kernel,duration_us,calls.
Usage: gemm_l2_state.py OUT.csv [--dry-run]
"""
import sys

from capture_util import kernels_per_call, median_per_kernel, write_rows

# (M tokens, N out features, K in features): Llama-3-8B decode projections (QKV, O, gate/up, down)
SHAPES = [(m, n, k) for m in (8, 32) for n, k in ((6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336))]
STATES = ("dirty", "clean", "warm")
CALLS = 20


def main(argv):
    if "--dry-run" in argv:
        for s in STATES:
            for c in SHAPES:
                print(s, *c)
        return 0
    out = argv[0]
    import torch
    from torch.profiler import ProfilerActivity, profile
    big = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    big_f = torch.ones(64 << 20, dtype=torch.float32, device="cuda")  # 256 MiB to read
    marker = torch.empty(1, dtype=torch.float32, device="cuda")
    prep = {"dirty": lambda: big.zero_(), "clean": lambda: big_f.sum(), "warm": lambda: marker.zero_()}
    rows = []
    for state in STATES:
        for m, n, k in SHAPES:
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)

            def call():
                return torch.mm(a, w.t())

            for _ in range(3):
                prep[state]()
                call()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(CALLS):
                    prep[state]()
                    torch.cuda.synchronize()
                    call()
                    torch.cuda.synchronize()
            # the preparation's at::native kernel(s) open each call
            for i, name, dur, calls in median_per_kernel(kernels_per_call(prof, lambda kname: "at::native" in kname)):
                rows.append(dict(state=state, M=m, N=n, K=k, kernel_index=i, kernel=name, duration_us=f"{dur:.3f}",
                                 calls=calls))
                print(f"{state:5s} {m}x{n}x{k} kernel {i}: {dur:8.2f} us  {name[:80]}", flush=True)
    write_rows(out, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
