#!/usr/bin/env python3
"""Static SASS opcode histogram per kernel of a binary: reads `cuobjdump --dump-sass` output on
stdin, writes CSV kernel,opcode,count (opcodes with their modifiers, predicates dropped).

Usage: cuobjdump --dump-sass BINARY | sass_histogram.py [FILTER] > ops.csv
FILTER keeps only kernels whose mangled name contains it. A kernel whose loop body is straight-line
code (fully unrolled) shows that body's instruction counts plus its setup.
"""
import collections
import csv
import re
import sys


def main():
    flt = sys.argv[1] if len(sys.argv) > 1 else ""
    counts = collections.OrderedDict()
    kernel = None
    ins = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")
    for line in sys.stdin:
        m = re.search(r"Function : (\S+)", line)
        if m:
            kernel = m.group(1) if flt in m.group(1) else None
            if kernel:
                counts[kernel] = collections.Counter()
            continue
        if kernel:
            m = ins.search(line)
            if m:
                counts[kernel][m.group(1)] += 1
    w = csv.writer(sys.stdout)
    w.writerow(["kernel", "opcode", "count"])
    for k, c in counts.items():
        for op, n in c.most_common():
            w.writerow([k, op, n])


if __name__ == "__main__":
    main()
