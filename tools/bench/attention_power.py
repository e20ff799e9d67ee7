#!/usr/bin/env python3
"""The SM clock, power and temperature a few SDPA attention kernels settle at when run back to
back (each call after a 256 MiB L2 flush, as attention_capture.py times them), for docs/model.md's
note on what the clock model leaves out. Not a model input.

Per case: 3 s idle, then calls back to back for SECONDS (default 15); NVML (pynvml) every 25 ms in
a thread; CUDA events around chunks of calls give the time per call. Rows: steady (last 5 s)
median SM clock, power, temperature, time per call (flush included), and the share of samples
with the SW power cap reason set.

--set long (2026-12-01, tenth session): FlashAttention-2 kernels that run for milliseconds while
streaming HBM (packed-GQA decode at batch 128, 8k and 32k keys; GQA prefill at seq 8192), which
the model predicts 9-19% fast, the longer the faster; their files get the suffix _long. Every
10-call chunk's time per call is written as well (attention_power[_long]_calls.csv), so the time
per call can be read against the time since the card left idle.

Usage: attention_power.py OUT_DIR [SECONDS] [--set long]
"""
import csv
import os
import statistics
import sys
import threading
import time

CASES = [  # name, backend, batch, heads, heads_kv, seq_q, seq_kv, head_dim
    ("fa2_d128", "flash", 4, 16, 16, 4096, 4096, 128),
    ("cudnn_d128", "cudnn", 4, 16, 16, 4096, 4096, 128),
    ("cudnn_d64", "cudnn", 4, 32, 32, 4096, 4096, 64),
]
CASES_LONG = [
    ("fa2_decode_b128_kv8k", "flash", 128, 32, 8, 1, 8192, 128),
    ("fa2_decode_b128_kv32k", "flash", 128, 32, 8, 1, 32768, 128),
    ("fa2_gqa_b4_h64_s8k", "flash", 4, 64, 8, 8192, 8192, 128),
]
SW_POWER_CAP = 0x4


def main():
    out = sys.argv[1]
    secs = float(sys.argv[2]) if len(sys.argv) > 2 and not sys.argv[2].startswith("--") else 15.0
    long_set = "--set" in sys.argv and sys.argv[sys.argv.index("--set") + 1] == "long"
    cases, suffix = (CASES_LONG, "_long") if long_set else (CASES, "")
    os.makedirs(out, exist_ok=True)
    import pynvml
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    pynvml.nvmlInit()
    dev = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
    be = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    rows, series, chunks = [], [], []
    for name, backend, b, h, hkv, sq, s, d in cases:
        q = torch.randn(b, sq, h, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
        k, v = (torch.randn(b, s, hkv, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2) for _ in range(2))

        def call():
            with sdpa_kernel(be[backend]):
                torch.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=hkv != h)

        call()
        torch.cuda.synchronize()
        time.sleep(3.0)
        samples, stop = [], threading.Event()
        t0 = time.time()

        def sampler():
            while not stop.is_set():
                samples.append((time.time() - t0,
                                pynvml.nvmlDeviceGetClockInfo(dev, pynvml.NVML_CLOCK_SM),
                                pynvml.nvmlDeviceGetPowerUsage(dev) / 1000.0,
                                pynvml.nvmlDeviceGetTemperature(dev, pynvml.NVML_TEMPERATURE_GPU),
                                pynvml.nvmlDeviceGetCurrentClocksEventReasons(dev)))
                time.sleep(0.025)

        th = threading.Thread(target=sampler)
        th.start()
        per_call = []
        while time.time() - t0 < secs:
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            for _ in range(10):
                flush.zero_()
                call()
            e1.record()
            e1.synchronize()
            per_call.append((time.time() - t0, e0.elapsed_time(e1) * 100.0))  # us per call
        stop.set()
        th.join()
        steady = [x for x in samples if x[0] >= secs - 5.0]
        calls = [us for t, us in per_call if t >= secs - 5.0]
        what = (f"SDPA {backend} b{b} h{h}/{hkv} seq {sq}x{s} d{d} bf16, each call after a 256 MiB zero_() (L2 flush), back to "
                f"back for {secs:g} s after 3 s idle; NVML every 25 ms; median over the last 5 s")
        rows += [
            (f"sm_clock_{name}_steady", statistics.median(x[1] for x in steady), "MHz", what),
            (f"power_{name}_steady", statistics.median(x[2] for x in steady), "W", what),
            (f"temp_{name}_steady", statistics.median(x[3] for x in steady), "C", what),
            (f"power_cap_share_{name}", sum(1 for x in steady if x[4] & SW_POWER_CAP) / max(1, len(steady)), "fraction",
             what + "; share of samples with the SW power cap clock event reason"),
            (f"call_us_{name}_steady", statistics.median(calls), "us", what + "; CUDA events over 10 calls, flush included"),
        ]
        series += [(name,) + x for x in samples]
        chunks += [(name, t, us) for t, us in per_call]
        print(name, " ".join(f"{r[0]}={r[1]:.3g}" for r in rows[-5:]), flush=True)
    with open(os.path.join(out, f"attention_power{suffix}.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["quantity", "value", "unit", "method"])
        w.writerows(rows)
    with open(os.path.join(out, f"attention_power{suffix}_series.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["case", "t_s", "sm_clock_mhz", "power_w", "temp_c", "clock_event_reasons"])
        w.writerows(series)
    with open(os.path.join(out, f"attention_power{suffix}_calls.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["case", "t_s_chunk_end", "us_per_call_flush_included"])
        w.writerows(chunks)


if __name__ == "__main__":
    main()
