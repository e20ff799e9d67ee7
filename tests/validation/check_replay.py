#!/usr/bin/env python3
"""Profile-replay regression check: runs `tgsim validate --profile P --gpu GPU --json` on each
committed profile listed in LIMITS.json and fails if a total's error leaves the documented band
(docs/validation.md, "Profile replay", plus a small margin) or its coverage falls.

usage: check_replay.py TGSIM SOURCE_DIR LIMITS.json
LIMITS.json: {"gpu": "h200", "min_coverage_pct": .., "profiles": {"PATH": {"max_abs_error_pct": ..}, ...}}
"""
import json
import os
import subprocess
import sys


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    tgsim, root, limits_file = sys.argv[1:]
    with open(limits_file) as f:
        limits = json.load(f)
    failures = []
    for rel, lim in sorted(limits["profiles"].items()):
        run = subprocess.run([tgsim, "validate", "--profile", os.path.join(root, rel), "--gpu", limits["gpu"], "--json"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            failures.append(f"{rel}: tgsim validate failed ({run.returncode}): {run.stderr.strip()}")
            continue
        got = json.loads(run.stdout)
        err = 100.0 * (got["predicted_total_us"] / got["measured_total_us"] - 1.0)
        print(f"{rel}: measured {got['measured_total_us']:.1f} us, predicted {got['predicted_total_us']:.1f} us "
              f"({err:+.1f}%), coverage {got['coverage_pct']:.1f}%")
        if abs(err) > lim["max_abs_error_pct"]:
            failures.append(f"{rel}: total error {err:+.1f}% beyond ±{lim['max_abs_error_pct']}%")
        if got["coverage_pct"] < limits["min_coverage_pct"]:
            failures.append(f"{rel}: coverage {got['coverage_pct']:.1f}% < {limits['min_coverage_pct']}%")
    for f in failures:
        print("FIDELITY REGRESSION: " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
