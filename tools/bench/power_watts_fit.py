#!/usr/bin/env python3
"""Least-squares fit of board power (NVML watts) against each pipe's activity, over every
committed calib_pipe_power phase that has an in-kernel clock (docs/model.md "Power duty: tried,
not adopted", where this fit is discussed; not used by the model).

Each phase's steady row gives W (NVML power, 1 s average, median over the steady window), f (the
clock the SMs ran at: clock64 / %globaltimer) and cycles per loop iteration, from which each pipe's
duty follows from the phase's instruction mix (tools/bench/calib_pipe_power.cu, mix_kernel.h):

    W = c0 + c_f f + f (a_fix d_mma_fixed + a_a d_mma_A_random + a_rnd d_mma_random
                       + a_wg d_wgmma + b d_fma + g d_sfu + s d_smem + l d_l2) + h TB/s_HBM

with f in GHz. Duties per SM: mma.sync against 2730 FLOP/clk (m16n8k16), wgmma against 4096,
FFMA and SFU per sub-partition timeline (FFMA 1 cycle per warp instruction, ex2 8), shared memory
(ldmatrix.x4: 512 B; smem_read) against 128 B/clk, L2 against 64 B/clk per SM. The three
mma.sync weights separate operands held in fixed registers, A loaded by ldmatrix (B fixed), and
both loaded (random bits toggling every cycle).

With --model TGSIM it then applies the fitted weights to the model's own duties for the four
kernels whose long runs were measured at the power cap (attention_power*.csv; kernel names from
attention_settled.csv): the board power each would draw at the clock the model runs it at now
(tgsim attention --json: tensor and SIMT utilisation, shared-memory and L2 utilisation, HBM bytes;
SIMT taken as FFMA, SFU left out).

Usage: python3 tools/bench/power_watts_fit.py [--model path/to/tgsim]
"""
import csv
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILES = ["calibration_pipe_power_rnd.csv", "calibration_pipe_power_rnd_warm.csv", "calibration_pipe_power_duty.csv",
         "calibration_pipe_power_duty_wgmma.csv", "calibration_pipe_power_duty_wgmma2.csv",
         "calibration_pipe_power_hbm.csv"]
# name: (ldmatrix.x4 L, mma.sync M, ex2 E, FFMA F, operands) per warp and iteration, 8 warps per SM
MIX = {
    "mma": (0, 16, 0, 0, "fix"), "fma": (0, 0, 0, 22, "fix"), "ex2": (0, 0, 4, 0, "fix"),
    "mma_fma": (0, 16, 0, 22, "fix"), "mma_ex2": (0, 16, 4, 0, "fix"), "ldsm_mma": (5, 16, 0, 0, "a"),
    "fa2mix": (5, 16, 4, 22, "a"), "ldsm2_mma": (2, 16, 0, 0, "a"), "mma_rnd": (2, 16, 0, 0, "rnd"),
    "mma_fma_rnd": (2, 16, 0, 22, "rnd"), "mma_ex2_rnd": (2, 16, 4, 0, "rnd"), "ldsm_mma_rnd": (5, 16, 0, 0, "rnd"),
    "fa2mix_rnd": (5, 16, 4, 22, "rnd"), "mma_d50": (0, 4, 0, 44, "fix"), "mma_d25": (0, 2, 0, 44, "fix"),
    "mma_d12": (0, 2, 0, 88, "fix"), "mma_d03": (0, 1, 0, 176, "fix"), "fma88": (0, 0, 0, 88, "fix"),
    "fa2mix_hbm": (5, 16, 4, 22, "rnd"), "mma_hbm": (2, 16, 0, 0, "rnd"),
}
WGMMA_FILL = {"wgmma_d25": 384, "wgmma_d10": 1152, "wgmma_f192": 192, "wgmma_f768": 768, "wgmma_f2304": 2304}
TERMS = ["c0", "c_f", "a_fix", "a_a", "a_rnd", "a_wg", "b_fma", "g_sfu", "s_smem", "l_l2", "h_hbm"]


def rows_of(path):
    out = {}
    with open(os.path.join(ROOT, "traces/h200", path), newline="") as f:
        for r in csv.DictReader(f):
            try:
                out[r["quantity"]] = float(r["value"])
            except ValueError:
                pass
    return out


