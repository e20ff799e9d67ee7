#!/usr/bin/env bash
# Probes of the GEMM model's remaining gaps (meant for the lent H200:
# `bash tools/bench/run_gemm_probe.sh`); results in $OUT (default /tmp/tgsim_gemm_probe_out):
#   calibration_ldgsts.csv   calib_ldgsts: shared-memory pipe cycles of cp.async / st.shared by
#                            width and bank pattern (the narrow-alignment CUTLASS fallbacks)
#   small_gemm_kscan.csv     small_gemm_capture.py --kscan: event and CUPTI kernel time of small
#                            torch GEMMs over K (the per-kernel fixed cost), flushed and warm L2
#   gemm_traffic_ncu_raw.csv run_ncu.sh gemm_traffic: DRAM/L2 bytes of nvjet `h`-raster kernels
#   env.txt, log.txt         versions; everything printed
# Builds only calib_ldgsts (tools/bench, Release, in /tmp). Never changes GPU settings.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/run_common.sh"
bench_begin /tmp/tgsim_gemm_probe_out
bench_env
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_probe_build}
bench_build "$BUILD" calib_ldgsts
echo "== calib_ldgsts"
timeout 120 "$BUILD/calib_ldgsts" "$OUT/calibration_ldgsts.csv"
echo "rc=$?"
echo "== small_gemm_capture --kscan"
timeout 200 python3 "$HERE/small_gemm_capture.py" "$OUT" --kscan
echo "rc=$?"
echo "== ncu gemm_traffic"
OUT=$OUT timeout 320 bash "$HERE/run_ncu.sh" gemm_traffic
echo "rc=$?"
ls -l "$OUT"
