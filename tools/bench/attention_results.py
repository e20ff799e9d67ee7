"""The result rows of attention_capture.py (no torch needed to import): the CSV columns, the
`source` text, the aggregation of pass medians into rows, and the CSV writers."""
import csv
import os
import statistics

from attention_cases import flops, key_of

FIELDS = ["op", "gpu", "dtype", "batch", "heads", "heads_kv", "seq_q", "seq_kv",
          "head_dim", "causal", "kernel", "time_us", "source",
          "backend", "spread_pct", "tflops", "reps", "passes", "case_set",
          "gqa_mode", "pass_us", "timing", "kernel_span_us", "settle_ms", "causal_align"]
PASSES_HEADER = ["pass", "set", "backend", "dtype", "batch", "heads", "heads_kv", "seq_q",
                 "seq_kv", "head_dim", "causal", "median_us", "reps", "min_us", "t_wall_s"]


def pct_spread(vals):
    if len(vals) < 2:
        return 0.0
    m = statistics.median(vals)
    return (max(vals) - min(vals)) / m * 100.0 if m > 0 else 0.0


def source_text(c, r):
    timing = ("CUDA graph of the SDPA call replayed between CUDA events (no host overhead)"
              if r.get("timing") == "cuda_graph" else "CUDA events around the SDPA call only")
    be = {"flash": "PyTorch SDPA FLASH_ATTENTION backend",
          "cudnn": "PyTorch SDPA CUDNN_ATTENTION backend"}[c["backend"]]
    gqa = ""
    if c["heads_kv"] != c["heads"]:
        gqa = ("; GQA via enable_gqa=True" if r["gqa_mode"] == "native"
               else "; GQA via K/V expanded to heads (repeat_interleave before timing)")
    return (f"{be} (torch {r.get('torch', '?')}); forward only, no grad; "
            f"bshd tensors passed as transpose(1,2){gqa}; random inputs; "
            f"{timing}; L2 flushed (256 MiB zero_) "
            f"before each rep; median of {r['reps']} reps x {r['passes']} passes{r.get('settled', '')}")


def write_csv(path, rows):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, quoting=csv.QUOTE_MINIMAL)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in FIELDS})
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def gpu_key(device_name):
    """The `gpu` column for a device name: h100 or h200 (tgsim's presets), else unknown."""
    for key in ("h100", "h200"):
        if key in device_name.lower():
            return key
    return "unknown"


def aggregate_rows(cases, results, torch_version, gpu):
    rows = []
    for c in cases:
        r = results.get(key_of(c))
        if not r or not r["pass_medians"]:
            continue
        pm = r["pass_medians"]
        t = statistics.median(pm)
        rr = dict(r, passes=len(pm), torch=torch_version)
        rows.append(dict(
            op="attention", gpu=gpu, dtype=c["dtype"], batch=c["batch"],
            heads=c["heads"], heads_kv=c["heads_kv"], seq_q=c["seq_q"],
            seq_kv=c["seq_kv"], head_dim=c["head_dim"], causal=c["causal"],
            # is_causal=True in PyTorch's SDPA aligns the mask to the top left (CausalBias)
            causal_align="top_left" if c["causal"] else "",
            kernel=r["kernel"], time_us=f"{t:.3f}", source=source_text(c, rr),
            backend=c["backend"], spread_pct=f"{pct_spread(pm):.2f}",
            tflops=f"{flops(c) / (t * 1e-6) / 1e12:.2f}", reps=r["reps"],
            passes=len(pm), case_set=c["set"], gqa_mode=r["gqa_mode"],
            pass_us=";".join(f"{x:.3f}" for x in pm), timing=r.get("timing", "eager"),
            kernel_span_us=r.get("kernel_span_us", ""), settle_ms=r.get("settle_ms", 0)))
    return rows


def write_skipped(path, skipped):
    """The cases skipped so far (key_of tuple -> reason), one row each."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["set", "backend", "dtype", "batch", "heads", "heads_kv", "seq_q",
                    "seq_kv", "head_dim", "causal", "reason"])
        for kk, why in skipped.items():
            w.writerow(list(kk) + [why])
