#!/usr/bin/env python3
"""cuBLAS's issue efficiency on the clock a GEMM ran at: eta = flops per SM cycle / the
datasheet's 4096 (bf16 wgmma), from gemm.cu run with the clock probe beside each call
(gemm_cu_probe.csv: sm_clock_probe_mhz_median) against gemm.csv's rows of the same shapes on the
clock NVML read after the call (sm_clock_mhz_end). Large shapes only (M >= 8192, N and K >= 4096),
where neither L2 nor tile quantisation binds. Nothing is fitted (docs/VALIDATION.md, "The clock a
GEMM runs at").

  scripts/gemm_eta.py [PROBE_CSV] [GEMM_CSV]
      (default validate/data/h200-single/run41/gemm_cu_probe.csv validate/data/h200/gemm.csv)
"""
import sys
from pathlib import Path

from power_model import FLOPS_PER_CYCLE, ROOT, meta, rows  # the same readers of a data file


def eta(tflops, mhz, sms):
    return tflops * 1e12 / (sms * FLOPS_PER_CYCLE * mhz * 1e6)


def main():
    probe_csv = Path(sys.argv[1]) if len(sys.argv) > 1 else \
        ROOT / "validate/data/h200-single/run41/gemm_cu_probe.csv"
    gemm_csv = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "validate/data/h200/gemm.csv"
    sms = int(meta(gemm_csv, "gpu0_sm_count"))
    nvml = {(r["m"], r["n"], r["k"]): r for r in rows(gemm_csv)}
    print(f"{'m x n x k':>20} {'probe MHz':>9} {'eta':>6}   {'NVML MHz':>8} {'eta':>6}")
    on_probe, on_nvml = [], []
    for r in rows(probe_csv):
        m, n, k = int(r["m"]), int(r["n"]), int(r["k"])
        o = nvml.get((r["m"], r["n"], r["k"]))
        if m < 8192 or n < 4096 or k < 4096 or o is None:
            continue
        p = float(r["sm_clock_probe_mhz_median"])
        e1 = eta(float(r["tflops_median"]), p, sms)
        f = float(o["sm_clock_mhz_end"])
        e2 = eta(float(o["tflops_median"]), f, sms)
        on_probe.append(e1)
        on_nvml.append(e2)
        print(f"{m:>7} x {n:>5} x {k:>5} {p:>9.0f} {e1:>6.3f}   {f:>8.0f} {e2:>6.3f}")
    print(f"{len(on_probe)} shapes: eta {min(on_probe):.2f}-{max(on_probe):.2f} on the probe's "
          f"clock, {min(on_nvml):.2f}-{max(on_nvml):.2f} on NVML's")


if __name__ == "__main__":
    main()
