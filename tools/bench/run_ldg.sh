#!/usr/bin/env bash
# The register-staged (sm75 align1) GEMM path, meant for the lent H200:
# `bash tools/bench/run_ldg.sh [calib|odd-vocab]` (calib: calib_ldg only; odd-vocab: only
# `gemm_sweep --odd-vocab --settle-ms 200 --shuffle 7` -> $OUT/gemm_odd_vocab.csv, the blind
# held-out LM-head set); results in $OUT (default /tmp/tgsim_ldg_out):
#   calibration_ldg.csv    calib_ldg: SM cycles per ld.global.u16 warp instruction in CUTLASS's
#                          align1 thread map, K-step cycles, mma.sync m16n8k8 vs m16n8k16 rates
#   calib_ldg_sass.txt     the SASS opcode histogram of calib_ldg's kernels (cuobjdump)
#   gemm_misaligned.csv    gemm_sweep --misaligned --settle-ms 200 --shuffle 7: the held-out
#                          misaligned shapes (16), the settled method
#   env.txt, log.txt       versions; everything printed
# Builds calib_ldg and gemm_sweep (tools/bench, Release, in /tmp). Never changes GPU settings.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/run_common.sh"
bench_begin /tmp/tgsim_ldg_out
bench_env
BUILD=${BENCH_BUILD_DIR:-/tmp/tgsim_bench_ldg_build}
bench_build "$BUILD" calib_ldg gemm_sweep
if [ "${1:-}" = odd-vocab ]; then
  echo "== gemm_sweep odd-vocab, settled"
  timeout 300 "$BUILD/gemm_sweep" "$OUT/gemm_odd_vocab.csv" --odd-vocab --settle-ms 200 --shuffle 7
  echo "rc=$?"
  ls -l "$OUT"
  exit 0
fi
echo "== calib_ldg"
timeout 120 "$BUILD/calib_ldg" "$OUT/calibration_ldg.csv"
echo "rc=$?"
if command -v cuobjdump > /dev/null; then
  cuobjdump -sass "$BUILD/calib_ldg" | awk '/Function :/ {f=$3} /\/\*[0-9a-f]{4}\*\// {for (i=1;i<=NF;i++) if ($i ~ /^[A-Z][A-Z0-9_.]+$/ && $i != "PT") {print f, $i; break}}' \
    | sort | uniq -c | sort -k2,2 -k1,1nr > "$OUT/calib_ldg_sass.txt"
fi
[ "${1:-}" = calib ] && { ls -l "$OUT"; exit 0; }
echo "== gemm_sweep misaligned, settled"
timeout 300 "$BUILD/gemm_sweep" "$OUT/gemm_misaligned.csv" --misaligned --settle-ms 200 --shuffle 7
echo "rc=$?"
ls -l "$OUT"
