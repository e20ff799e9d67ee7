#!/usr/bin/env bash
# The sustained-clock anchors of the power model on the local GPU (`bash tools/bench/run_clock.sh
# [phase,phase,...]`, default gemm_bf16,gemm_fp8,gemm_tf32: cuBLASLt 8192^3 back to back for 5 s
# each after 1.5 s idle). Results in $OUT (default /tmp/tgsim_clock_out): calibration_clock.csv
# (calib_clock's summary rows: clock, power, throughput over 0-50 ms, 50-250 ms, 250-1000 ms and
# steady), clock.csv (its NVML and CUDA-event time series), env.txt, log.txt. About 90 s with the
# build. Builds only calib_clock (tools/bench, Release, in /tmp). Never changes GPU settings.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/run_common.sh"
bench_begin /tmp/tgsim_clock_out
bench_env
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_clock_build}
bench_build "$BUILD" calib_clock
timeout 120 "$BUILD/calib_clock" "$OUT/calibration_clock.csv" "$OUT/clock.csv" "${1:-gemm_bf16,gemm_fp8,gemm_tf32}"
echo "rc=$?"
