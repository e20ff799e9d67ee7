#!/usr/bin/env bash
# Calibration runs for profile replay and the tf32 clock, on the local GPU (meant for the lent
# H200: `bash tools/bench/run_replay_calib.sh`); results in $OUT (default /tmp/tgsim_replay_out):
#   elementwise.csv        PyTorch memory-bound kernel durations (tools/bench/elementwise_capture.py)
#   calibration_tf32.csv   steady clock/power/throughput of a back-to-back tf32 GEMM (calib_clock)
#   clock_tf32.csv         its NVML and CUDA-event time series
#   env.txt, log.txt       versions; everything printed
# Builds only calib_clock (tools/bench, Release, in /tmp). Never changes GPU settings.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/run_common.sh"
bench_begin /tmp/tgsim_replay_out
bench_env
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_clock_build}
bench_build "$BUILD" calib_clock
echo "== elementwise"
timeout 300 python3 "$HERE/elementwise_capture.py" "$OUT" --reps 15
echo "rc=$?"
echo "== calib_clock gemm_tf32"
timeout 120 "$BUILD/calib_clock" "$OUT/calibration_tf32.csv" "$OUT/clock_tf32.csv" gemm_tf32
echo "rc=$?"