def phases():
    for fn in FILES:
        q = rows_of(fn)
        for key in q:
            if not key.startswith("power_") or not key.endswith("_steady"):
                continue
            name = key[len("power_"):-len("_steady")]
            f = q.get(f"effective_sm_clock_{name}_steady")
            if f is None:
                continue
            w, ghz = q[key], f / 1000.0
            tb = q.get(f"hbm_gbps_{name}_steady", 0.0) / 1000.0
            x = dict.fromkeys(TERMS, 0.0)
            x["c0"], x["c_f"], x["h_hbm"] = 1.0, ghz, tb
            l2 = tb * 1e12 / 132 / (f * 1e6) / 64.0  # HBM reads pass through L2
            if name in MIX:
                L, M, E, F, ops = MIX[name]
                cyc = q[f"cycles_per_iter_{name}"]
                x[{"fix": "a_fix", "a": "a_a", "rnd": "a_rnd"}[ops]] = ghz * M * 8 * 4096 / 2730.0 / cyc
                x["b_fma"] = ghz * 2 * F / cyc
                x["g_sfu"] = ghz * 2 * E * 8 / cyc
                x["s_smem"] = ghz * 8 * L * 512 / 128.0 / cyc
            elif name in WGMMA_FILL:
                cyc = q[f"cycles_per_iter_{name}"]
                x["a_wg"] = ghz * 256.0 / cyc
                x["b_fma"] = ghz * 2 * WGMMA_FILL[name] / cyc
            elif name == "wgmma_bf16":
                x["a_wg"] = ghz * 1.0
            elif name == "l2_read":
                l2 += q[f"bytes_per_clk_{name}"] / 64.0
            elif name == "smem_read":
                x["s_smem"] = ghz * q[f"bytes_per_clk_{name}"] / 128.0
            elif name == "hbm_read":
                pass
            else:
                continue  # fp8 wgmma: another weight
            x["l_l2"] = ghz * l2
            yield fn, name, w, f, x


def lstsq(a, b):
    n = len(a[0])
    ata = [[sum(r[i] * r[j] for r in a) for j in range(n)] for i in range(n)]
    atb = [sum(r[i] * y for r, y in zip(a, b)) for i in range(n)]
    for i in range(n):
        ata[i][i] += 1e-9
    m = [row[:] + [atb[i]] for i, row in enumerate(ata)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[c][c] != 0:
                k = m[r][c] / m[c][c]
                m[r] = [u - k * v for u, v in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] if m[i][i] != 0 else 0.0 for i in range(n)]


def fit():
    """The weights with c0 fixed at the measured idle power (calibration_power.csv power_idle)."""
    data = list(phases())
    c0 = rows_of("calibration_power.csv")["power_idle"]
    terms = TERMS[1:]
    a = [[d[4][t] for t in terms] for d in data]
    coef = lstsq(a, [d[2] - c0 for d in data])
    w = dict(zip(terms, coef))
    w["c0"] = c0
    return data, w


def spec_terms(w):
    """The weights as the power model's optional clock fields (ratios to the wgmma weight)."""
    wg = w["a_wg"]
    return [f"clock.power_weight_mma_sync={w['a_rnd'] / wg:.4f}", f"clock.power_weight_simt={w['b_fma'] / wg:.4f}",
            f"clock.power_weight_smem={w['s_smem'] / wg:.4f}", f"clock.power_weight_l2={w['l_l2'] / wg:.4f}",
            f"clock.power_weight_clock={w['c_f'] / wg:.4f}", f"clock.power_per_hbm_tbps={w['h_hbm'] / wg * 1000:.1f}MHz"]


def main():
    data, w = fit()
    print(f"{len(data)} phases; c0 = idle power {w['c0']:.1f} W (calibration_power.csv); weights "
          "(W per GHz, W per GHz x duty, W per TB/s):")
    for t in TERMS[1:]:
        print(f"  {t:<7} {w[t]:9.1f}")
    print("phase                              measured W  fitted W   clock MHz")
    sq = 0.0
    for fn, name, watts, f, x in data:
        p = sum(w[t] * x[t] for t in TERMS)
        sq += (p - watts) ** 2
        print(f"  {fn[len('calibration_pipe_power_'):-4]:<10} {name:<14} {watts:10.1f} {p:9.1f} {f:9.0f}")
    print(f"rms residual {(sq / len(data)) ** 0.5:.1f} W")
    print("as the power model's optional fields: --set " + " --set ".join(spec_terms(w)))
    if len(sys.argv) > 2 and sys.argv[1] == "--model":
        model_kernels(sys.argv[2], w)
        anchors(sys.argv[2], w)


