"""Helpers shared by the PyTorch capture scripts of tools/bench (no torch needed to import)."""


def strip_kernel_name(name):
    """'void ns::k<a, b>(P, Q)' -> 'ns::k<a, b>' (keeps template arguments)."""
    n = name.strip()
    if n.startswith("void "):
        n = n[5:]
    if n.endswith(")"):
        depth = 0
        for i in range(len(n) - 1, -1, -1):
            ch = n[i]
            if ch == ")":
                depth += 1
            elif ch == "(":
                depth -= 1
                if depth == 0:
                    # only strip if this '(' is not inside template brackets
                    if n[:i].count("<") == n[:i].count(">"):
                        n = n[:i]
                    break
    return n.strip()


def kernels_per_call(prof, opens_call):
    """The CUDA kernels of a torch.profiler run split into calls: a kernel for which
    `opens_call(name)` is true (the flush or marker run before each call) starts a new call and is
    not kept. Returns a list per call of (name, duration in us), in time order; empty calls dropped."""
    events = sorted((e for e in prof.events() if e.device_type.name == "CUDA"), key=lambda e: e.time_range.start)
    calls, cur = [], None
    for e in events:
        name = strip_kernel_name(e.name)
        if opens_call(name):
            if cur is None or cur:
                cur = []
                calls.append(cur)
            continue
        if cur is not None:
            cur.append((name, e.time_range.elapsed_us()))
    return [c for c in calls if c]


def median_per_kernel(calls):
    """(kernel index, name of the first call's kernel, median duration in us, calls) for each
    kernel position that every call has."""
    import statistics
    n_k = min(len(c) for c in calls) if calls else 0
    return [(i, calls[0][i][0], statistics.median(c[i][1] for c in calls), len(calls)) for i in range(n_k)]


def write_rows(path, rows):
    """Writes a list of dicts as a CSV with the first row's keys as the header."""
    import csv
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)

