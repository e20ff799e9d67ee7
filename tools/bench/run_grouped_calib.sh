#!/usr/bin/env bash
# Grouped-GEMM calibration shapes on the local GPU (meant for the lent H200:
# `bash tools/bench/run_grouped_calib.sh`); results in $OUT (default /tmp/tgsim_grouped_calib_out):
#   grouped_gemm_calib.csv  torch._grouped_mm on the calibration shapes (grouped_gemm_capture.py --calib)
#   log.txt                 everything printed
# Never changes GPU settings.
set -u
OUT=${OUT:-/tmp/tgsim_grouped_calib_out}
mkdir -p "$OUT"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec > >(tee -a "$OUT/log.txt") 2>&1
export PYTHONUNBUFFERED=1
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv
timeout 240 python3 "$HERE/grouped_gemm_capture.py" "$OUT" --calib
echo "rc=$?"
