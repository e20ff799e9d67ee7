#!/usr/bin/env bash
# The operand feed of a 128x64-tile Hopper GEMM without its MMAs (calib_gemm_feed), beside the
# cuBLAS GEMMs of the same shapes (small_gemm_capture.py --feed): docs/validation.md, GEMM.
# Builds calib_gemm_feed (tools/bench, Release, in /tmp). Never changes GPU settings.
#   OUT=... tools/bench/run_gemm_feed.sh
# Output ($OUT, default /tmp/tgsim_gemm_feed): calibration_gemm_feed.csv, small_gemm_feed.csv,
# calibration_gemm_feed_ncu.csv + gemm_feed_ncu_raw.csv.gz (the K = 4096 flushed cases under Nsight
# Compute: DRAM bytes, L2 read sectors and hits; one row per launch: checks, then 2 + 3 per case),
# env.txt, log.txt.
source "$(dirname "$0")/run_common.sh"
bench_begin /tmp/tgsim_gemm_feed
bench_env
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_gemm_feed}
bench_build "$BUILD" calib_gemm_feed
echo "== calib_gemm_feed"
timeout 120 "$BUILD/calib_gemm_feed" "$OUT/calibration_gemm_feed.csv"
echo "rc=$?"
echo "== small_gemm_capture --feed"
timeout 300 python3 "$HERE/small_gemm_capture.py" "$OUT" --feed
echo "rc=$?"
echo "== calib_gemm_feed ncu (DRAM and L2 counters of the K = 4096 flushed cases)"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
timeout 300 "$NCU" --clock-control none --cache-control none --kernel-name feed_kernel \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_requests_srcunit_tex_op_read.sum,gpu__time_duration.sum,launch__grid_size \
  --csv --page raw "$BUILD/calib_gemm_feed" "$OUT/calibration_gemm_feed_ncu.csv" ncu \
  > "$OUT/gemm_feed_ncu_raw.csv" || echo "ncu exited $?"
cut -c1-300 "$OUT/gemm_feed_ncu_raw.csv" | head -5
gzip -f "$OUT/gemm_feed_ncu_raw.csv"
ls -l "$OUT"
