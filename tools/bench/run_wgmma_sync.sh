#!/usr/bin/env bash
# Small-tile wgmma cost and synchronisation latencies (meant for the lent H200:
# `bash tools/bench/run_wgmma_sync.sh [nsweep] [sync] [ring] [tf32]`, default all four); results in $OUT
# (default /tmp/tgsim_wgmma_sync_out):
#   calibration_wgmma_n.csv  calib_mma nsweep: cycles per K step (4 x wgmma m64nNk16 bf16, one
#                            commit group) for N = 8 ... 256, 1 and 2 warpgroups, wait_group 1 / 0
#   calibration_sync.csv     calib_sync: mbarrier / named-barrier / cluster-peer one-way latencies,
#                            __syncthreads
#   calibration_wgmma_ring.csv  calib_mma ring: the same K steps through a 4-stage mbarrier ring
#   calibration_wgmma_tf32.csv  calib_mma tf32: K steps of 4 x wgmma m64nNk8 tf32, N = 64, 128, 256
#   env.txt, log.txt         versions; everything printed (with the SASS check of calib_mma)
# Builds calib_mma and calib_sync (tools/bench, Release, in /tmp). Never changes GPU settings.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/run_common.sh"
bench_begin /tmp/tgsim_wgmma_sync_out
bench_env
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_wgmma_sync_build}
bench_build "$BUILD" calib_mma calib_sync
echo "== SASS of the N-sweep kernels (HGMMA shapes)"
cuobjdump --dump-sass "$BUILD/calib_mma" 2>/dev/null | grep -oE "HGMMA\.64x[0-9]+x(16|8)[A-Za-z0-9_.]*" | sort | uniq -c
STEPS=${*:-nsweep sync ring tf32}
for step in $STEPS; do
  case "$step" in
    nsweep) echo "== calib_mma nsweep"; timeout 120 "$BUILD/calib_mma" "$OUT/calibration_wgmma_n.csv" nsweep ;;
    sync) echo "== calib_sync"; timeout 60 "$BUILD/calib_sync" "$OUT/calibration_sync.csv" ;;
    ring) echo "== calib_mma ring"; timeout 120 "$BUILD/calib_mma" "$OUT/calibration_wgmma_ring.csv" ring ;;
    tf32) echo "== calib_mma tf32"; timeout 120 "$BUILD/calib_mma" "$OUT/calibration_wgmma_tf32.csv" tf32 ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
  echo "rc=$?"
done
ls -l "$OUT"
