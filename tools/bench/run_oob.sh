#!/usr/bin/env bash
# What a wholly out-of-range TMA box costs (meant for the lent H200: `bash tools/bench/run_oob.sh`);
# results in $OUT (default /tmp/tgsim_oob_out):
#   calibration_tma_oob.csv  calib_tma variants tiled_oob (zero-filled boxes) and tiled_oobref (the
#                            same stream in range), 66 and 132 CTAs, 8/16 KiB boxes, 4/8 stages
#   calibration_tma_oobmix.csv  (`run_oob.sh mix`) calib_tma variants tiled_oobmix_k (k of 132
#                            CTAs in range, the others loading zero-filled boxes beside them) and
#                            tiled_oobmixref_k (the k CTAs alone), k = 33/66/99, 4/8 stages
#   env.txt, log.txt         versions; everything printed
# Builds only calib_tma (tools/bench, Release, in /tmp). Never changes GPU settings.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/run_common.sh"
bench_begin /tmp/tgsim_oob_out
bench_env
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_tma_build}
bench_build "$BUILD" calib_tma
if [ "${1:-}" = mix ]; then
  echo "== calib_tma tiled_oobmix"
  timeout 240 "$BUILD/calib_tma" "$OUT/calibration_tma_oobmix.csv" tiled_oobmix
else
  echo "== calib_tma tiled_oob"
  timeout 240 "$BUILD/calib_tma" "$OUT/calibration_tma_oob.csv" tiled_oob
fi
echo "rc=$?"