def anchors(tgsim, w):
    """clock.sustained_tensor(_fp8) re-derived with the terms: the calibration GEMM's clock x power
    duty at its steady throughput (calibration.csv), the model's kernel replayed at that clock."""
    cal = rows_of("calibration.csv")
    for dt, kernel, flop_clk, field in (("bf16", "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_TNT", 4096, "sustained_tensor"),
                                        ("fp8_e4m3", "nvjet_sm90_qqtst_144x128_128x6_1x2_h_bz_coopA_algo2_TNN", 8192,
                                         "sustained_tensor_fp8")):
        name = "bf16" if dt == "bf16" else "fp8"
        product = cal[f"throughput_gemm_{name}_steady"] * 1e12 / (flop_clk * 132) / 1e6  # MHz x tensor duty
        d = 0.96  # tensor duty of the model's kernel (about; refined below)
        for _ in range(2):
            f = product / d
            cmd = [tgsim, "gemm", "--gpu", "h200", "--m", "8192", "--n", "8192", "--k", "8192", "--dtype", dt,
                   "--kernel", kernel, "--json", "--set", "clock.model=constant", "--set", "clock.base=500MHz",
                   "--set", "clock.sustained_tensor=500MHz", "--set", "clock.sustained_tensor_fp8=500MHz",
                   "--set", f"clock.boost={f:.1f}MHz"]
            for t in spec_terms(w):
                cmd += ["--set", t]
            k = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)["kernels"][0]
            d = k["tensor_utilisation"]
        print(f"clock.{field}: {product:.1f} MHz x power duty / tensor duty ({k['power_duty']:.3f} / {d:.3f}) = "
              f"{product * k['power_duty'] / d:.1f} MHz")


# (backend, batch, heads, heads_kv, seq_q, seq_kv, d, measured per call at the cap with the flush,
# NVML clock there) from attention_power.csv / attention_power_long.csv
LONG_RUNS = [("flash", 4, 16, 16, 4096, 4096, 128, "1696 us, 1890 MHz NVML"),
             ("cudnn", 4, 16, 16, 4096, 4096, 128, "1011 us, 1665 MHz NVML"),
             ("cudnn", 4, 32, 32, 4096, 4096, 64, "1321 us, 1830 MHz NVML"),
             ("flash", 128, 32, 8, 1, 8192, 128, "~1930 us, 1680 MHz NVML")]


def model_kernels(tgsim, w):
    with open(os.path.join(ROOT, "traces/h200/attention_settled.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    print("model duties at the model's clock -> fitted board power (W)")
    for be, b, h, hk, sq, skv, d, measured in LONG_RUNS:
        r = next(r for r in rows if r["backend"] == be and int(r["batch"]) == b and int(r["heads"]) == h
                 and int(r["heads_kv"]) == hk and int(r["seq_q"]) == sq and int(r["seq_kv"]) == skv
                 and int(r["head_dim"]) == d and r["causal"] == "0")
        out = subprocess.run([tgsim, "attention", "--gpu", "h200", "--batch", str(b), "--heads", str(h),
                              "--heads-kv", str(hk), "--seq-q", str(sq), "--seq-kv", str(skv), "--head-dim", str(d),
                              "--kernel", r["kernel"], "--json"], check=True, capture_output=True, text=True).stdout
        j = json.loads(out)
        k = max(j["kernels"], key=lambda k: k["duration_us"])
        t = k["duration_us"] * 1e-6
        ghz = k["sm_clock_mhz"] / 1000.0
        res = j["resources"]
        wgmma = "sm90" in r["kernel"] and "wgmma" in r["kernel"]
        tb = k["hbm_bytes"] / t / 1e12
        l2 = res["l2"]["bytes"] / t / 132 / (ghz * 1e9) / 64.0
        p = (w["c0"] + w["c_f"] * ghz + ghz * ((w["a_wg"] if wgmma else w["a_rnd"]) * k["tensor_utilisation"]
             + w["b_fma"] * k["simt_utilisation"] + w["s_smem"] * res["smem"]["utilisation"] + w["l_l2"] * l2)
             + w["h_hbm"] * tb)
        print(f"  {be:<5} b{b} h{h}/{hk} {sq}x{skv} d{d}: {k['sm_clock_mhz']:.0f} MHz, tensor {k['tensor_utilisation']:.2f}, "
              f"SIMT {k['simt_utilisation']:.2f}, smem {res['smem']['utilisation']:.2f}, L2 {l2 * 64:.1f} B/clk/SM, "
              f"HBM {tb:.2f} TB/s -> {p:.0f} W (measured at the cap: {measured})")


if __name__ == "__main__":
    main()
