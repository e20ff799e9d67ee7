#!/usr/bin/env bash
# Builds calib_icache (tools/bench, Release, in /tmp) and measures what straight-line code costs
# on its first run (instruction fetch) by code size, warps, CTAs per SM and L2 state: for the
# cold-code costs of short kernels measured after an L2 flush (docs/validation.md). Meant for the
# lent H200: `OUT=... bash tools/bench/run_icache.sh [pair]`; about 30 s (pair: only the rows of two
# instruction streams per sub-partition, -> calibration_icache_pair.csv; capacity: 24-56 KiB of code
# in one or two streams, -> calibration_icache_capacity.csv; latency: bodies of 1, 2 or 4 dependent
# chains, cached and not, one or two streams per sub-partition, -> calibration_icache_latency.csv).
# Never changes GPU settings.
# Output ($OUT, default /tmp/tgsim_icache_out): calibration_icache.csv, calibration_icache_sass.csv
# (static SASS opcode counts per kernel, sass_histogram.py), env.txt, log.txt.
source "$(dirname "$0")/run_common.sh"
bench_begin /tmp/tgsim_icache_out
bench_env
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_icache}
bench_build "$BUILD" calib_icache
cuobjdump --dump-sass "$BUILD/calib_icache" 2>/dev/null | python3 "$HERE/sass_histogram.py" _kernelILi > "$OUT/calibration_icache_sass.csv"
CSV=calibration_icache.csv
[ "${1:-}" = pair ] && CSV=calibration_icache_pair.csv
[ "${1:-}" = capacity ] && CSV=calibration_icache_capacity.csv
[ "${1:-}" = latency ] && CSV=calibration_icache_latency.csv
timeout 200 "$BUILD/calib_icache" "$OUT/$CSV" $1
