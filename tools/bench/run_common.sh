# Sourced by the run_*.sh scripts of tools/bench: the output folder, the log, the environment
# record and the build of the programs a run needs. Never changes GPU settings.
#   bench_begin DEFAULT_OUT   $OUT (default DEFAULT_OUT) created, $HERE set, everything printed
#                             also appended to $OUT/log.txt, CUDA's bin on PATH
#   bench_env                 nvidia-smi, torch and nvcc versions to $OUT/env.txt (and printed)
#   bench_build DIR TARGET..  tools/bench configured (Release) in DIR and TARGETs built; fails the run
bench_begin() {
  OUT=${OUT:-$1}
  mkdir -p "$OUT"
  HERE=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
  exec > >(tee -a "$OUT/log.txt") 2>&1
  export PATH=/usr/local/cuda/bin:$PATH
  export PYTHONUNBUFFERED=1
}

bench_env() {
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
    python3 -c "import torch; print('torch', torch.__version__, 'CUDA', torch.version.cuda, torch.cuda.get_device_name())"
    nvcc --version 2>/dev/null | tail -1
  } > "$OUT/env.txt" 2>&1
  cat "$OUT/env.txt"
}

bench_build() {
  local dir=$1 gen=""
  shift
  command -v ninja >/dev/null && gen="-G Ninja"
  timeout 120 cmake -S "$HERE" -B "$dir" $gen -DCMAKE_BUILD_TYPE=Release >/dev/null || exit 1
  timeout 240 cmake --build "$dir" --target "$@" -j 16 || exit 1
}
