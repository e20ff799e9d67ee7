#!/usr/bin/env bash
# TMA streams that mix L2 misses and hits per stage, and cyclic re-reading of 8-138 MB (meant for
# the lent H200: `OUT=... bash tools/bench/run_hitmiss.sh`); results in $OUT (default
# /tmp/tgsim_hitmiss_out):
#   calibration_tma_hitmiss.csv        calib_tma_hitmiss (columns in calib_tma_hitmiss.cu)
#   calibration_tma_hitmiss_probe.csv  calib_tma_hitmiss ... probe
#   env.txt, log.txt                   versions; everything printed
# Builds calib_tma_hitmiss (tools/bench, Release, in /tmp). Never changes GPU settings.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/run_common.sh"
bench_begin /tmp/tgsim_hitmiss_out
bench_env
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_hitmiss_build}
bench_build "$BUILD" calib_tma_hitmiss
echo "== calib_tma_hitmiss"
timeout 120 "$BUILD/calib_tma_hitmiss" "$OUT/calibration_tma_hitmiss.csv"
echo "rc=$?"
echo "== calib_tma_hitmiss probe"
timeout 60 "$BUILD/calib_tma_hitmiss" "$OUT/calibration_tma_hitmiss_probe.csv" probe
echo "rc=$?"
ls -l "$OUT"
