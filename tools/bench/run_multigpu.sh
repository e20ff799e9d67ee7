#!/usr/bin/env bash
# Builds the multi-GPU programs of tools/bench (calib_nvlink, sm_split, nccl_bench; Release,
# in /tmp) and runs them on the local GPUs. Meant for the lent 2 x H200 (device tool, kind
# nvidia-h200-x2): `bash tools/bench/run_multigpu.sh`; results go to $OUT (default
# /tmp/tgsim_bench_out), at most 8 plain files:
#   calibration_nvlink.csv  calib_nvlink rows + sm_split's mma_loop rows (columns: multigpu.h)
#   sm_split.csv            sm_split rows (docs/measurements.md schema + extra columns)
#   nccl.csv                nccl_bench all_to_all / all_reduce rows (schema + extras)
#   smi.csv                 nvidia-smi clocks/power of every GPU every 200 ms during the runs
#   env.txt                 nvidia-smi (+ topo -m, nvlink -s), versions, NCCL location, SASS check
#   log.txt                 everything printed
# BENCH_QUICK=1: tiny sweeps (smoke test). Each program runs under its own time limit inside
# one overall budget (BENCH_BUDGET_S, default 420 s). NVLink multicast stays off
# (NCCL_NVLS_ENABLE=0, workplace rule). Never changes GPU settings.
set -u
OUT=${OUT:-/tmp/tgsim_bench_out}
mkdir -p "$OUT"
BUDGET=${BENCH_BUDGET_S:-420}
QUICK=${BENCH_QUICK:-0}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_mgpu_build}
exec > >(tee -a "$OUT/log.txt") 2>&1
T0=$SECONDS
export PATH=/usr/local/cuda/bin:$PATH
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
Q=""
[ "$QUICK" = 1 ] && Q="--quick"

left() { echo $((BUDGET - (SECONDS - T0))); }
# run_step NAME CAP_SECONDS CMD... : runs CMD with timeout min(CAP, budget left - 10)
run_step() {
  local name=$1 cap=$2; shift 2
  local t=$(( $(left) - 10 )); (( t > cap )) && t=$cap
  if (( t < 5 )); then echo "### $name: SKIPPED (budget spent)"; return 1; fi
  echo "### $name (limit ${t}s, t=$((SECONDS - T0))s)"
  local s0=$SECONDS
  timeout -k 5 "$t" "$@"
  local rc=$?
  echo "### $name: rc=$rc in $((SECONDS - s0))s"
  return $rc
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -a)"
  nvidia-smi
  nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu,pstate,persistence_mode,compute_mode,mig.mode.current --format=csv
  echo "== nvidia-smi topo -m"; nvidia-smi topo -m
  echo "== nvidia-smi topo -p2p rw"; nvidia-smi topo -p2p rw 2>&1 | head -20
  echo "== nvidia-smi nvlink -s"; timeout 20 nvidia-smi nvlink -s 2>&1 | head -60
  echo "== nvidia-smi nvlink -c (GPU 0)"; timeout 20 nvidia-smi nvlink -c -i 0 2>&1 | head -30
  echo "== nvidia-smi -q (fabric)"; nvidia-smi -q 2>&1 | grep -A4 -i "fabric" | head -20
  nvcc --version | tail -2
  cmake --version | head -1
  echo "== NCCL files"
  timeout 30 find /usr /opt -name 'nccl.h' -o -name 'libnccl.so*' 2>/dev/null | head -20
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), "gpus", torch.cuda.device_count())' 2>&1 | tail -1
} > "$OUT/env.txt" 2>&1
grep -E "Driver Version|NVIDIA H|GPU0|GPU1|torch|nccl" "$OUT/env.txt" | head -20

nvidia-smi --query-gpu=index,timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu,clocks_event_reasons.active \
  --format=csv -lms 200 > "$OUT/smi.csv" 2>/dev/null &
SMI_PID=$!

GEN=""
command -v ninja >/dev/null && GEN="-G Ninja"
run_step configure 90 cmake -S "$HERE" -B "$BUILD" $GEN -DCMAKE_BUILD_TYPE=Release
TARGETS="calib_nvlink sm_split"
grep -q "^TGSIM_NCCL_LIB:FILEPATH=/" "$BUILD/CMakeCache.txt" 2>/dev/null && TARGETS="$TARGETS nccl_bench"
run_step build 180 cmake --build "$BUILD" -j 16 --target $TARGETS
{
  echo "== libraries linked (nccl_bench)"
  ldd "$BUILD/nccl_bench" 2>/dev/null | grep -E "nccl|cupti|cudart"
  echo "== SASS check: HMMA per sm_split kernel, remote-capable 128-bit stores/loads"
  cuobjdump --dump-sass "$BUILD/sm_split" 2>&1 | awk '/Function :/{f=$3} /HMMA/{c[f]++} END{for(k in c) print c[k], k}'
  cuobjdump --dump-sass "$BUILD/sm_split" 2>&1 | grep -oE "(LDG|STG)\.E\.128[.A-Z0-9_]*" | sort | uniq -c
} >> "$OUT/env.txt" 2>&1
tail -n 8 "$OUT/env.txt"

CAL="$OUT/calibration_nvlink.csv"
if [ "$QUICK" = 1 ]; then CAPS=(40 40 30); else CAPS=(120 200 90); fi
[ -x "$BUILD/calib_nvlink" ] && run_step calib_nvlink "${CAPS[0]}" "$BUILD/calib_nvlink" "$CAL" $Q
[ -x "$BUILD/sm_split" ] && run_step sm_split "${CAPS[1]}" "$BUILD/sm_split" "$OUT/sm_split.csv" "$CAL" $Q
if [ -x "$BUILD/nccl_bench" ]; then
  NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,ENV run_step nccl_bench "${CAPS[2]}" "$BUILD/nccl_bench" "$OUT/nccl.csv" $Q
else
  echo "### nccl_bench not built (NCCL not found)"
fi
kill "$SMI_PID" 2>/dev/null; wait "$SMI_PID" 2>/dev/null

echo "### summary (t=$((SECONDS - T0))s)"
python3 - "$OUT" <<'EOF' || echo "(python summary failed)"
import csv, sys, os
out = sys.argv[1]
p = os.path.join(out, "calibration_nvlink.csv")
if os.path.exists(p):
    rows = list(csv.DictReader(open(p)))
    print("calibration_nvlink rows:", len(rows))
    for r in rows:
        if r["test"] in ("push_vs_ctas", "pull_vs_ctas") and r["threads"] != "512": continue
        if r["test"] == "size_sweep" and int(r["bytes"]) not in (4096, 1 << 20, 64 << 20, 1 << 30): continue
        print(f"{r['test']:12s} {r['direction']:9s} {r['method'][:34]:34s} ctas={r['ctas']:>4s} thr={r['threads']:>4s} "
              f"u={r['unroll']:>2s} ch={r['chains']:>2s} bytes={r['bytes']:>10s} t={r['time_us']:>10s} gbps={r['gbps']:>7s} "
              f"{r['value']:>9s} {r['unit']}")
p = os.path.join(out, "sm_split.csv")
if os.path.exists(p):
    rows = list(csv.DictReader(open(p)))
    print("sm_split rows:", len(rows), "checks failed:", sum(r["check"] != "pass" for r in rows))
p = os.path.join(out, "nccl.csv")
if os.path.exists(p):
    rows = list(csv.DictReader(open(p)))
    print("nccl rows:", len(rows))
EOF
ls -l "$OUT"
echo "### total $((SECONDS - T0))s"
