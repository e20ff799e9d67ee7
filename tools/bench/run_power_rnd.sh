#!/usr/bin/env bash
# The clock the SMs really run at under each pipe's load, and whether the tensor core's power
# depends on its operands toggling: every calib_pipe_power phase (fixed-operand mma.sync mixes as
# measured until 2026-12-01, the *_rnd phases with both operands from each iteration's ldmatrix
# loads, the FP32/SFU/L2/shared-memory phases), 4 s each after >= 1.5 s idle, twice (the second
# pass on a warm card). Each launch records its effective clock (clock64 / %globaltimer), which
# under a power limit falls below what NVML reports. docs/model.md, "The SM clock". Never
# changes GPU settings.
#   OUT=... tools/bench/run_power_rnd.sh [all|duty]
# all (default) — output ($OUT, default /tmp/power_rnd): calibration_pipe_power_rnd.csv (first
# pass), calibration_pipe_power_rnd_warm.csv (second), pipe_power_rnd_series.csv (NVML samples),
# pipe_power_rnd_series_eff.csv (effective clock per launch), and the same *_warm series.
# duty — only the phases that vary the tensor duty (mma.sync, and one wgmma per commit group, per
# FFMA) and full-rate wgmma (bf16, fp8), once: calibration_pipe_power_duty.csv,
# pipe_power_duty_series.csv, _series_eff.csv. DUTY_PHASES=... runs a subset.
source "$(dirname "$0")/run_common.sh"
bench_begin /tmp/power_rnd
bench_env
BUILD=/tmp/tgsim_bench_pipe_power
bench_build "$BUILD" calib_pipe_power
if [ "${1:-all}" = duty ]; then
  timeout 150 "$BUILD/calib_pipe_power" "$OUT/calibration_pipe_power_duty.csv" "$OUT/pipe_power_duty_series.csv" \
    ${DUTY_PHASES:-fma88:4,mma:4,mma_d50:4,mma_d25:4,mma_d12:4,mma_d03:4,wgmma_bf16:4,wgmma_fp8:4,wgmma_d25:4,wgmma_d10:4,wgmma_f192:4,wgmma_f768:4,wgmma_f2304:4} || exit 1
  exit 0
fi
for pass in "" _warm; do
  timeout 150 "$BUILD/calib_pipe_power" "$OUT/calibration_pipe_power_rnd$pass.csv" \
    "$OUT/pipe_power_rnd${pass}_series.csv" || exit 1
done
