#!/usr/bin/env bash
# What a tiny kernel pays after an L2 flush, data or code (meant for the lent H200:
# `bash tools/bench/run_cold.sh`); results in $OUT (default /tmp/tgsim_cold_out):
#   elementwise_cold.csv    elementwise_capture.py --cold: PyTorch pointwise kernels of <= 2^18
#                           elements after a memset flush (a kernel), after a copy-engine flush
#                           (cudaMemcpy, no SM code in between) and warm
#   small_gemm_kscan_ce.csv small_gemm_capture.py --kscan --ce: the same three states for the small
#                           torch GEMMs of the K scan
#   env.txt, log.txt        versions; everything printed
# No build. Never changes GPU settings.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/run_common.sh"
bench_begin /tmp/tgsim_cold_out
bench_env
echo "== elementwise --cold"
timeout 200 python3 "$HERE/elementwise_capture.py" "$OUT" --reps 15 --cold
echo "rc=$?"
echo "== small_gemm_capture --kscan --ce"
timeout 200 python3 "$HERE/small_gemm_capture.py" "$OUT" --kscan --ce
echo "rc=$?"
ls -l "$OUT"
