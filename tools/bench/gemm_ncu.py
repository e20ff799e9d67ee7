#!/usr/bin/env python3
"""GEMMs whose shapes make cuBLASLt fall back to narrow-alignment kernels (odd K: CUTLASS
align1/align2), one call each between cudaProfilerStart/Stop for Nsight Compute, with a
16-byte-aligned neighbour shape for comparison. A and B are row-major [M, K] and [N, K] and the
call is a @ b.t() (cuBLAS TN, as gemm_sweep runs its rows).

Usage: gemm_ncu.py [--dry-run]
"""
import sys

CASES = [  # dtype, M, N, K
    ("bf16", 2500, 2500, 2500), ("bf16", 2560, 2560, 2560), ("bf16", 2049, 2049, 2049),
    ("tf32", 4097, 4097, 4097), ("tf32", 4096, 4096, 4096), ("tf32", 1023, 1023, 1023),
]


def main():
    if "--dry-run" in sys.argv:
        for c in CASES:
            print(*c)
        return
    import torch
    torch.backends.cuda.matmul.allow_tf32 = True
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    for dt, m, n, k in CASES:
        t = torch.bfloat16 if dt == "bf16" else torch.float32
        a = torch.randn(m, k, device="cuda", dtype=t)
        b = torch.randn(n, k, device="cuda", dtype=t)
        for _ in range(3):
            a @ b.t()
        flush.zero_()
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
        a @ b.t()
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
        print(f"gemm {dt} {m}x{n}x{k}", flush=True)


if __name__ == "__main__":
    main()
