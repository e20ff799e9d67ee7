#!/usr/bin/env bash
# Settled re-measurements (meant for the lent H200: `bash tools/bench/run_settled.sh gemm` or
# `... attention`); results in $OUT (default /tmp/tgsim_settled_out):
#   gemm       calibration_tma_mix.csv  calib_tma_mix: zero-filled TMA boxes beside in-range HBM loads
#              gemm_settled.csv         gemm_sweep --settle-ms 200 --shuffle 7: every row after 200 ms of
#                                       GPU idle, rows in a new random order each pass, clock probed
#              smi_gemm_settled.csv     nvidia-smi clocks/power every 100 ms during the sweep
#   gemm_probe gemm_probe.csv           gemm_sweep --probe --settle-ms 200 --shuffle 7: the held-out
#                                       shapes (57), measured as the settled set
#   gemm_probe_and_settled               gemm_probe, then gemm's sweep without calib_tma_mix (the
#                                       two GEMM sets of another GPU in one call; the gpu column
#                                       follows the device: h100 on an H100)
#   attention  attention_settled.csv (+ attention_passes.csv, attention_skipped.csv)
#                                       attention_capture.py --graph --settle-ms 200 --shuffle 7
#              smi_attention_settled.csv
#   env.txt, log.txt                    versions; everything printed
# Builds only what the mode needs (tools/bench, Release, in /tmp). Never changes GPU settings.
set -u
MODE=${1:-gemm}
source "$(dirname "${BASH_SOURCE[0]}")/run_common.sh"
bench_begin /tmp/tgsim_settled_out
bench_env
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_settled_build}
smi_log() {
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
    --format=csv -lms 100 > "$1" 2>/dev/null &
  SMI_PID=$!
}
# The two settled GEMM sweeps, each under its own time limit.
probe_sweep() {
  echo "== gemm_sweep probe, settled"
  timeout "$1" "$BUILD/gemm_sweep" "$OUT/gemm_probe.csv" --probe --settle-ms 200 --shuffle 7
  echo "rc=$?"
}
settled_sweep() {
  smi_log "$OUT/smi_gemm_settled.csv"
  echo "== gemm_sweep settled"
  timeout "$1" "$BUILD/gemm_sweep" "$OUT/gemm_settled.csv" --settle-ms 200 --shuffle 7
  echo "rc=$?"
  kill "$SMI_PID" 2>/dev/null; wait "$SMI_PID" 2>/dev/null
}
case "$MODE" in
  gemm)
    bench_build "$BUILD" calib_tma_mix gemm_sweep
    echo "== calib_tma_mix"
    timeout 90 "$BUILD/calib_tma_mix" "$OUT/calibration_tma_mix.csv"
    echo "rc=$?"
    settled_sweep 420
    ;;
  gemm_probe)
    bench_build "$BUILD" gemm_sweep
    probe_sweep 420
    ;;
  gemm_probe_and_settled)
    bench_build "$BUILD" gemm_sweep
    probe_sweep 150
    settled_sweep 300
    ;;
  attention)
    smi_log "$OUT/smi_attention_settled.csv"
    echo "== attention_capture settled"
    timeout 500 python3 "$HERE/attention_capture.py" "$OUT" --graph --settle-ms 200 --shuffle 7 --budget-s 440
    echo "rc=$?"
    kill "$SMI_PID" 2>/dev/null; wait "$SMI_PID" 2>/dev/null
    [ -f "$OUT/attention.csv" ] && mv "$OUT/attention.csv" "$OUT/attention_settled.csv"
    ;;
  *) echo "usage: run_settled.sh gemm|gemm_probe|gemm_probe_and_settled|attention" >&2; exit 2 ;;
esac
ls -l "$OUT"
