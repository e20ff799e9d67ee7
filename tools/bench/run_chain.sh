#!/usr/bin/env bash
# Builds calib_chain (tools/bench, Release, in /tmp) and measures dependent-instruction latencies
# on the local GPU (add, max, fma, ex2, shfl.bfly): docs/model.md, simt.latency and
# simt.shuffle_latency. Never changes GPU settings.
#   OUT=... tools/bench/run_chain.sh
# Output ($OUT, default /tmp/chain): calibration_chain.csv; the SASS of the chains in log.txt.
source "$(dirname "$0")/run_common.sh"
bench_begin /tmp/chain
bench_env
BUILD=/tmp/tgsim_bench_chain
bench_build "$BUILD" calib_chain
cuobjdump --dump-sass "$BUILD/calib_chain" 2>/dev/null | grep -oE "FADD|FMNMX|FFMA|MUFU\.EX2|SHFL\.BFLY" | sort | uniq -c
timeout 60 "$BUILD/calib_chain" "$OUT/calibration_chain.csv" || exit 1
