#!/usr/bin/env bash
# Builds only calib_fill (tools/bench, Release, in /tmp) and runs it on the local GPU: what a
# co-resident CTA's cp.async copies cost ldmatrix / mma.sync work on the same SM. Meant for the lent H200:
# `bash tools/bench/run_fill.sh`; results in $OUT (default /tmp/tgsim_bench_out):
#   calibration_fill.csv  quantity,value,unit,method rows (see calib_fill.cu)
#   fill_log.txt          everything printed (environment, build, SASS check, rows)
# Never changes GPU settings.
set -u
OUT=${OUT:-/tmp/tgsim_bench_out}
mkdir -p "$OUT"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_fill_build}
exec > >(tee -a "$OUT/fill_log.txt") 2>&1
export PATH=/usr/local/cuda/bin:$PATH
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv
GEN=""
command -v ninja >/dev/null && GEN="-G Ninja"
timeout 120 cmake -S "$HERE" -B "$BUILD" $GEN -DCMAKE_BUILD_TYPE=Release >/dev/null || exit 1
timeout 240 cmake --build "$BUILD" --target calib_fill -j 16 || exit 1
echo "== SASS check"
cuobjdump --dump-sass "$BUILD/calib_fill" 2>&1 | grep -oE "HMMA[.A-Z0-9]*|LDSM[.A-Z0-9]*|LDGSTS[.A-Z0-9]*" | sort | uniq -c
timeout 180 "$BUILD/calib_fill" "$OUT/calibration_fill.csv"
echo "rc=$?"
