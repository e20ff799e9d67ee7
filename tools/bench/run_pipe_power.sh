#!/usr/bin/env bash
# Builds calib_mix and calib_pipe_power (tools/bench, Release, in /tmp) and runs them on the local
# GPU: the clock and power under each pipe's load (docs/model.md, clock model) and the cycles per
# iteration of the same mixes at 4/8/16 warps per SM. Never changes GPU settings.
#   OUT=... tools/bench/run_pipe_power.sh
# Output ($OUT, default /tmp/pipe_power):
#   calibration_pipe_power.csv   quantity,value,unit,method rows (see calib_pipe_power.cu)
#   pipe_power_series.csv        the NVML samples of every phase
#   calibration_mix.csv          calib_mix (cycles per iteration, no power), with WITH_MIX=1
source "$(dirname "$0")/run_common.sh"
bench_begin /tmp/pipe_power
bench_env
BUILD=/tmp/tgsim_bench_pipe_power
bench_build "$BUILD" calib_pipe_power calib_mix
timeout 150 "$BUILD/calib_pipe_power" "$OUT/calibration_pipe_power.csv" "$OUT/pipe_power_series.csv" || exit 1
[ -n "$WITH_MIX" ] && { timeout 120 "$BUILD/calib_mix" "$OUT/calibration_mix.csv" || exit 1; }
