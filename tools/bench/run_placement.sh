#!/usr/bin/env bash
# Builds calib_placement (tools/bench, Release, in /tmp) and records on the local GPU which GPC
# each CTA of a plain grid lands in (GPCs inferred from cluster launches): docs/model.md,
# Placement. Never changes GPU settings.
#   OUT=... tools/bench/run_placement.sh
# Output ($OUT, default /tmp/tgsim_placement): calibration_placement.csv, env.txt, log.txt.
source "$(dirname "$0")/run_common.sh"
bench_begin /tmp/tgsim_placement
bench_env
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_placement}
bench_build "$BUILD" calib_placement
timeout 60 "$BUILD/calib_placement" "$OUT/calibration_placement.csv"
echo "rc=$?"
