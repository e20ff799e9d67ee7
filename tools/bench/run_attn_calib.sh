#!/usr/bin/env bash
# Builds calib_attn (tools/bench, Release, in /tmp) and times attention consumer loops with their
# operands in shared memory (wgmma with P from registers, ping-pong; FlashAttention-2's mma.sync
# loop at 1 and 2 CTAs per SM): docs/attention.md. Never changes GPU settings.
#   OUT=... tools/bench/run_attn_calib.sh [mma|extra|held|fp32]   (mma: only the FlashAttention-2 loops;
#   extra: the wgmma loops with uniform-datapath or FP32 bookkeeping -> calibration_attn_extra.csv;
#   held: two-warpgroup ping-pong loops whose turns hold -> calibration_attn_held.csv; fp32: the
#   d=128 FlashAttention-2 loop with 128-384 more FFMA per thread and block -> calibration_attn_fp32.csv)
# Output ($OUT, default /tmp/attn_calib): calibration_attn.csv; calibration_attn_sass.csv (static
# SASS opcode counts per kernel, sass_histogram.py), log.txt.
source "$(dirname "$0")/run_common.sh"
bench_begin /tmp/attn_calib
bench_env
BUILD=/tmp/tgsim_bench_attn
bench_build "$BUILD" calib_attn
cuobjdump --dump-sass "$BUILD/calib_attn" 2>/dev/null | python3 "$HERE/sass_histogram.py" attn_ > "$OUT/calibration_attn_sass.csv"
wc -l "$OUT/calibration_attn_sass.csv"
CSV=calibration_attn.csv
[ "${1:-}" = extra ] && CSV=calibration_attn_extra.csv
[ "${1:-}" = held ] && CSV=calibration_attn_held.csv
[ "${1:-}" = fp32 ] && CSV=calibration_attn_fp32.csv
timeout 240 "$BUILD/calib_attn" "$OUT/$CSV" $1 || exit 1
