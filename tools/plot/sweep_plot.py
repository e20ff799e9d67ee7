#!/usr/bin/env python3
"""Plots a `tgsim sweep` results CSV (docs/sweeps.md).

Line plot: a value (default latency_us) against one parameter, one line per value of another:
    sweep_plot.py results.csv out.png --x m --line n [--logx] [--logy]
Heatmap: a value over two parameters:
    sweep_plot.py results.csv out.png --x seq_q --heatmap family [--value tflops]
Rows with an error are left out. `--where col=value` (repeatable) keeps matching rows only;
points that share the plotted parameters are combined with --agg (mean, min or max).
Exit code 2 with one line on stderr for bad input.
"""
import argparse
import csv
import re
import statistics
import sys


def fail(msg):
    print(f"sweep_plot.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def as_number(text):
    try:
        return float(text)
    except ValueError:
        return None


def sort_key(v):
    """Numbers, and numbers with a unit ("3.35TB/s"), in numeric order; other text after them."""
    m = re.match(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", v)
    return (0, float(m.group(0)), v[m.end():]) if m else (1, 0.0, v)


def load(path, args):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    if not rows:
        fail(f"{path}: no rows")
    wanted = [args.x, args.value] + [c for c in (args.line, args.heatmap) if c]
    for col in wanted + [w.split("=", 1)[0] for w in args.where] + ["error"]:
        if col not in rows[0]:
            fail(f"{path}: no column \"{col}\" (columns: {', '.join(rows[0].keys())})")
    for w in args.where:
        if "=" not in w:
            fail(f"--where {w}: expected column=value")
        col, val = w.split("=", 1)
        rows = [r for r in rows if r[col] == val]
    rows = [r for r in rows if not r["error"] and as_number(r[args.value]) is not None]
    if not rows:
        fail(f"{path}: no rows without errors left to plot")
    return rows


def combine(values, how):
    return {"mean": statistics.fmean, "min": min, "max": max}[how](values)


def grouped(rows, keys, args):
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in keys), []).append(float(r[args.value]))
    return {k: combine(v, args.agg) for k, v in groups.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("csv")
    p.add_argument("png")
    p.add_argument("--x", required=True, help="parameter on the x axis")
    p.add_argument("--line", help="one line per value of this parameter")
    p.add_argument("--heatmap", metavar="Y", help="heatmap with this parameter on the y axis")
    p.add_argument("--value", default="latency_us", help="column plotted (default latency_us; e.g. tflops)")
    p.add_argument("--where", action="append", default=[], help="keep rows with column=value (repeatable)")
    p.add_argument("--agg", choices=["mean", "min", "max"], default="mean", help="combine points that share the plotted parameters")
    p.add_argument("--logx", action="store_true")
    p.add_argument("--logy", action="store_true")
    args = p.parse_args()
    if args.line and args.heatmap:
        fail("--line and --heatmap: pick one")
    rows = load(args.csv, args)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    if args.heatmap:
        xs = sorted({r[args.x] for r in rows}, key=sort_key)
        ys = sorted({r[args.heatmap] for r in rows}, key=sort_key)
        cells = grouped(rows, [args.x, args.heatmap], args)
        grid = [[cells.get((x, y), float("nan")) for x in xs] for y in ys]
        im = ax.imshow(grid, aspect="auto", origin="lower", cmap="viridis")
        ax.set_xticks(range(len(xs)), xs, rotation=45, ha="right")
        ax.set_yticks(range(len(ys)), ys)
        ax.set_ylabel(args.heatmap)
        fig.colorbar(im, ax=ax, label=args.value)
        for j, y in enumerate(ys):
            for i, x in enumerate(xs):
                if (x, y) in cells and len(xs) * len(ys) <= 200:
                    ax.text(i, j, f"{cells[(x, y)]:.3g}", ha="center", va="center", fontsize=7, color="white")
    else:
        keys = [args.x] + ([args.line] if args.line else [])
        cells = grouped(rows, keys, args)
        series = sorted({k[1] if args.line else "" for k in cells}, key=sort_key)
        for s in series:
            pts = sorted(((k[0], v) for k, v in cells.items() if not args.line or k[1] == s), key=lambda kv: sort_key(kv[0]))
            numeric = all(as_number(x) is not None for x, _ in pts)
            xs = [float(x) if numeric else x for x, _ in pts]
            ax.plot(xs, [v for _, v in pts], marker="o", ms=3, label=f"{args.line}={s}" if args.line else None)
        if args.line:
            ax.legend(fontsize=8)
        ax.set_ylabel(args.value)
        if args.logx:
            ax.set_xscale("log")
        if args.logy:
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
    ax.set_xlabel(args.x)
    title = f"{args.value} ({args.agg} over other parameters)" if args.agg != "mean" else args.value
    ax.set_title(title + (f", {', '.join(args.where)}" if args.where else ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(args.png, dpi=120)


if __name__ == "__main__":
    main()
