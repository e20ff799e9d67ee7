#!/usr/bin/env python3
"""Scatter plot and error histogram of a `tgsim validate` run.

Usage: validation_plot.py ROWS.csv OUT.png

ROWS.csv is what `tgsim validate --rows-out` writes: the measurement columns
(docs/measurements.md; `time_us` is the measured time) plus `predicted_us`, `ape_pct`,
`category`, `simulated_schedule` and `skip_reason`. Skipped rows (empty `predicted_us`) are
left out. Left panel: predicted against measured time, log-log, coloured by category, with
the y = x line and a +-10% band. Right panel: histogram of the signed error
(predicted - measured) / measured in percent. The title carries MAPE, max APE, Pearson r and N
over the plotted rows.

Needs python3 and matplotlib only (Debian: python3-matplotlib). Exit status 2 on bad input.
"""

import csv
import math
import sys

REQUIRED_COLUMNS = ("time_us", "predicted_us", "category")


def fail(message):
    print(f"validation_plot.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def read_points(path):
    """Returns [(measured_us, predicted_us, category)] for the simulated rows of `path` and a
    label naming their GPUs and ops."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            if reader.fieldnames is None:
                fail(f"{path}: empty file: expected a header row")
            missing = [c for c in REQUIRED_COLUMNS if c not in reader.fieldnames]
            if missing:
                fail(f"{path}: missing column(s) {', '.join(missing)} "
                     "(expected the file `tgsim validate --rows-out` writes)")
            points = []
            labels = set()
            for row in reader:
                line = reader.line_num
                if None in row or None in row.values():
                    fail(f"{path}:{line}: row has a different number of cells than the header")
                if not row["predicted_us"].strip():
                    continue  # skipped by the simulator (see skip_reason)
                try:
                    measured = float(row["time_us"])
                    predicted = float(row["predicted_us"])
                except ValueError:
                    fail(f"{path}:{line}: time_us and predicted_us must be numbers, got "
                         f"\"{row['time_us']}\" and \"{row['predicted_us']}\"")
                if not (measured > 0 and predicted > 0 and math.isfinite(measured) and math.isfinite(predicted)):
                    fail(f"{path}:{line}: times must be positive and finite, got "
                         f"measured {measured}, predicted {predicted}")
                points.append((measured, predicted, row["category"].strip() or "other"))
                for col in ("gpu", "op"):
                    if row.get(col, "").strip():
                        labels.add((col, row[col].strip()))
    except OSError as e:
        fail(f"{path}: cannot read: {e.strerror}")
    except csv.Error as e:
        fail(f"{path}: malformed CSV: {e}")
    except UnicodeDecodeError:
        fail(f"{path}: not UTF-8 text")
    if not points:
        fail(f"{path}: no simulated rows to plot (every row was skipped or the file has no rows)")
    gpus = sorted(v for k, v in labels if k == "gpu")
    ops = sorted(v for k, v in labels if k == "op")
    return points, " ".join(["/".join(gpus), "/".join(ops)]).strip()


def pearson_r(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def plot(points, out_path, label):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    measured = [p[0] for p in points]
    predicted = [p[1] for p in points]
    signed = [(p - m) / m * 100 for m, p in zip(measured, predicted)]
    ape = [abs(e) for e in signed]
    mape, max_ape, r = sum(ape) / len(ape), max(ape), pearson_r(measured, predicted)

    fig, (ax_s, ax_h) = plt.subplots(1, 2, figsize=(13, 5.8), gridspec_kw={"width_ratios": [1.15, 1]})

    lo = min(measured + predicted) / 1.5
    hi = max(measured + predicted) * 1.5
    line = [lo, hi]
    ax_s.fill_between(line, [v * 0.9 for v in line], [v * 1.1 for v in line], color="0.85", label="±10%", zorder=0)
    ax_s.plot(line, line, color="0.3", linewidth=1, label="y = x", zorder=1)
    categories = sorted({p[2] for p in points})
    cmap = plt.get_cmap("tab10")
    for i, cat in enumerate(categories):
        xs = [m for m, _, c in points if c == cat]
        ys = [p for _, p, c in points if c == cat]
        ax_s.scatter(xs, ys, s=16, alpha=0.8, color=cmap(i % 10), label=f"{cat} ({len(xs)})", zorder=2)
    ax_s.set_xscale("log")
    ax_s.set_yscale("log")
    ax_s.set_xlim(lo, hi)
    ax_s.set_ylim(lo, hi)
    ax_s.set_aspect("equal")
    ax_s.set_xlabel("measured (µs)")
    ax_s.set_ylabel("predicted (µs)")
    ax_s.grid(True, which="both", alpha=0.25)
    ax_s.legend(loc="upper left", fontsize=8)

    span = max(10.0, math.ceil(max_ape / 5) * 5)
    bins = max(10, min(60, int(2 * span / 2.5)))
    ax_h.hist(signed, bins=bins, range=(-span, span), color=cmap(0), edgecolor="white")
    ax_h.axvline(0, color="0.3", linewidth=1)
    for edge in (-10, 10):
        ax_h.axvline(edge, color="0.5", linewidth=1, linestyle="--")
    ax_h.set_xlabel("signed error (predicted − measured) / measured (%)")
    ax_h.set_ylabel("rows")
    ax_h.grid(True, axis="y", alpha=0.25)

    fig.suptitle(f"{label + ': ' if label else ''}MAPE {mape:.2f}%   max APE {max_ape:.1f}%   Pearson r {r:.4f}   N = {len(points)}")
    fig.tight_layout()
    try:
        fig.savefig(out_path, dpi=120)
    except OSError as e:
        fail(f"{out_path}: cannot write: {e.strerror}")


def main(argv):
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    rows_csv, out_png = argv[1], argv[2]
    points, label = read_points(rows_csv)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        fail("matplotlib is not installed (Debian: apt-get install python3-matplotlib)")
    plot(points, out_png, label)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
