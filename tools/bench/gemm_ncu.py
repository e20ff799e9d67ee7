#!/usr/bin/env python3
"""GEMMs whose shapes make cuBLASLt fall back to narrow-alignment kernels (odd K: CUTLASS
align1/align2), one call each between cudaProfilerStart/Stop for Nsight Compute, with a
16-byte-aligned neighbour shape for comparison. A and B are row-major [M, K] and [N, K] and the
call is a @ b.t() (cuBLAS TN, as gemm_sweep runs its rows).

--set traffic: instead, GEMMs run by nvjet kernels with an `h` raster and few n tiles (and two
controls), for the DRAM and L2 traffic counters alone (run_ncu.sh gemm_traffic): do consecutive
CTAs share the big operand?

--set cluster: GEMMs whose nvjet kernels multicast narrow tiles over large clusters (2x4, 4x2,
4x1) and two controls with 2-CTA clusters (run_ncu.sh gemm_cluster, all sections): what limits
a K step when the SM receives a whole tile but fetches a slice of it?

--set tf32: small tf32 GEMMs run by sm90 xmma kernels (64x64x32 and 64x128x32 tiles, 1x2 and 2x2
clusters), which the model predicts 8-15% fast, and two bf16 nvjet controls of the same shapes
(run_ncu.sh gemm_tf32, all sections): their L2 traffic, tensor-pipe activity and clock.

--set misaligned: held-out rows of gemm_misaligned.csv run by CUTLASS sm75 register-staged kernels
(64x64 split 24 ways, 128x128 with an 8 KiB row pitch, 128x128 serial split-K, 256x128) and one sm80
align2 kernel (run_ncu.sh gemm_misaligned, all sections): registers and occupancy, load sectors,
stall reasons.

Usage: gemm_ncu.py [--set narrow|traffic|cluster|tf32|misaligned] [--dry-run]
"""
import sys

TRAFFIC = [  # dtype, M, N, K: the weight operand N x K is 72-940 MB, read once or once per n tile
    ("bf16", 256, 57344, 8192), ("bf16", 1024, 14336, 4096), ("bf16", 512, 28672, 4096),
    ("bf16", 256, 10240, 8192), ("bf16", 256, 14336, 4096), ("bf16", 4096, 4096, 4096),
]
CLUSTER = [  # dtype, M, N, K: the held-out rows (gemm_probe.csv) with 4- and 8-CTA clusters, two controls
    ("bf16", 1536, 576, 7168), ("bf16", 384, 1536, 7168), ("bf16", 384, 5120, 2048), ("bf16", 96, 576, 7168),
    ("bf16", 1024, 1024, 8192), ("bf16", 4096, 4096, 4096),
]
TF32 = [  # dtype, M, N, K: settled rows at -8 ... -15% (1000^3, 512^3, 256x4096x4096), neighbours, controls
    ("tf32", 1000, 1000, 1000), ("tf32", 1024, 1024, 1024), ("tf32", 512, 512, 512), ("tf32", 256, 4096, 4096),
    ("tf32", 16, 4096, 4096), ("bf16", 1000, 1000, 1000), ("bf16", 256, 4096, 4096),
]
MISALIGNED = [  # dtype, M, N, K (traces/h200/gemm_misaligned.csv)
    ("bf16", 16, 4096, 4097), ("bf16", 2048, 4096, 4097), ("bf16", 512, 32001, 4096), ("bf16", 1535, 1535, 1535),
    ("bf16", 1000, 1000, 1002),
]
CASES = [  # dtype, M, N, K
    ("bf16", 2500, 2500, 2500), ("bf16", 2560, 2560, 2560), ("bf16", 2049, 2049, 2049),
    ("tf32", 4097, 4097, 4097), ("tf32", 4096, 4096, 4096), ("tf32", 1023, 1023, 1023),
]


def main():
    cases = (TRAFFIC if "traffic" in sys.argv else CLUSTER if "cluster" in sys.argv else TF32 if "tf32" in sys.argv
             else MISALIGNED if "misaligned" in sys.argv else CASES)
    if "--dry-run" in sys.argv:
        for c in cases:
            print(*c)
        return
    import torch
    torch.backends.cuda.matmul.allow_tf32 = True
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    for dt, m, n, k in cases:
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
