#!/usr/bin/env bash
# The one-Q-tile attention diagnosis set (meant for the lent H200:
# `bash tools/bench/run_attention_tile.sh`); results in $OUT (default /tmp/tgsim_attention_tile_out):
#   tile/attention.csv       attention_capture.py --cases tile --graph --shuffle 7: one Q tile per
#                            (batch, head), 64-2048 keys, 132 / 264 / 2112 CTAs, both backends at
#                            d=128, the flash backend at d=64 and 256 (-> traces/h200/attention_tile.csv)
#   tile/attention_passes.csv, env.txt, log.txt
# Needs only PyTorch; builds nothing. Never changes GPU settings.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/run_common.sh"
bench_begin /tmp/tgsim_attention_tile_out
bench_env
mkdir -p "$OUT/tile"
timeout 480 python3 "$HERE/attention_capture.py" "$OUT/tile" --cases tile --graph --shuffle 7 --budget-s 420
echo "rc=$?"
ls -l "$OUT" "$OUT/tile"
