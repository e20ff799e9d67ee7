#!/usr/bin/env bash
# Two calibration runs on the local GPU (meant for the lent H200: `bash tools/bench/run_l2_small.sh`);
# results in $OUT (default /tmp/tgsim_l2_small_out):
#   calibration_tma_l2.csv  the contig_l2* variants of calib_tma: bulk-copy (TMA) bandwidth from L2
#   calibration_tma_tiny*.csv  the *_tiny variants: TMA kernels of 1-16 requests per CTA
#   small_gemm.csv          small cuBLAS GEMMs: CUDA-event time vs CUPTI kernel durations
#   log.txt                 everything printed
# Builds only calib_tma (tools/bench, Release, in /tmp). Never changes GPU settings.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/run_common.sh"
bench_begin /tmp/tgsim_l2_small_out
bench_env
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_tma_build}
bench_build "$BUILD" calib_tma
echo "== calib_tma contig_l2"
timeout 240 "$BUILD/calib_tma" "$OUT/calibration_tma_l2.csv" contig_l2
echo "rc=$?"
echo "== calib_tma tiny"
timeout 240 "$BUILD/calib_tma" "$OUT/calibration_tma_tiny.csv" tiled_tiny
timeout 240 "$BUILD/calib_tma" "$OUT/calibration_tma_tiny_contig.csv" contig_tiny
echo "rc=$?"
echo "== small_gemm_capture"
timeout 200 python3 "$HERE/small_gemm_capture.py" "$OUT"
echo "rc=$?"
