#!/usr/bin/env bash
# Builds only the calib_tma target of tools/bench (Release, in /tmp) and runs it on the
# local GPU. Meant for the lent H200 (device tool): `bash tools/bench/run_tma.sh`; results
# go to $OUT (default /tmp/tgsim_bench_out). `run_tma.sh PREFIX [NAME.csv]` runs only the variants
# whose name starts with PREFIX into $OUT/NAME.csv (e.g. contig_l2_share calibration_tma_l2_share.csv).
# Output:
#   calibration_tma.csv  variant,ctas,stages,box_rows,box_bytes,bytes_in_flight_per_sm,
#                        gbps_total,gbps_per_sm,time_us,method (see calib_tma.cu)
#   tma_log.txt          everything printed (environment, build, checks, every row, tables)
# About 1 minute of build and well under a minute of measurement; each step has its own
# time limit. Never changes GPU settings.
set -u
OUT=${OUT:-/tmp/tgsim_bench_out}
mkdir -p "$OUT"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_tma_build}
exec > >(tee -a "$OUT/tma_log.txt") 2>&1
T0=$SECONDS
export PATH=/usr/local/cuda/bin:$PATH

step() {  # step NAME LIMIT CMD...
  local name=$1 t=$2; shift 2
  echo "### $name (limit ${t}s, t=$((SECONDS - T0))s)"
  local s0=$SECONDS
  timeout -k 5 "$t" "$@"
  local rc=$?
  echo "### $name: rc=$rc in $((SECONDS - s0))s"
  return $rc
}

echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  host: $(uname -r)"
nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu,pstate,persistence_mode,mig.mode.current --format=csv
nvcc --version | tail -2
cmake --version | head -1

GEN=""
command -v ninja >/dev/null && GEN="-G Ninja"
step configure 120 cmake -S "$HERE" -B "$BUILD" $GEN -DCMAKE_BUILD_TYPE=Release >/dev/null || exit 1
step build 180 cmake --build "$BUILD" --target calib_tma -j 16 || exit 1
echo "== SASS check: copy-engine instructions in calib_tma"
cuobjdump --dump-sass "$BUILD/calib_tma" 2>&1 | grep -oE "UTMALDG[.A-Z0-9_]*|UBLKCP[.A-Z0-9_]*|UTMAPF[.A-Z0-9_]*|SYNCS[.A-Z0-9_]*" | sort | uniq -c

ONLY=${1:-}
CSV=${2:-calibration_tma.csv}
step calib_tma 150 "$BUILD/calib_tma" "$OUT/$CSV" $ONLY
rc=$?
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv
ls -l "$OUT"
echo "### total $((SECONDS - T0))s (calib_tma rc=$rc)"
exit $rc
