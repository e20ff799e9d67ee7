#!/usr/bin/env bash
# Builds calib_mma (tools/bench, Release, in /tmp) and measures the wait behind a wgmma commit
# group on the local GPU (calib_mma ... wait): docs/model.md, tensor.wgmma_wait. Never changes
# GPU settings.
#   OUT=... tools/bench/run_wgmma_wait.sh
# Output ($OUT, default /tmp/wgmma_wait): calibration_wgmma_wait.csv (quantity,value,unit,method),
# and in log.txt the SASS of one wait kernel's loop (HGMMA / WARPGROUP instructions).
source "$(dirname "$0")/run_common.sh"
bench_begin /tmp/wgmma_wait
bench_env
BUILD=/tmp/tgsim_bench_wgmma_wait
bench_build "$BUILD" calib_mma
cuobjdump --dump-sass "$BUILD/calib_mma" 2>/dev/null |
  awk '/Function : _Z17wgmma_wait_kernelILi4ELi1EEviPxPf/{p=1;next} /Function :/{p=0} p' |
  grep -E "HGMMA|WARPGROUP|BRA|BAR" | head -20
timeout 120 "$BUILD/calib_mma" "$OUT/calibration_wgmma_wait.csv" wait || exit 1
