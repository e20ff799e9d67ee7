#!/usr/bin/env bash
# Builds calib_fill (tools/bench, Release, in /tmp) and measures on the local GPU what a
# co-resident CTA's cp.async (and TMA) copies cost ldmatrix / mma.sync / FFMA work on the same SM:
# docs/model.md, sm.cp_async_fill_stall_cycles. Never changes GPU settings.
#   OUT=... tools/bench/run_fill.sh
# Output ($OUT, default /tmp/tgsim_bench_out): calibration_fill.csv; environment, SASS check and
# rows in log.txt (committed as traces/h200/fill_log.txt).
source "$(dirname "$0")/run_common.sh"
bench_begin /tmp/tgsim_bench_out
bench_env
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_fill_build}
bench_build "$BUILD" calib_fill
echo "== SASS check"
cuobjdump --dump-sass "$BUILD/calib_fill" 2>&1 | grep -oE "HMMA[.A-Z0-9]*|LDSM[.A-Z0-9]*|LDGSTS[.A-Z0-9]*|UBLKCP[.A-Z0-9]*" | sort | uniq -c
timeout 180 "$BUILD/calib_fill" "$OUT/calibration_fill.csv"
echo "rc=$?"
