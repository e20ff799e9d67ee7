"""Reading an `ncu --page raw --csv` export (plain or .gz): a header row, a units row, one row per
kernel. Shared by the scripts that compare profiled kernels with the model."""
import csv
import gzip

TIME_US = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}
HERTZ = {"hz": 1.0, "Khz": 1e3, "Mhz": 1e6, "Ghz": 1e9}


class Kernel:
    """One profiled kernel: its name, duration, average GPC clock and any metric by name."""

    def __init__(self, name, duration_us, clock_hz, values):
        self.name = name
        self.duration_us = duration_us
        self.clock_hz = clock_hz
        self._values = values

    def value(self, metric):
        return float(self._values[metric].replace(",", ""))


def kernels(path):
    """The kernels of a raw export, in profile order."""
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        rows = list(csv.reader(f))
    header, units = rows[0], rows[1]
    col = {h: i for i, h in enumerate(header)}
    t_unit = TIME_US[units[col["gpu__time_duration.sum"]]]
    hz_unit = HERTZ.get(units[col["gpc__cycles_elapsed.avg.per_second"]], 1.0)
    out = []
    for r in rows[2:]:
        values = dict(zip(header, r))
        k = Kernel(r[col["Kernel Name"]], 0.0, 0.0, values)
        k.duration_us = k.value("gpu__time_duration.sum") * t_unit
        k.clock_hz = k.value("gpc__cycles_elapsed.avg.per_second") * hz_unit
        out.append(k)
    return out
