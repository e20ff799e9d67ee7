#!/usr/bin/env python3
"""Llama-shaped decoder-layer slices in eager PyTorch, profiled for `tgsim validate --profile`.

What it records: Chrome traces (torch.profiler, CPU + CUDA activities, record_shapes=True) of
N decoder layers shaped like Llama-3-8B (hidden 4096, 32 query / 8 KV heads of 128, MLP 14336,
bf16, random weights), written the way Hugging Face's eager Llama code is: RMSNorm as
pow/mean/rsqrt/mul, fused QKV and gate/up projections (nn.Linear), rotary embedding with
rotate_half (slice/neg/cat/mul/add), SDPA (flash backend forced, or cuDNN's with --backend cudnn;
GQA with enable_gqa=True),
SiLU x mul, residual adds. Cases: prefill (batch 1, seq 2048; batch 4, seq 512) and decode
(batch 8 and 32, one new token against a 4096-token KV cache, K/V cache tensors preallocated).
Each case: 3 warm-up steps, then one profiled step (torch.cuda.synchronize around it).

Usage: profile_capture.py OUT_DIR [--layers N] [--backend flash|cudnn] [--model 8b|70b]
(cudnn: the same cases with SDPA's cuDNN backend forced, file names ending in _cudnn;
 70b: Llama-3-70B's layer shape, hidden 8192, 64 query / 8 KV heads, MLP 28672, files llama70b_*)
"""
import argparse
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile

H, HEADS, KV, D, I = 4096, 32, 8, 128, 14336
# --model: hidden, query heads, KV heads, head dim, MLP width
MODELS = {"8b": (4096, 32, 8, 128, 14336), "70b": (8192, 64, 8, 128, 28672)}


class Layer(torch.nn.Module):
    backend = SDPBackend.FLASH_ATTENTION

    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(H, (HEADS + 2 * KV) * D, bias=False)
        self.o = torch.nn.Linear(HEADS * D, H, bias=False)
        self.gate_up = torch.nn.Linear(H, 2 * I, bias=False)
        self.down = torch.nn.Linear(I, H, bias=False)
        self.n1 = torch.nn.Parameter(torch.randn(H))
        self.n2 = torch.nn.Parameter(torch.randn(H))

    @staticmethod
    def rms(x, w):
        v = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * torch.rsqrt(v + 1e-5)).to(x.dtype) * w

    @staticmethod
    def rot(x):
        a, b = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
        return torch.cat((-b, a), dim=-1)

    def forward(self, x, cos, sin, kcache=None, vcache=None):
        b, s, _ = x.shape
        h = self.rms(x, self.n1)
        q, k, v = self.qkv(h).split([HEADS * D, KV * D, KV * D], dim=-1)
        q = q.view(b, s, HEADS, D).transpose(1, 2)
        k = k.view(b, s, KV, D).transpose(1, 2)
        v = v.view(b, s, KV, D).transpose(1, 2)
        q = q * cos + self.rot(q) * sin
        k = k * cos + self.rot(k) * sin
        if kcache is not None:  # decode: write the new token, attend over the whole cache
            kcache[:, :, -1:, :] = k
            vcache[:, :, -1:, :] = v
            k, v = kcache, vcache
        with sdpa_kernel(Layer.backend):
            a = F.scaled_dot_product_attention(q, k, v, is_causal=kcache is None, enable_gqa=True)
        x = x + self.o(a.transpose(1, 2).reshape(b, s, HEADS * D))
        h = self.rms(x, self.n2)
        g, u = self.gate_up(h).chunk(2, dim=-1)
        return x + self.down(F.silu(g) * u)


def run_case(name, layers, batch, seq, context, out):
    torch.manual_seed(0)
    model = torch.nn.ModuleList([Layer() for _ in range(layers)]).cuda().to(torch.bfloat16)
    x = torch.randn(batch, seq, H, device="cuda", dtype=torch.bfloat16)
    cos = torch.randn(seq, D, device="cuda", dtype=torch.bfloat16)
    sin = torch.randn(seq, D, device="cuda", dtype=torch.bfloat16)
    caches = None
    if context:
        caches = [(torch.randn(batch, KV, context + seq, D, device="cuda", dtype=torch.bfloat16),
                   torch.randn(batch, KV, context + seq, D, device="cuda", dtype=torch.bfloat16)) for _ in range(layers)]

    def step():
        y = x
        for i, layer in enumerate(model):
            kc, vc = caches[i] if caches else (None, None)
            y = layer(y, cos, sin, kc, vc)
        return y

    with torch.no_grad():
        for _ in range(3):
            step()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
            step()
            torch.cuda.synchronize()
    path = os.path.join(out, f"{name}.json")
    prof.export_chrome_trace(path)
    kernels = [e for e in prof.events() if str(getattr(e, "device_type", "")).endswith("CUDA")]
    print(f"{name}: {len(kernels)} GPU events, trace {os.path.getsize(path) / 1e6:.1f} MB", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--backend", choices=["flash", "cudnn"], default="flash")
    ap.add_argument("--model", choices=sorted(MODELS), default="8b")
    a = ap.parse_args()
    global H, HEADS, KV, D, I
    H, HEADS, KV, D, I = MODELS[a.model]
    tag = f"llama{a.model}"
    Layer.backend = SDPBackend.CUDNN_ATTENTION if a.backend == "cudnn" else SDPBackend.FLASH_ATTENTION
    sfx = "_cudnn" if a.backend == "cudnn" else ""
    os.makedirs(a.out, exist_ok=True)
    print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(), flush=True)
    run_case(f"{tag}_prefill_b1_s2048_{a.layers}l{sfx}", a.layers, 1, 2048, 0, a.out)
    run_case(f"{tag}_prefill_b4_s512_{a.layers}l{sfx}", a.layers, 4, 512, 0, a.out)
    run_case(f"{tag}_decode_b8_ctx4096_{a.layers}l{sfx}", a.layers, 8, 1, 4096, a.out)
    run_case(f"{tag}_decode_b32_ctx4096_{a.layers}l{sfx}", a.layers, 32, 1, 4096, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
