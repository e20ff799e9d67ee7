#!/usr/bin/env bash
# Attention-forward timings through PyTorch SDPA (flash and cuDNN backends) on the
# local GPU. Meant for the lent H200 (device tool): `bash tools/bench/run_attention.sh`
# [--quick]; results go to $OUT (default /tmp/tgsim_attention_out), plain files:
#   attention.csv           docs/measurements.md rows (op=attention) + extra columns
#   attention_passes.csv    per-pass medians of every case
#   attention_skipped.csv   cases a backend refused (with the reason) or over 40 GiB
#   smi_attention.csv       nvidia-smi clocks/power every 100 ms during the sweep
#   env.txt                 nvidia-smi, driver, CUDA, torch, cuDNN versions
#   log.txt                 everything printed (correctness checks, per-case times)
# The script runs under `timeout` (ATTN_TIMEOUT_S, default 360 s) with an internal
# budget (ATTN_BUDGET_S, default 300 s) after which it stops starting passes/cases;
# attention.csv is rewritten after every pass. Never changes GPU settings.
set -u
OUT=${OUT:-/tmp/tgsim_attention_out}
mkdir -p "$OUT"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TLIM=${ATTN_TIMEOUT_S:-360}
BUDGET=${ATTN_BUDGET_S:-300}
exec > >(tee -a "$OUT/log.txt") 2>&1
export PYTHONUNBUFFERED=1
export NCCL_NVLS_ENABLE=0
T0=$SECONDS
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -a)"
  nvidia-smi
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.draw,power.limit,enforced.power.limit,temperature.gpu,pstate,persistence_mode,compute_mode,mig.mode.current --format=csv
  echo "python: $(command -v python3) $(python3 --version 2>&1)"
  python3 - <<'PY'
import torch
print("torch", torch.__version__, "git", torch.version.git_version)
print("torch CUDA", torch.version.cuda, "cuDNN", torch.backends.cudnn.version())
print("device", torch.cuda.get_device_name(), torch.cuda.get_device_capability())
print(torch.cuda.get_device_properties(0))
for n in ("flash_sdp_enabled", "cudnn_sdp_enabled", "mem_efficient_sdp_enabled", "math_sdp_enabled"):
    print(n, getattr(torch.backends.cuda, n)())
PY
  python3 -m pip list 2>/dev/null | grep -i -E "^(torch|triton|nvidia-cudnn|nvidia-cuda-runtime|nvidia-cublas) "
  nvcc --version 2>/dev/null | tail -2
} > "$OUT/env.txt" 2>&1
grep -E "Driver Version|^torch|cuDNN" "$OUT/env.txt"

nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -lms 100 > "$OUT/smi_attention.csv" 2>/dev/null &
SMI_PID=$!
echo "### attention_capture (timeout ${TLIM}s, budget ${BUDGET}s)"
timeout -k 5 "$TLIM" python3 "$HERE/attention_capture.py" "$OUT" --budget-s "$BUDGET" "$@"
echo "### attention_capture rc=$? in $((SECONDS - T0))s"
kill "$SMI_PID" 2>/dev/null; wait "$SMI_PID" 2>/dev/null

python3 - "$OUT" <<'PY' || echo "(summary failed)"
import csv, sys, os, collections
out = sys.argv[1]
p = os.path.join(out, "attention.csv")
if not os.path.exists(p):
    sys.exit("no attention.csv")
rows = list(csv.DictReader(open(p)))
print("rows:", len(rows), dict(collections.Counter((r["case_set"], r["backend"], r["dtype"]) for r in rows)))
sp = sorted(float(r["spread_pct"]) for r in rows)
if sp: print(f"spread_pct median {sp[len(sp)//2]:.2f} max {sp[-1]:.2f}")
g = collections.defaultdict(list)
for r in rows:
    g[(r["case_set"], r["backend"], r["dtype"], r["head_dim"], r["causal"])].append(float(r["tflops"]))
for k, v in sorted(g.items()):
    print(k, f"TFLOP/s {min(v):.0f}-{max(v):.0f}")
k = collections.Counter(n for r in rows for n in r["kernel"].split(";") if n)
print("distinct kernels:", len(k))
for n, c in k.most_common(): print(f"  {c:4d} {n[:220]}")
sk = os.path.join(out, "attention_skipped.csv")
if os.path.exists(sk):
    s = list(csv.DictReader(open(sk)))
    print("skipped:", len(s))
    for r in s[:40]: print("  ", r["set"], r["backend"], r["batch"], r["heads"], r["heads_kv"], r["seq_q"], r["seq_kv"], r["head_dim"], r["causal"], r["reason"][:200])
PY
ls -l "$OUT"
echo "### total $((SECONDS - T0))s"
