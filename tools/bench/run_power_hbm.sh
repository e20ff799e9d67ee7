#!/usr/bin/env bash
# What HBM traffic adds to an MMA load's power and clock (2026-12-01, tenth session): calib_pipe_power's
# hbm_read (an 8 GiB buffer streamed alone), fa2mix_hbm and mma_hbm (the FlashAttention-2 mix and
# mma.sync with both operands from ldmatrix, each with an HBM stream beside it on a second
# stream), and the same two mixes without the stream as references, 4 s each after >= 1.5 s idle.
# docs/model.md, "The SM clock". Never changes GPU settings.
#   OUT=... tools/bench/run_power_hbm.sh
# Output ($OUT, default /tmp/power_hbm): calibration_pipe_power_hbm.csv, pipe_power_hbm_series.csv
# (NVML samples), pipe_power_hbm_series_eff.csv (effective clock per launch).
source "$(dirname "$0")/run_common.sh"
bench_begin /tmp/power_hbm
bench_env
BUILD=/tmp/tgsim_bench_pipe_power
bench_build "$BUILD" calib_pipe_power
timeout 150 "$BUILD/calib_pipe_power" "$OUT/calibration_pipe_power_hbm.csv" "$OUT/pipe_power_hbm_series.csv" \
  ${HBM_PHASES:-hbm_read:4,fa2mix_rnd:4,fa2mix_hbm:4,mma_rnd:4,mma_hbm:4} || exit 1
