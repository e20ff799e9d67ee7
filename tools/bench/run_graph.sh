#!/usr/bin/env bash
# Builds calib_graph (tools/bench, Release, in /tmp) and measures the launch costs that CUDA
# events, CUPTI and the kernels' own %globaltimer spans see for short kernels launched as the
# captures launch them (one CUDA graph replay, or plain stream launches, after a 256 MiB L2 flush):
# for launch.kernel_overhead, launch.queued_kernel_gap, launch.graph_launch_overhead and
# launch.graph_kernel_overhead (docs/gpu-specs.md). Meant for the lent H200:
# `OUT=... bash tools/bench/run_graph.sh`; about 20 s. Never changes GPU settings.
# Output ($OUT, default /tmp/tgsim_graph_out): calibration_graph.csv, env.txt, log.txt.
source "$(dirname "$0")/run_common.sh"
bench_begin /tmp/tgsim_graph_out
bench_env
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_graph}
bench_build "$BUILD" calib_graph
timeout 200 "$BUILD/calib_graph" "$OUT/calibration_graph.csv"
