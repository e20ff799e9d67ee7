#!/usr/bin/env python3
"""L2 read traffic of calib_tma's contig_l2_share variants under Nsight Compute
(run_ncu.sh tma_share): bytes the SMs requested against the sectors the L2 saw.

Usage: ncu_share_summary.py tma_share_ncu_raw.csv[.gz] tma_share_ncu_cases.csv
       ncu_share_summary.py --cluster tma_share_cluster_ncu_raw.csv[.gz] calibration_tma_share_cluster_ncu.csv
The raw file holds every tma_stream_kernel launch in order: the correctness checks first, then
17 per case (2 warm-ups, 15 timed reps; the medians below use the 15). The cases file lists the
cases in run order (the first six columns of the calibration CSV that run wrote; its rates are
not meaningful under the profiler). Each CTA requests 8 MiB.

--cluster: calib_tma_multicast share under Nsight Compute (run_multicast.sh share): two check
launches, then 11 per case (2 warm-ups, 9 timed); the cases are the rows of the CSV the profiled
run wrote. Each CTA requests 1024 stages of 16 KiB (multicast rows: a slice of it).
"""
import csv
import gzip
import statistics
import sys


def read_raw(raw):
    opener = gzip.open if raw.endswith(".gz") else open
    with opener(raw, "rt") as f:
        rows = list(csv.reader(f))
    head = next(i for i, r in enumerate(rows) if "Kernel Name" in r)
    cols = rows[head]
    return (lambda r, name: float(r[cols.index(name)].replace(",", ""))), rows[head + 2:]


def cluster_summary(raw, cases_path):
    metric, data = read_raw(raw)
    cases = list(csv.DictReader(open(cases_path)))
    first = len(data) - 11 * len(cases)
    print("case,sharers,ctas,requested_mb,l2_read_mb,l2_read_pct")
    for i, c in enumerate(cases):
        reps = data[first + 11 * i + 2:first + 11 * i + 11]
        requested = int(c["ctas"]) * 1024 * int(c["slice_bytes"])
        read = statistics.median(metric(r, "lts__t_sectors_srcunit_tex_op_read.sum") for r in reps) * 32
        print(f"{c['case']},{c['cluster']},{c['ctas']},{requested / 1e6:.1f},{read / 1e6:.1f},{100 * read / requested:.1f}")


def main():
    if sys.argv[1] == "--cluster":
        cluster_summary(sys.argv[2], sys.argv[3])
        return
    raw, cases_path = sys.argv[1], sys.argv[2]
    metric, data = read_raw(raw)

    cases = list(csv.DictReader(open(cases_path)))
    first = len(data) - 17 * len(cases)
    print("variant,box_bytes,requested_mb,l2_read_mb,l2_read_pct,fabric_mb")
    for i, c in enumerate(cases):
        reps = data[first + 17 * i + 2:first + 17 * i + 17]
        requested = int(c["ctas"]) * 8 * 2**20
        read = statistics.median(metric(r, "lts__t_sectors_srcunit_tex_op_read.sum") for r in reps) * 32
        fabric = statistics.median(metric(r, "lts__t_sectors_srcunit_ltcfabric.sum") for r in reps) * 32
        print(f"{c['variant']},{c['box_bytes']},{requested / 1e6:.1f},{read / 1e6:.1f},{100 * read / requested:.1f},"
              f"{fabric / 1e6:.1f}")


if __name__ == "__main__":
    main()
