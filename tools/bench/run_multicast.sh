#!/usr/bin/env bash
# TMA multicast within clusters, and Nsight Compute profiles of GEMMs that multicast narrow tiles
# (meant for the lent H200: `OUT=... bash tools/bench/run_multicast.sh`); results in $OUT
# (default /tmp/tgsim_multicast_out):
#   calibration_tma_multicast.csv   calib_tma_multicast (columns in calib_tma_multicast.cu)
#   gemm_cluster_ncu_*              run_ncu.sh gemm_cluster (skip with NO_NCU=1)
#   env.txt, log.txt                versions; everything printed
# Builds calib_tma_multicast (tools/bench, Release, in /tmp). Never changes GPU settings.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/run_common.sh"
bench_begin /tmp/tgsim_multicast_out
bench_env
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_multicast_build}
bench_build "$BUILD" calib_tma_multicast
echo "== calib_tma_multicast"
timeout 120 "$BUILD/calib_tma_multicast" "$OUT/calibration_tma_multicast.csv"
echo "rc=$?"
if [ "${NO_NCU:-0}" != 1 ]; then
  echo "== run_ncu.sh gemm_cluster"
  OUT="$OUT" NCU_TIMEOUT_S=${NCU_TIMEOUT_S:-300} bash "$HERE/run_ncu.sh" gemm_cluster
  rm -f "$OUT"/log.txt.ncu 2>/dev/null
fi
ls -l "$OUT"
