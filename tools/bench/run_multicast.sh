#!/usr/bin/env bash
# TMA multicast within clusters, and Nsight Compute profiles of GEMMs that multicast narrow tiles
# (meant for the lent H200: `OUT=... bash tools/bench/run_multicast.sh [share]`); results in $OUT
# (default /tmp/tgsim_multicast_out):
#   calibration_tma_multicast.csv   calib_tma_multicast (columns in calib_tma_multicast.cu)
#   gemm_cluster_ncu_*              run_ncu.sh gemm_cluster (skip with NO_NCU=1)
#   env.txt, log.txt                versions; everything printed
# With `share`: calib_tma_multicast share (the rings without multicast, each CTA loading the tiles
# its cluster or group shares) -> calibration_tma_share_cluster.csv, and the same program under
# Nsight Compute with the L2 request counters only -> tma_share_cluster_ncu_raw.csv.gz (one row per
# launch, in case order: 2 warm-up + 9 timed launches per case after the checks) and
# calibration_tma_share_cluster_ncu.csv (the profiled run's own rates).
# Builds calib_tma_multicast (tools/bench, Release, in /tmp). Never changes GPU settings.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/run_common.sh"
bench_begin /tmp/tgsim_multicast_out
bench_env
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_multicast_build}
bench_build "$BUILD" calib_tma_multicast
if [ "${1:-}" = share ]; then
  echo "== calib_tma_multicast share"
  timeout 120 "$BUILD/calib_tma_multicast" "$OUT/calibration_tma_share_cluster.csv" share
  echo "rc=$?"
  NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  timeout 400 "$NCU" --clock-control none --cache-control none --kernel-name multicast_kernel \
    --metrics lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,gpu__time_duration.sum,launch__grid_size,launch__cluster_dim_x \
    --csv --page raw "$BUILD/calib_tma_multicast" "$OUT/calibration_tma_share_cluster_ncu.csv" share \
    > "$OUT/tma_share_cluster_ncu_raw.csv" || echo "ncu exited $?"
  cut -c1-300 "$OUT/tma_share_cluster_ncu_raw.csv" | head -6
  gzip -f "$OUT/tma_share_cluster_ncu_raw.csv"
  ls -l "$OUT"
  exit 0
fi
echo "== calib_tma_multicast"
timeout 120 "$BUILD/calib_tma_multicast" "$OUT/calibration_tma_multicast.csv"
echo "rc=$?"
if [ "${NO_NCU:-0}" != 1 ]; then
  echo "== run_ncu.sh gemm_cluster"
  OUT="$OUT" NCU_TIMEOUT_S=${NCU_TIMEOUT_S:-300} bash "$HERE/run_ncu.sh" gemm_cluster
  rm -f "$OUT"/log.txt.ncu 2>/dev/null
fi
ls -l "$OUT"
