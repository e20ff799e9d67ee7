#!/usr/bin/env python3
"""Fits the power model's duty terms (docs/model.md "Power duty") on committed microbenchmarks.

The "power" clock model holds a kernel's clock x power duty at a constant K where a power limit
binds. The power duty is the wgmma tensor duty, plus mma.sync tensor duty x w, plus SIMT/SFU duty
x s, plus HBM TB/s x eta / clock. In product units (MHz), a load at the steady (slow) limit obeys

    f * (d_wgmma + w d_mma + s d_simt) + eta * TB/s = K.

Four steady loads at the 700 W limit fix K, w, s and eta (all from NVML-capped phases whose
clocks were read in-kernel, clock64 over %globaltimer):

  GEMM      cuBLASLt 8192^3 bf16 back to back (traces/h200/calibration.csv): f x d_wgmma from its
            steady throughput (658.8 TFLOP/s / (4096 FLOP/clk x 132 SMs)); its SIMT cycles and HBM
            bytes from the model's replay of its kernel (tgsim gemm ... --json), over the
            measured time.
  mma_rnd   16 mma.sync + 2 ldmatrix.x4 per warp, 8 warps per SM, random operands
            (traces/h200/calibration_pipe_power_hbm.csv): steady effective clock 1744 MHz.
  mma_hbm   the same with 256 threads per SM streaming HBM beside it: 1679 MHz, 1.030 TB/s.
  fa2mix_hbm  5 ldmatrix.x4 + 16 mma.sync + 4 ex2 + 22 FFMA per warp, with the HBM stream:
            1759 MHz, 0.959 TB/s.

and a fifth checks them: fa2mix (the same mix without the stream) ran at its 1810 MHz ceiling at
680 W, just below the limit, so its product must come out just below K.

Tensor duties are against each instruction's own rate (mma.sync m16n8k16: 2730 FLOP/clk/SM,
tensor.flops_per_cycle.mma_sync.bf16); SIMT duty counts each sub-partition's timeline as the
model does (an FFMA warp instruction 1 cycle on its 32 lanes, an ex2 8 cycles on its 4 SFU lanes).

Usage: python3 tools/bench/power_duty_fit.py [path/to/tgsim]   (default build/tools/tgsim/tgsim)
"""
import json
import os
import subprocess
import sys

from power_watts_fit import lstsq, rows_of  # the committed-CSV reader and the linear solver

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SMS = 132
MMA_SYNC_FLOP_PER_CLK = 2730.0   # per SM, bf16 m16n8k16 (configs/gpus/h200.json)
WGMMA_FLOP_PER_CLK = 4096.0      # per SM, bf16 dense
GEMM_KERNEL = "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_TNT"  # 8192^3 bf16 TN (gemm_settled.csv)


def main():
    tgsim = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/tools/tgsim/tgsim")
    cal = rows_of("calibration.csv")
    hbm = rows_of("calibration_pipe_power_hbm.csv")

    # GEMM anchor: f x d_wgmma from throughput; SIMT cycles and HBM bytes from the model's kernel.
    t_gemm = 2.0 * 8192**3 / (cal["throughput_gemm_bf16_steady"] * 1e12)  # s per GEMM
    prod_gemm = cal["throughput_gemm_bf16_steady"] * 1e12 / (WGMMA_FLOP_PER_CLK * SMS) / 1e6  # MHz
    # The model's kernel at a constant clock, for its SIMT cycles and HBM bytes.
    out = subprocess.run([tgsim, "gemm", "--gpu", "h200", "--m", "8192", "--n", "8192", "--k", "8192",
                          "--dtype", "bf16", "--kernel", GEMM_KERNEL, "--json", "--set", "clock.model=constant"],
                         check=True, capture_output=True, text=True).stdout
    k = json.loads(out)["kernels"][0]
    t_model = k["duration_us"] * 1e-6
    simt_cycles = k["simt_utilisation"] * t_model * k["sm_clock_mhz"] * 1e6  # per SM
    simt_prod = simt_cycles / t_gemm / 1e6  # MHz x SIMT duty at the measured time
    tbps_gemm = k["hbm_bytes"] / t_gemm / 1e12

    def mix(name):
        f = hbm[f"effective_sm_clock_{name}_steady"]
        cyc = hbm[f"cycles_per_iter_{name}"]
        d_mma = 16 * 4096.0 * 8 / cyc / MMA_SYNC_FLOP_PER_CLK  # 16 m16n8k16 per warp, 8 warps
        fa2 = name.startswith("fa2mix")
        d_simt = (2 * 22 * 1) / cyc if fa2 else 0.0  # 2 warps per sub-partition; FFMA only (ex2: SFU)
        tb = hbm.get(f"hbm_gbps_{name}_steady", 0.0) / 1000.0
        return f, d_mma, d_simt, tb

    rows, rhs, names = [], [], []
    # unknowns: K, w (mma.sync weight), s (SIMT weight), eta (MHz per TB/s); each row: terms - K = -known
    rows.append([-1.0, 0.0, simt_prod, tbps_gemm]); rhs.append(-prod_gemm); names.append("GEMM 8192^3 bf16")
    for n in ("mma_rnd", "mma_hbm", "fa2mix_hbm"):
        f, dm, ds, tb = mix(n)
        rows.append([-1.0, f * dm, f * ds, tb]); rhs.append(0.0); names.append(n)
    K, w, s, eta = lstsq(rows, rhs)
    print(f"GEMM anchor: f x d_wgmma {prod_gemm:.1f} MHz, SIMT product {simt_prod:.1f} MHz, HBM {tbps_gemm:.3f} TB/s "
          f"(model: {k['hbm_bytes'] / 1e9:.3f} GB per GEMM)")
    for n in ("mma_rnd", "mma_hbm", "fa2mix_hbm", "fa2mix_rnd"):
        f, dm, ds, tb = mix(n)
        print(f"  {n:<11} f {f:6.0f} MHz  d_mma {dm:.4f}  d_simt {ds:.4f}  HBM {tb:.3f} TB/s")
    print(f"K (sustained product)       {K:8.1f} MHz   (clock.sustained_tensor; 1218.6 without the terms)")
    print(f"w (power_weight_mma_sync)   {w:8.4f}")
    print(f"s (power_weight_simt)       {s:8.4f}")
    print(f"eta (power_per_hbm_tbps)    {eta:8.1f} MHz per TB/s")
    ratio = 1443.0 / 1219.0  # clock.short_term_tensor / clock.sustained_tensor (configs/gpus/h200.json)
    print(f"short-term product K x {ratio:.4f} (the spec's first-50-ms over steady ratio) = {K * ratio:.1f} MHz "
          "(clock.short_term_tensor)")
    f, dm, ds, tb = mix("fa2mix_rnd")
    p = f * (w * dm + s * ds) + eta * tb
    print(f"check: fa2mix at its {f:.0f} MHz ceiling, 680 W (limit 691-700 W): product {p:.1f} MHz = "
          f"{p / K:.3f} K (must be just below 1)")


if __name__ == "__main__":
    main()
