#!/usr/bin/env python3
"""SM timeline (Gantt chart) from a tgsim trace.

Usage: sm_timeline.py TRACE.json OUT.png [--sms N] [--nodes]
Reads the Chrome/Perfetto trace `tgsim ... --trace TRACE.json` writes: one horizontal bar per
resident CTA on each SM (colour = kernel), the first N SMs (default 16). With --nodes, the
traced SMs' tile-op slices (loads, MMAs, softmax...) are drawn under their SM, one row per
warp role, coloured by kind. matplotlib only.
"""
import argparse
import json
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("out")
    ap.add_argument("--sms", type=int, default=16)
    ap.add_argument("--nodes", action="store_true")
    a = ap.parse_args()
    with open(a.trace) as f:
        t = json.load(f)
    events = t["traceEvents"] if isinstance(t, dict) else t
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    rows, labels = {}, []
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    kernel_colour, kind_colour = {}, {}
    fig, ax = plt.subplots(figsize=(11, 0.35 * (a.sms * (3 if a.nodes else 1)) + 1.5))
    for e in events:
        if e.get("ph") != "X":
            continue
        name = names.get((e["pid"], e["tid"]), "")
        m = re.match(r"SM (\d+) (CTAs|CTA lane \d+ (.*))", name)
        if not m or int(m.group(1)) >= a.sms:
            continue
        is_cta = e.get("cat") == "cta"
        if not is_cta and not a.nodes:
            continue
        row_name = f"GPU{e['pid']} SM {m.group(1)}" + ("" if is_cta else f" {m.group(3)}")
        if row_name not in rows:
            rows[row_name] = len(rows)
            labels.append(row_name)
        if is_cta:
            c = kernel_colour.setdefault(e["args"].get("kernel", 0), colours[len(kernel_colour) % len(colours)])
        else:
            c = kind_colour.setdefault(e.get("cat", ""), colours[(len(kind_colour) + 3) % len(colours)])
        ax.barh(rows[row_name], e["dur"], left=e["ts"], height=0.8, color=c, edgecolor="white", linewidth=0.2)
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("time (us)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in list(kernel_colour.values()) + list(kind_colour.values())]
    legend = [f"kernel {k}" for k in kernel_colour] + list(kind_colour)
    if handles:
        ax.legend(handles, legend, fontsize=7, loc="upper right")
    ax.set_title(f"SM timeline: {a.trace}")
    fig.tight_layout()
    fig.savefig(a.out, dpi=130)


if __name__ == "__main__":
    main()
