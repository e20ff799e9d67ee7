#!/usr/bin/env python3
"""The attention kernels PyTorch SDPA runs, one call each, for Nsight Compute (ncu) to profile.

Run under ncu with --profile-from-start off (run_ncu.sh attention does): each case is warmed up
outside the profiled range, then L2 is flushed and one SDPA call runs between
torch.cuda.profiler.start() and stop(), so ncu profiles exactly the kernels of that call.

What the profile is for (docs/attention.md): where a FlashAttention-2 / cuDNN warp's cycles go —
instructions executed per pipe and per opcode, issue-slot use, warp stall reasons, tensor-pipe
use — so the attention lowerings' per-element instruction counts and their latency terms can be
checked against the compiled kernels instead of being counted from the algorithm.

Usage: attention_ncu.py [--set short|decode|perblock|causal] [--dry-run]   (that set only, no GEMMs)
"""
import sys

# backend, batch, heads, heads_kv, seq_q, seq_kv, head_dim, causal (bf16; the prefill cases keep
# the FlashAttention papers' 16k tokens and heads * head_dim = 2048)
CASES = [
    ("flash", 4, 32, 32, 4096, 4096, 64, 0), ("flash", 4, 16, 16, 4096, 4096, 128, 0),
    ("flash", 4, 8, 8, 4096, 4096, 256, 0), ("flash", 4, 16, 16, 4096, 4096, 128, 1),
    ("flash", 32, 16, 16, 512, 512, 128, 0),
    ("flash", 1, 32, 8, 1, 8192, 128, 0), ("flash", 32, 32, 8, 1, 8192, 128, 0),
    ("cudnn", 4, 32, 32, 4096, 4096, 64, 0), ("cudnn", 4, 16, 16, 4096, 4096, 128, 0),
    ("cudnn", 4, 8, 8, 4096, 4096, 256, 0), ("cudnn", 4, 16, 16, 4096, 4096, 128, 1),
    ("cudnn", 32, 16, 16, 512, 512, 128, 0),
    ("cudnn", 1, 32, 8, 1, 8192, 128, 0), ("cudnn", 32, 32, 8, 1, 8192, 128, 0),
]
# --set short: short kernels (seq 512, 2048 CTAs) where the model is 10-37% fast, causal against
# non-causal (their measured times nearly equal while the causal kernels do 60% of the work).
CASES_SHORT = [
    ("flash", 32, 16, 16, 512, 512, 128, 1), ("flash", 32, 32, 32, 512, 512, 64, 0),
    ("flash", 32, 32, 32, 512, 512, 64, 1), ("cudnn", 32, 32, 32, 512, 512, 64, 0),
]
# --set decode: small decode calls, whose split-KV and combine kernels the model predicts 20-40% fast.
CASES_DECODE = [("flash", 1, 32, 8, 1, 1024, 128, 0), ("flash", 1, 32, 8, 1, 8192, 128, 0),
                ("cudnn", 1, 32, 8, 1, 1024, 128, 0)]
# --set perblock: long kernels whose per-KV-block cost the model misses (2026-12-01, tenth
# session): cuDNN d=128 / d=256 (d=256 10% fast in the model, d=64's SASS is in --set short) and
# FlashAttention-2's packed-GQA decode at batch 128 (15-19% fast).
CASES_PERBLOCK = [("cudnn", 4, 16, 16, 4096, 4096, 128, 0), ("cudnn", 4, 8, 8, 4096, 4096, 256, 0),
                  ("cudnn", 4, 8, 8, 4096, 4096, 256, 1), ("flash", 128, 32, 8, 1, 8192, 128, 0)]
# --set causal: cuDNN's causal excess (docs/validation.md, attention point 4): causal and non-causal
# kernels at two sequence lengths (1024 and 4096 keys, the papers' 16k tokens), so the extra
# instructions per masked block and per tile can be told apart; d=128 and d=256.
CASES_CAUSAL = [("cudnn", 16, 16, 16, 1024, 1024, 128, 0), ("cudnn", 16, 16, 16, 1024, 1024, 128, 1),
                ("cudnn", 4, 16, 16, 4096, 4096, 128, 0), ("cudnn", 4, 16, 16, 4096, 4096, 128, 1),
                ("cudnn", 16, 8, 8, 1024, 1024, 256, 0), ("cudnn", 16, 8, 8, 1024, 1024, 256, 1),
                ("cudnn", 4, 8, 8, 4096, 4096, 256, 0), ("cudnn", 4, 8, 8, 4096, 4096, 256, 1)]
# A few mid-size GEMMs (torch.mm, bf16, row-major M x K times K x N) that the GEMM model predicts
# 20-25% fast, profiled the same way for comparison with a kernel the model gets right (8192^3).
GEMMS = [(1024, 4096, 4096), (256, 4096, 4096), (2048, 4096, 4096), (8192, 8192, 8192)]


def main():
    which = sys.argv[sys.argv.index("--set") + 1] if "--set" in sys.argv else ""
    cases, gemms = {"short": (CASES_SHORT, []), "decode": (CASES_DECODE, []),
                    "perblock": (CASES_PERBLOCK, []), "causal": (CASES_CAUSAL, [])}.get(which, (CASES, GEMMS))
    if "--dry-run" in sys.argv:
        for c in cases + gemms:
            print(*c)
        return
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backends = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    for backend, b, h, hkv, sq, skv, d, causal in cases:
        q = torch.randn(b, sq, h, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
        k = torch.randn(b, skv, hkv, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
        v = torch.randn(b, skv, hkv, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)

        def call():
            with sdpa_kernel(backends[backend]):
                return torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, is_causal=bool(causal), enable_gqa=hkv != h)

        for _ in range(3):
            call()
        flush.zero_()
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
        call()
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
        print(f"case {backend} b{b} h{h}/{hkv} sq{sq} skv{skv} d{d} causal{causal}", flush=True)
    for m, n, kk in gemms:
        a = torch.randn(m, kk, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(kk, n, device="cuda", dtype=torch.bfloat16)
        for _ in range(3):
            a @ w
        flush.zero_()
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
        a @ w
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
        print(f"gemm {m}x{n}x{kk}", flush=True)


if __name__ == "__main__":
    main()
