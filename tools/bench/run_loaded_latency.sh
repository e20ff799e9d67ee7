#!/usr/bin/env bash
# Builds calib_loaded_latency (tools/bench, Release, in /tmp) and measures on the local GPU how
# an HBM miss's latency grows with the HBM read rate other SMs draw: docs/model.md,
# hbm.loaded_latency. Never changes GPU settings.
#   OUT=... tools/bench/run_loaded_latency.sh
# Output ($OUT, default /tmp/tgsim_bench_out): calibration_loaded_latency.csv; environment and
# rows in log.txt (committed as traces/h200/loaded_latency_log.txt).
source "$(dirname "$0")/run_common.sh"
bench_begin /tmp/tgsim_bench_out
bench_env
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_loaded_build}
bench_build "$BUILD" calib_loaded_latency
timeout 240 "$BUILD/calib_loaded_latency" "$OUT/calibration_loaded_latency.csv"
echo "rc=$?"
