#!/usr/bin/env bash
# Calibration runs for profile replay and the tf32 clock, on the local GPU (meant for the lent
# H200: `bash tools/bench/run_replay_calib.sh`); results in $OUT (default /tmp/tgsim_replay_out):
#   elementwise.csv        PyTorch memory-bound kernel durations (tools/bench/elementwise_capture.py)
#   calibration_tf32.csv   steady clock/power/throughput of a back-to-back tf32 GEMM (calib_clock)
#   clock_tf32.csv         its NVML and CUDA-event time series
#   env.txt, log.txt       versions; everything printed
# Builds only calib_clock (tools/bench, Release, in /tmp). Never changes GPU settings.
set -u
OUT=${OUT:-/tmp/tgsim_replay_out}
mkdir -p "$OUT"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_clock_build}
exec > >(tee -a "$OUT/log.txt") 2>&1
export PATH=/usr/local/cuda/bin:$PATH
export PYTHONUNBUFFERED=1
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
  python3 -c "import torch; print('torch', torch.__version__, 'CUDA', torch.version.cuda, torch.cuda.get_device_name())"
  nvcc --version 2>/dev/null | tail -1
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
GEN=""
command -v ninja >/dev/null && GEN="-G Ninja"
timeout 120 cmake -S "$HERE" -B "$BUILD" $GEN -DCMAKE_BUILD_TYPE=Release >/dev/null || exit 1
timeout 240 cmake --build "$BUILD" --target calib_clock -j 16 || exit 1
echo "== elementwise"
timeout 300 python3 "$HERE/elementwise_capture.py" "$OUT" --reps 15
echo "rc=$?"
echo "== calib_clock gemm_tf32"
timeout 120 "$BUILD/calib_clock" "$OUT/calibration_tf32.csv" "$OUT/clock_tf32.csv" gemm_tf32
echo "rc=$?"
