#!/usr/bin/env python3
"""Fidelity regression check: runs `tgsim validate --json` on committed measurements and fails if
the error rises past the figure documented in docs/validation.md (plus a small margin).

usage: check_fidelity.py TGSIM MEASUREMENTS.csv THRESHOLDS.json
THRESHOLDS.json: {"max_mape_pct": .., "min_pearson_r": .., "max_skipped": .., "min_simulated": ..,
                  "max_worst_pct": .. (optional: the largest row error)}
"""
import json
import subprocess
import sys


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    tgsim, measurements, thresholds_file = sys.argv[1:]
    with open(thresholds_file) as f:
        limits = json.load(f)
    run = subprocess.run([tgsim, "validate", "--measurements", measurements, "--json"], capture_output=True, text=True)
    if run.returncode != 0:
        print(f"tgsim validate failed ({run.returncode}):\n{run.stderr}", file=sys.stderr)
        return 1
    got = json.loads(run.stdout)
    failures = []
    if got["mape_pct"] > limits["max_mape_pct"]:
        failures.append(f"MAPE {got['mape_pct']:.2f}% > {limits['max_mape_pct']}%")
    if got["pearson_r"] < limits["min_pearson_r"]:
        failures.append(f"Pearson r {got['pearson_r']:.4f} < {limits['min_pearson_r']}")
    if "max_worst_pct" in limits and got["max_ape_pct"] > limits["max_worst_pct"]:
        failures.append(f"worst row {got['max_ape_pct']:.1f}% > {limits['max_worst_pct']}%")
    if got["skipped"] > limits["max_skipped"]:
        failures.append(f"{got['skipped']} rows skipped > {limits['max_skipped']}")
    if got["simulated"] < limits["min_simulated"]:
        failures.append(f"{got['simulated']} rows simulated < {limits['min_simulated']}")
    print(f"{measurements}: {got['simulated']} rows, MAPE {got['mape_pct']:.2f}%, max {got['max_ape_pct']:.1f}%, "
          f"r {got['pearson_r']:.4f}, skipped {got['skipped']}")
    for f in failures:
        print("FIDELITY REGRESSION: " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
