#!/usr/bin/env bash
# Profiles the kernels of NAME_ncu.py (NAME = attention or gemm) with Nsight Compute on the local
# GPU and exports what docs/attention.md and docs/validation.md read: per-kernel metrics, the
# details page (stall reasons, instruction statistics) and the SASS of each kernel with
# executed-instruction counts and stall samples per instruction. Never changes GPU settings
# (--clock-control none; ncu flushes caches before each replay pass, --cache-control all).
#   OUT=... tools/bench/run_ncu.sh attention|attention_short|gemm|gemm_traffic
# attention_short: attention_ncu.py --set short (short seq-512 kernels) -> $OUT/attention_short_ncu_*;
# attention_decode: --set decode (small decode calls) -> $OUT/attention_decode_ncu_*;
# attention_perblock: --set perblock (cuDNN d=128/256, FA2 decode b=128) -> $OUT/attention_perblock_ncu_*.
# attention_causal: --set causal (cuDNN causal and not, 1024 and 4096 keys, d=128/256) -> $OUT/attention_causal_ncu_*.
# gemm_cluster: gemm_ncu.py --set cluster (nvjet kernels with 4- and 8-CTA multicast clusters) ->
# $OUT/gemm_cluster_ncu_*.
# gemm_tf32: gemm_ncu.py --set tf32 (small xmma tf32 GEMMs and two bf16 controls) -> $OUT/gemm_tf32_ncu_*.
# gemm_misaligned: gemm_ncu.py --set misaligned (CUTLASS sm75 register-staged and sm80 align2 kernels)
# -> $OUT/gemm_misaligned_ncu_*.
# tma_share: calib_tma's contig_l2_share variants (132 CTAs re-reading G shared L2-resident regions)
# with the L2 request counters only -> $OUT/tma_share_ncu_raw.csv and $OUT/calibration_tma_l2_share.csv
# (the run's own rates): are reads of one line by several SMs combined before the L2?
# gemm_traffic: gemm_ncu.py --set traffic with only the traffic counters (DRAM and L2 bytes, time,
# clock, tensor-pipe activity) -> $OUT/gemm_traffic_ncu_raw.csv.
# Output ($OUT, default /tmp/NAME_ncu), shown for attention:
#   attention_ncu_raw.csv.gz      ncu --page raw (one row per kernel, every collected metric)
#   attention_ncu_details.csv.gz  ncu --page details
#   attention_ncu_sass.csv.gz     ncu --page source --print-source sass (per-instruction counters)
#   attention_ncu_ops.csv         ncu_ops.py: SASS opcode histogram per kernel (entry = case order)
#   attention_ncu_summary.txt     ncu_summary.py of the raw page
NAME=${1:-attention}
case "$NAME" in attention|attention_short|attention_decode|attention_perblock|attention_causal|gemm|gemm_cluster|gemm_tf32|gemm_misaligned|gemm_traffic|tma_share) ;; *) echo "usage: run_ncu.sh attention|attention_short|attention_decode|attention_perblock|attention_causal|gemm|gemm_cluster|gemm_tf32|gemm_misaligned|gemm_traffic|tma_share" >&2; exit 2 ;; esac
SCRIPT=${NAME}_ncu.py
ARGS=""
[ "$NAME" = attention_short ] && { SCRIPT=attention_ncu.py; ARGS="--set short"; }
[ "$NAME" = attention_decode ] && { SCRIPT=attention_ncu.py; ARGS="--set decode"; }
[ "$NAME" = attention_perblock ] && { SCRIPT=attention_ncu.py; ARGS="--set perblock"; }
[ "$NAME" = attention_causal ] && { SCRIPT=attention_ncu.py; ARGS="--set causal"; }
[ "$NAME" = gemm_cluster ] && { SCRIPT=gemm_ncu.py; ARGS="--set cluster"; }
[ "$NAME" = gemm_tf32 ] && { SCRIPT=gemm_ncu.py; ARGS="--set tf32"; }
[ "$NAME" = gemm_misaligned ] && { SCRIPT=gemm_ncu.py; ARGS="--set misaligned"; }
source "$(dirname "$0")/run_common.sh"
bench_begin /tmp/${NAME}_ncu
bench_env
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU ($($NCU --version | tail -1))"
if [ "$NAME" = tma_share ]; then
  bench_build /tmp/tgsim_bench_tma_build calib_tma
  timeout 400 "$NCU" --clock-control none --cache-control none --kernel-name tma_stream_kernel \
    --metrics lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_ltcfabric.sum,gpu__time_duration.sum,launch__grid_size \
    --csv --page raw /tmp/tgsim_bench_tma_build/calib_tma "$OUT/calibration_tma_l2_share.csv" contig_l2_share > "$OUT/tma_share_ncu_raw.csv" || echo "ncu exited $?"
  cut -c1-300 "$OUT/tma_share_ncu_raw.csv" | head -8
  exit 0
fi
if [ "$NAME" = gemm_traffic ]; then
  timeout 300 "$NCU" --clock-control none --cache-control all --profile-from-start off --target-processes all \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors.sum,gpu__time_duration.sum,gpc__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,launch__grid_size \
    --csv --page raw python3 "$HERE/gemm_ncu.py" --set traffic > "$OUT/gemm_traffic_ncu_raw.csv" || echo "ncu exited $?"
  cut -c1-400 "$OUT/gemm_traffic_ncu_raw.csv" | head -20
  exit 0
fi
REP=/tmp/${NAME}_ncu_rep
rm -f $REP.ncu-rep
timeout "${NCU_TIMEOUT_S:-420}" "$NCU" --clock-control none --cache-control all --profile-from-start off --target-processes all \
  --section SpeedOfLight --section ComputeWorkloadAnalysis --section InstructionStats --section WarpStateStats \
  --section SchedulerStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
  --section MemoryWorkloadAnalysis_Tables \
  --section SourceCounters -o $REP python3 "$HERE/$SCRIPT" $ARGS || echo "ncu exited $?"
"$NCU" -i $REP.ncu-rep --page raw --csv > "$OUT/${NAME}_ncu_raw.csv"
"$NCU" -i $REP.ncu-rep --page details --csv > "$OUT/${NAME}_ncu_details.csv"
"$NCU" -i $REP.ncu-rep --page source --csv --print-source sass > "$OUT/${NAME}_ncu_sass.csv" || echo "source page failed"
python3 "$HERE/ncu_ops.py" "$OUT/${NAME}_ncu_sass.csv" "$OUT/${NAME}_ncu_ops.csv"
python3 "$HERE/ncu_summary.py" "$OUT/${NAME}_ncu_raw.csv" 10 | tee "$OUT/${NAME}_ncu_summary.txt"
ls -la "$OUT" $REP.ncu-rep
gzip -f "$OUT"/${NAME}_ncu_raw.csv "$OUT"/${NAME}_ncu_details.csv "$OUT"/${NAME}_ncu_sass.csv
# The report itself when it fits what comes back from the device (16 MiB a file).
gzip -c $REP.ncu-rep > "$OUT/${NAME}_ncu.ncu-rep.gz"
[ "$(stat -c %s "$OUT/${NAME}_ncu.ncu-rep.gz")" -lt 15000000 ] || rm -f "$OUT/${NAME}_ncu.ncu-rep.gz"
