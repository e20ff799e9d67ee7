#!/usr/bin/env bash
# Builds calib_graph (tools/bench, Release, in /tmp) and measures the launch costs that CUDA
# events, CUPTI and the kernels' own %globaltimer spans see for short kernels launched as the
# captures launch them (one CUDA graph replay, or plain stream launches, after a 256 MiB L2 flush):
# for launch.kernel_overhead, launch.queued_kernel_gap, launch.graph_launch_overhead and
# launch.graph_kernel_overhead (docs/gpu-specs.md). Meant for the lent H200:
# `OUT=... bash tools/bench/run_graph.sh [launch_cfg]`; about 20 s. Never changes GPU settings.
# Output ($OUT, default /tmp/tgsim_graph_out): calibration_graph.csv, env.txt, log.txt.
# With `launch_cfg`: the launch-attribute sweep (clusters, 200 KiB dynamic shared memory, 384
# threads) to calibration_graph_launch_cfg.csv, then the default sweep again on the same machine
# as its control, to calibration_graph_control.csv.
source "$(dirname "$0")/run_common.sh"
bench_begin /tmp/tgsim_graph_out
bench_env
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_graph}
bench_build "$BUILD" calib_graph
if [[ ${1:-} == launch_cfg ]]; then
  timeout 300 "$BUILD/calib_graph" "$OUT/calibration_graph_launch_cfg.csv" launch_cfg
  timeout 200 "$BUILD/calib_graph" "$OUT/calibration_graph_control.csv"
else
  timeout 200 "$BUILD/calib_graph" "$OUT/calibration_graph.csv"
fi
