#!/usr/bin/env bash
# Builds tools/bench (Release, in /tmp) and runs every measurement on the local GPU.
# Meant for the lent H200 (device tool): `bash tools/bench/run_h200.sh`; results go to
# $OUT (default /tmp/tgsim_bench_out), at most 8 plain files:
#   gemm.csv         gemm_sweep rows (docs/measurements.md schema + extra columns)
#   calibration.csv  quantity,value,unit,method rows from calib_launch/mma/mem/clock
#   clock.csv        calib_clock time series (NVML samples and per-chunk throughput)
#   smi_sweep.csv    nvidia-smi clocks/power every 100 ms during gemm_sweep
#   env.txt          nvidia-smi, toolkit and library versions, SASS check
#   log.txt          everything printed
# Each program runs under its own time limit inside one overall budget (BENCH_BUDGET_S,
# default 540 s), so one failure or hang does not lose the others' results; the programs
# write their CSVs row by row (gemm_sweep after every pass). Never changes GPU settings.
# BENCH_CALIB_ONLY=1: build and run only calib_launch, calib_mma, calib_mem and calib_clock (the
# calibration of another GPU's preset, e.g. a lent H100, in about 3 minutes).
set -u
OUT=${OUT:-/tmp/tgsim_bench_out}
mkdir -p "$OUT"
BUDGET=${BENCH_BUDGET_S:-540}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_build}
exec > >(tee -a "$OUT/log.txt") 2>&1
T0=$SECONDS
export PATH=/usr/local/cuda/bin:$PATH
# NVLink multicast stays off (workplace rule for multi-GPU kinds; harmless here)
export NCCL_NVLS_ENABLE=0

left() { echo $((BUDGET - (SECONDS - T0))); }
# run_step NAME CAP_SECONDS CMD... : runs CMD with timeout min(CAP, budget left - 15)
run_step() {
  local name=$1 cap=$2; shift 2
  local t=$(( $(left) - 15 )); (( t > cap )) && t=$cap
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
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.draw,power.limit,enforced.power.limit,temperature.gpu,pstate,persistence_mode,compute_mode,mig.mode.current --format=csv
  nvidia-smi -q -d CLOCK,POWER,PERFORMANCE
  nvcc --version
  cmake --version | head -1
  ls -l /usr/local/cuda/lib64/libcublasLt.so* /usr/local/cuda/lib64/libcupti.so* 2>/dev/null
  ls -d /usr/local/cuda/extras/CUPTI 2>/dev/null
} > "$OUT/env.txt" 2>&1
grep -E "Driver Version|NVIDIA H|MiB" "$OUT/env.txt" | head -5

GEN=""
command -v ninja >/dev/null && GEN="-G Ninja"
run_step configure 120 cmake -S "$HERE" -B "$BUILD" $GEN -DCMAKE_BUILD_TYPE=Release
if [ -n "$GEN" ]; then KEEP="-k 0"; else KEEP="-k"; fi
if [ "${BENCH_CALIB_ONLY:-0}" = 1 ]; then
  run_step build 240 cmake --build "$BUILD" -j 16 --target calib_launch calib_mma calib_mem calib_clock -- $KEEP
else
  run_step build 240 cmake --build "$BUILD" -j 16 -- $KEEP
fi
ls -l "$BUILD"/gemm_sweep "$BUILD"/calib_* 2>/dev/null | grep -v '\.' || true

{
  echo "== libraries linked"
  ldd "$BUILD/gemm_sweep" 2>/dev/null | grep -E "cublas|cupti|cudart"
  echo "== SASS check (cuobjdump --dump-sass calib_mma): instruction counts"
  cuobjdump --dump-sass "$BUILD/calib_mma" 2>&1 | grep -oE "(HGMMA|QGMMA|HMMA)\.[A-Za-z0-9_.]*" | sort | uniq -c
  echo "== SASS per wgmma kernel"
  cuobjdump --dump-sass "$BUILD/calib_mma" 2>&1 | awk '/Function :/{f=$3} /HGMMA|QGMMA|HMMA/{c[f]++} END{for(k in c) print c[k], k}'
} >> "$OUT/env.txt" 2>&1
tail -n 20 "$OUT/env.txt"

CAL="$OUT/calibration.csv"
[ -x "$BUILD/calib_launch" ] && run_step calib_launch 60 "$BUILD/calib_launch" "$CAL"
[ -x "$BUILD/calib_mma" ] && run_step calib_mma 90 "$BUILD/calib_mma" "$CAL"
[ -x "$BUILD/calib_mem" ] && run_step calib_mem 120 "$BUILD/calib_mem" "$CAL"
[ -x "$BUILD/calib_clock" ] && run_step calib_clock 90 "$BUILD/calib_clock" "$CAL" "$OUT/clock.csv"
if [ -x "$BUILD/gemm_sweep" ] && [ "${BENCH_CALIB_ONLY:-0}" != 1 ]; then
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
    --format=csv -lms 100 > "$OUT/smi_sweep.csv" 2>/dev/null &
  SMI_PID=$!
  run_step gemm_sweep 330 "$BUILD/gemm_sweep" "$OUT/gemm.csv"
  kill "$SMI_PID" 2>/dev/null; wait "$SMI_PID" 2>/dev/null
fi

echo "### summary (t=$((SECONDS - T0))s)"
python3 - "$OUT" <<'EOF' || echo "(python summary failed)"
import csv, sys, os, collections
out = sys.argv[1]
p = os.path.join(out, "calibration.csv")
if os.path.exists(p):
    print(f"{'quantity':46s} {'value':>12s} unit")
    for r in csv.DictReader(open(p)):
        print(f"{r['quantity']:46s} {r['value']:>12s} {r['unit']}")
p = os.path.join(out, "gemm.csv")
if os.path.exists(p):
    rows = list(csv.DictReader(open(p)))
    print("gemm rows:", len(rows), dict(collections.Counter(r["dtype"] for r in rows)))
    sp = sorted(float(r["spread_pct"]) for r in rows if r["spread_pct"])
    if sp: print(f"spread_pct median {sp[len(sp)//2]:.2f} max {sp[-1]:.2f}")
    k = collections.Counter(n for r in rows for n in r["kernel"].split(";") if n)
    print("distinct kernels:", len(k))
    for n, c in k.most_common(): print(f"  {c:4d} {n[:150]}")
    best = {}
    for r in rows:
        best[r["dtype"]] = max(best.get(r["dtype"], 0), float(r["tflops"] or 0))
    print("max TFLOP/s by dtype:", {d: round(v) for d, v in best.items()})
EOF
ls -l "$OUT"
echo "### total $((SECONDS - T0))s"
