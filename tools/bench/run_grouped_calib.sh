#!/usr/bin/env bash
# Grouped-GEMM calibration shapes on the local GPU (meant for the lent H200:
# `bash tools/bench/run_grouped_calib.sh`); results in $OUT (default /tmp/tgsim_grouped_calib_out):
#   grouped_gemm_calib.csv  torch._grouped_mm on the calibration shapes (grouped_gemm_capture.py --calib)
#   log.txt                 everything printed
# Never changes GPU settings.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/run_common.sh"
bench_begin /tmp/tgsim_grouped_calib_out
bench_env
timeout 240 python3 "$HERE/grouped_gemm_capture.py" "$OUT" --calib
echo "rc=$?"
