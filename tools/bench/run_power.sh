#!/usr/bin/env bash
# Power and grouped-GEMM runs on the local GPU (meant for the lent H200: `bash tools/bench/run_power.sh`);
# results in $OUT (default /tmp/tgsim_power_out):
#   calibration_power.csv  calib_clock's power phases (memset, memset + flushed GEMMs, read-only,
#                          write-only, quarter-chip copy) and the bf16 GEMM anchor: clock, power, throughput
#   clock_power.csv        their NVML and CUDA-event time series
#   grouped_gemm.csv       torch._grouped_mm MoE expert GEMMs (tools/bench/grouped_gemm_capture.py)
#   smi_grouped_gemm.csv   nvidia-smi clocks/power every 100 ms during the grouped sweep
#   env.txt, log.txt       versions; everything printed
# Builds only calib_clock (tools/bench, Release, in /tmp). Never changes GPU settings.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/run_common.sh"
bench_begin /tmp/tgsim_power_out
bench_env
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_clock_build}
bench_build "$BUILD" calib_clock
echo "== calib_clock power phases"
timeout 150 "$BUILD/calib_clock" "$OUT/calibration_power.csv" "$OUT/clock_power.csv" \
  gemm_bf16,memset_only,memset_gemm_skinny,memset_gemm_tiny,memset_gemm_2048,memset_gemm_4096,read_kernel,write_kernel,copy_kernel,copy_kernel_33sm
echo "rc=$?"
echo "== grouped_gemm_capture"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -lms 100 > "$OUT/smi_grouped_gemm.csv" 2>/dev/null &
SMI=$!
timeout 240 python3 "$HERE/grouped_gemm_capture.py" "$OUT"
echo "rc=$?"
kill $SMI 2>/dev/null
