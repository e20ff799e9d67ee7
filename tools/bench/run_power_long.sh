#!/usr/bin/env bash
# What the clock does when loads run long enough to heat the GPU: calib_pipe_power's FlashAttention-2
# mix and mma.sync phases for 20 s each, then three SDPA attention kernels back to back (with
# L2 flushes) for 15 s each (attention_power.py). docs/model.md, "What the clock model leaves
# out". Never changes GPU settings.
#   OUT=... tools/bench/run_power_long.sh
# Output ($OUT, default /tmp/power_long): calibration_pipe_power_long.csv,
# pipe_power_long_series.csv, attention_power.csv, attention_power_series.csv
source "$(dirname "$0")/run_common.sh"
bench_begin /tmp/power_long
bench_env
BUILD=/tmp/tgsim_bench_pipe_power
bench_build "$BUILD" calib_pipe_power
timeout 120 "$BUILD/calib_pipe_power" "$OUT/calibration_pipe_power_long.csv" "$OUT/pipe_power_long_series.csv" \
  fa2mix:20,mma:20,ldsm_mma:20 || exit 1
timeout 150 python3 "$HERE/attention_power.py" "$OUT" 15 || exit 1
