#!/usr/bin/env bash
# Probes of the short-kernel and shared-L2-read gaps (meant for the lent H200:
# `bash tools/bench/run_short_probe.sh`); results in $OUT (default /tmp/tgsim_short_probe_out):
#   calibration_tma_l2_share.csv  calib_tma contig_l2_share*: L2-resident TMA reads when the 132
#                                 CTAs read only G distinct regions (GEMM-like sharing), G = 1..132
#   probe/attention.csv           attention_capture.py --cases probe --graph: the held-out attention
#                                 shapes (short kernels, ragged lengths, new GQA/decode), both backends
#   attention_short_ncu_*         run_ncu.sh attention_short: Nsight Compute of four seq-512 kernels
#   env.txt, log.txt              versions; everything printed
# Builds only calib_tma (tools/bench, Release, in /tmp). Never changes GPU settings.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/run_common.sh"
bench_begin /tmp/tgsim_short_probe_out
bench_env
echo "== calib_tma contig_l2_share"
OUT=$OUT timeout 200 bash "$HERE/run_tma.sh" contig_l2_share calibration_tma_l2_share.csv
echo "rc=$?"
echo "== attention_capture --cases probe"
mkdir -p "$OUT/probe"
timeout 190 python3 "$HERE/attention_capture.py" "$OUT/probe" --cases probe --graph --budget-s 150
echo "rc=$?"
echo "== ncu attention_short"
OUT=$OUT NCU_TIMEOUT_S=120 timeout 170 bash "$HERE/run_ncu.sh" attention_short
echo "rc=$?"
ls -l "$OUT" "$OUT/probe"
