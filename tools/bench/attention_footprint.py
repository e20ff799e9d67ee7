"""Does FlashAttention-2's decode kernel slow down with the size of the KV cache it reads, for the
same work per CTA? (docs/attention.md, "Long-KV decode"; the settled set's b128 rows at 16k and 32k
keys run 6-10% slower per byte than at 4k-8k.)

Each case runs PyTorch SDPA with the flash backend forced on one new token (seq_q 1, 32 query
heads, 8 KV heads, head_dim 128, bf16, enable_gqa: the packed-GQA flash_fwd_kernel) and changes
only how the K/V tensors lie in memory:
  natural  [b, s, 8, 128] tensors (as attention_capture.py makes them);
  heads    [b, 8, s, 128] (heads-major, as profile_capture.py's KV cache): each CTA's keys contiguous;
  hpad N   [b, s, N, 128] allocated, heads 0-7 used: the same bytes read from N/8 times the pages;
  spad S   [b, S, 8, 128] allocated, keys 0..s-1 used: batch entries S/s times as far apart, the
           same pages touched.
Timing: 256 MiB memset (L2 flush) before each rep, CUDA events around the SDPA call, 10 reps,
median; 3 passes over the cases in turn (median of the pass medians). The GPU idles 50 ms before
each case's reps. Kernel names from torch.profiler (one call per case).

Usage: attention_footprint.py OUT.csv   (needs torch with CUDA)"""
import statistics
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from capture_util import strip_kernel_name

H, HKV, D = 32, 8, 128
CASES = [  # (batch, keys, layout, pad)
    (128, 4096, "natural", 0), (128, 8192, "natural", 0), (128, 16384, "natural", 0), (128, 32768, "natural", 0),
    (128, 8192, "hpad", 16), (128, 8192, "hpad", 32), (128, 4096, "hpad", 64),
    (128, 8192, "spad", 32768),
    (128, 8192, "heads", 0), (128, 32768, "heads", 0),
    (32, 32768, "natural", 0), (32, 8192, "hpad", 32),
]
REPS, PASSES = 10, 3


def make_kv(b, s, layout, pad):
    dt = torch.bfloat16
    if layout == "heads":
        return [torch.randn(b, HKV, s, D, device="cuda", dtype=dt) for _ in range(2)]
    if layout == "hpad":
        return [torch.randn(b, s, pad, D, device="cuda", dtype=dt)[:, :, :HKV].transpose(1, 2) for _ in range(2)]
    if layout == "spad":
        return [torch.randn(b, pad, HKV, D, device="cuda", dtype=dt)[:, :s].transpose(1, 2) for _ in range(2)]
    return [torch.randn(b, s, HKV, D, device="cuda", dtype=dt).transpose(1, 2) for _ in range(2)]


def span_bytes(b, s, layout, pad):
    per = {"hpad": b * s * pad * D, "spad": b * pad * HKV * D}.get(layout, b * s * HKV * D)
    return 2 * 2 * per


def main():
    out = sys.argv[1]
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    names, times = {}, {i: [] for i in range(len(CASES))}
    for p in range(PASSES):
        for i, (b, s, layout, pad) in enumerate(CASES):
            q = torch.randn(b, 1, H, D, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
            k, v = make_kv(b, s, layout, pad)
            run = lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                run()
                torch.cuda.synchronize()
                if i not in names:
                    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                        run()
                        torch.cuda.synchronize()
                    names[i] = ";".join(strip_kernel_name(e.name) for e in prof.events()
                                        if e.device_type.name == "CUDA")
                time.sleep(0.05)
                ts = []
                for _ in range(REPS):
                    flush.zero_()
                    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    e0.record()
                    run()
                    e1.record()
                    torch.cuda.synchronize()
                    ts.append(e0.elapsed_time(e1) * 1000.0)
            times[i].append(statistics.median(ts))
            print(f"pass {p} b{b} s{s} {layout}{pad or ''}: {times[i][-1]:.1f} us", flush=True)
            del q, k, v
            torch.cuda.empty_cache()
    with open(out, "w") as f:
        f.write("batch,heads,heads_kv,seq_q,seq_kv,head_dim,layout,pad,kv_read_bytes,kv_span_bytes,time_us,"
                "pass_us,read_tb_s,kernel,method\n")
        for i, (b, s, layout, pad) in enumerate(CASES):
            t = statistics.median(times[i])
            read = 2 * 2 * b * s * HKV * D
            f.write(f"{b},{H},{HKV},1,{s},{D},{layout},{pad},{read},{span_bytes(b, s, layout, pad)},{t:.3f},"
                    f"{'/'.join(f'{x:.1f}' for x in times[i])},{read / t / 1e6:.3f},\"{names[i]}\","
                    f"SDPA flash backend enable_gqa; L2 flushed; CUDA events; {REPS} reps median; {PASSES} passes median"
                    f" (tools/bench/attention_footprint.py)\n")


if __name__ == "__main__":
    main()
