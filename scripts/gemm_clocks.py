#!/usr/bin/env python3
"""The clock cuBLAS GEMMs run at, and what it says about their rate (issue 15).

Reads validate/data/h200-single/gemm_probe*.csv (validate/torch/gemm_clock.py --shapes: gemm.csv's
shapes through torch, each call behind a gate kernel, the SM clock it ran at by a probe kernel
beside it), gemm_probe_ungated_run38.csv (the same without the gate), gemm_run40.csv (gemm.cu,
cublasGemmEx, on the same machine as gemm_probe.csv) and, when present, gemm_cu_probe.csv
(gemm.cu --probe), and prints:
  1. NVML's clock after each row against the probe's (median, min, max), and what the gate
     takes out of the timed calls;
  2. the spread between the runs, row by row;
  3. the large GEMMs' rate against the probe clock: flops per SM cycle over the datasheet's
     (eta), and the rate of the L2 traffic validate/cases/gemm.yaml's tiling makes (each output
     tile of 128 x 256 reads its A and B panels through L2, no multicast) at l2.bandwidth;
  4. gemm.cu against torch on the same machine, and (gemm_cu_probe.csv) whether their clocks
     explain the difference;
  5. the kernels cuBLAS ran (the `kernels` column, where recorded): tiles and clusters;
  6. ParallelKittens' Table 3 shapes (M = N = 32768), for the paper's H100 numbers.
Parts whose files a folder lacks are left out (validate/data/h100-single has one run).
Nothing is fitted.

  scripts/gemm_clocks.py [--data DIR] [L2_GBPS]
      (default validate/data/h200-single; L2_GBPS: the <gpu>.calibrated preset's l2.bandwidth)
"""
import csv
import math
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARGS = sys.argv[1:]
DATA = ROOT / "validate/data/h200-single"
if ARGS[:1] == ["--data"]:
    DATA, ARGS = ROOT / ARGS[1], ARGS[2:]
GPU = DATA.resolve().name.split("-")[0]  # h200-single -> h200
SMS, PEAK = 132, {"bf16": 4096, "fp8": 8192}  # flops per SM cycle (datasheet, dense)
LARGE = 4096 ** 3  # m x n x k from which a GEMM counts as large


def read(name):
    with open(DATA / name) as f:
        return [r for r in csv.DictReader(line for line in f if not line.startswith("#"))]


def key(r):
    return (int(r["m"]), int(r["n"]), int(r["k"]), r.get("dtype", "bf16"))


def l2_bandwidth():
    if ARGS:
        return float(ARGS[0]) * 1e9
    text = (ROOT / f"models/presets/{GPU}.calibrated.yaml").read_text()
    m = re.search(r"\nl2:\n  bandwidth:\n    value: ([0-9.]+)GB/s", text)
    return float(m.group(1)) * 1e9


def l2_bytes(m, n, k, dtype):
    """validate/cases/gemm.yaml's tiling of a large GEMM (m, n >= 4096: 128 x 256 tiles; the case
    narrows them only for GEMMs of fewer tiles than SMs): each tile reads its A (128 x k) and B
    (256 x k) panels through L2."""
    tiles = math.ceil(m / 128) * math.ceil(n / 256)
    return tiles * (128 + 256) * k * (1 if dtype == "fp8" else 2)


def main():
    # gemm_probe.csv against the other passes of the same program in the folder
    # (gemm_probe_runN.csv), the ungated one aside.
    runs = {"gemm_probe.csv": read("gemm_probe.csv")}
    for f in sorted(DATA.glob("gemm_probe_run*.csv")):
        if "ungated" not in f.name:
            runs[f.name] = read(f.name)
    main_rows = runs["gemm_probe.csv"]
    l2 = l2_bandwidth()

    print(f"1. NVML after the row against the probe beside it ({DATA.name}/gemm_probe.csv)")
    nvml = [float(r["sm_clock_mhz_end"]) for r in main_rows]
    probe = [float(r["sm_clock_probe_mhz_median"]) for r in main_rows]
    print(f"   NVML: {sum(v == 1980 for v in nvml)} of {len(nvml)} rows read 1980 MHz "
          f"(range {min(nvml):.0f}-{max(nvml):.0f}); the probe's median below NVML's on "
          f"{sum(p < v for p, v in zip(probe, nvml))}; probe medians {min(probe):.0f}-{max(probe):.0f}, "
          f"probe minimum per row {min(float(r['sm_clock_probe_mhz_min']) for r in main_rows):.0f}-"
          f"{max(float(r['sm_clock_probe_mhz_min']) for r in main_rows):.0f}, maximum "
          f"{min(float(r['sm_clock_probe_mhz_max']) for r in main_rows):.0f}-"
          f"{max(float(r['sm_clock_probe_mhz_max']) for r in main_rows):.0f} MHz")

    if "gemm_probe_run39.csv" in runs and (DATA / "gemm_probe_ungated_run38.csv").exists():
        ungated = {key(r): float(r["time_us_median"])
                   for r in read("gemm_probe_ungated_run38.csv")}
        gated = {key(r): float(r["time_us_median"])  # run 38's machine
                 for r in runs["gemm_probe_run39.csv"]}
        extra = sorted(ungated[kk] - gated[kk] for kk in gated if gated[kk] < 200)
        print(f"   without the gate (run 38 against run 39, one machine, calls under 200 us): "
              f"{extra[0]:.0f}-{extra[-1]:.0f} us more per call, median "
              f"{statistics.median(extra):.0f}")

    base = {key(r): float(r["time_us_median"]) for r in main_rows}
    mhz = {key(r): float(r["sm_clock_probe_mhz_median"]) for r in main_rows}
    kernel = {key(r): r.get("kernels") for r in main_rows}
    others = [name for name in runs if name != "gemm_probe.csv"]
    if others:
        print("\n2. Spread between runs: each other pass's time over gemm_probe.csv's, same shape "
              "and dtype (rows over 10 % with the probe clock, from -> to)")
    for name in others:
        rows = runs[name]
        d = [float(r["time_us_median"]) / base[key(r)] - 1 for r in rows]
        big = [(r, v) for r, v in zip(rows, d) if abs(v) > 0.10]
        named = [r for r in rows if r.get("kernels") and kernel[key(r)]]
        same = sum(r["kernels"] == kernel[key(r)] for r in named)
        print(f"   {name}: |difference| median {100 * statistics.median(abs(v) for v in d):.1f} %, "
              f"{sum(abs(v) <= 0.05 for v in d)} of {len(d)} rows within 5 %" +
              (f"; the same kernel on {same} of {len(named)} rows" if named else "") +
              "; over 10 %: " +
              ", ".join(f"{m}x{n}x{k} {t} {100 * v:+.0f} % ({mhz[(m, n, k, t)]:.0f} -> "
                        f"{float(r['sm_clock_probe_mhz_median']):.0f} MHz)"
                        for r, v in big for (m, n, k, t) in [key(r)]))

    print("\n3. Large GEMMs (m n k >= 4096^3), gemm_probe.csv: rate against the probe clock")
    print(f"   {'shape':>22} {'dtype':>5} {'MHz':>5} {'min':>5} {'max':>5} {'TFLOP/s':>8} "
          f"{'eta':>6} {'L2-bound TFLOP/s':>17}")
    for dtype in ("bf16", "fp8"):
        etas = []
        for r in main_rows:
            m, n, k, t = key(r)
            if t != dtype or m * n * k < LARGE:
                continue
            sec, f = float(r["time_us_median"]) * 1e-6, float(r["sm_clock_probe_mhz_median"]) * 1e6
            flop = 2 * m * n * k
            eta = flop / sec / (SMS * PEAK[t] * f)
            if k >= 8192 and m * n >= 4096 * 4096:  # long main loops: the summary's rows
                etas.append((f, eta, flop / sec))
            print(f"   {f'{m}x{n}x{k}':>22} {t:>5} {f * 1e-6:5.0f} {r['sm_clock_probe_mhz_min']:>5} "
                  f"{r['sm_clock_probe_mhz_max']:>5} {flop / sec * 1e-12:8.1f} {eta:6.3f} "
                  f"{flop / (l2_bytes(m, n, k, t) / l2) * 1e-12:17.1f}")
        lo = [e for e in etas if e[0] < 1650e6]
        hi = [e for e in etas if e[0] >= 1850e6]
        print(f"   {dtype}, k >= 8192 and m n >= 4096^2: probe clock < 1650 MHz: {len(lo)} rows, eta {min(e[1] for e in lo):.3f}-"
              f"{max(e[1] for e in lo):.3f}, {min(e[2] for e in lo) * 1e-12:.0f}-"
              f"{max(e[2] for e in lo) * 1e-12:.0f} TFLOP/s; >= 1850 MHz: {len(hi)} rows, eta "
              f"{min(e[1] for e in hi):.3f}-{max(e[1] for e in hi):.3f}, "
              f"{min(e[2] for e in hi) * 1e-12:.0f}-{max(e[2] for e in hi) * 1e-12:.0f} TFLOP/s")
    print(f"   (L2-bound: the tiling's L2 bytes at l2.bandwidth = {l2 * 1e-9:.1f} GB/s)")

    cu_file = "gemm_run40.csv" if (DATA / "gemm_run40.csv").exists() else "gemm_cu_probe.csv"
    print(f"\n4. gemm.cu (cublasGemmEx, {cu_file}) against torch (gemm_probe.csv), bf16, "
          "same machine")
    cu = {key(r): float(r["time_us_median"]) for r in read(cu_file)}
    ratios = [(kk, cu[kk] / base[kk]) for kk in cu if kk in base and kk[0] * kk[1] * kk[2] >= LARGE]
    print(f"   large shapes: gemm.cu / torch {min(v for _, v in ratios):.3f}-"
          f"{max(v for _, v in ratios):.3f}, median {statistics.median(v for _, v in ratios):.3f} "
          f"over {len(ratios)} shapes; 8192^3: {cu[(8192, 8192, 8192, 'bf16')]:.1f} against "
          f"{base[(8192, 8192, 8192, 'bf16')]:.1f} us")
    if (DATA / "gemm_cu_probe.csv").exists():
        rows = read("gemm_cu_probe.csv")
        torch_mhz = {key(r): float(r["sm_clock_probe_mhz_median"]) for r in main_rows}
        by_clock = [float(r["time_us_median"]) / base[key(r)] /
                    (torch_mhz[key(r)] / float(r["sm_clock_probe_mhz_median"]))
                    for r in rows if key(r) in base and math.prod(key(r)[:3]) >= LARGE]
        print(f"   gemm_cu_probe.csv: gemm.cu / torch time over torch / gemm.cu probe clock, large "
              f"shapes: {min(by_clock):.3f}-{max(by_clock):.3f}, median "
              f"{statistics.median(by_clock):.3f} (1: the clock explains the difference)")
        print("   gemm_cu_probe.csv (gemm.cu --probe): shape, time, probe MHz median/min/max, eta")
        for r in rows:
            m, n, k, t = key(r)
            if m * n * k < LARGE:
                continue
            sec, f = float(r["time_us_median"]) * 1e-6, float(r["sm_clock_probe_mhz_median"]) * 1e6
            print(f"   {f'{m}x{n}x{k}':>22} {sec * 1e6:10.1f} {f * 1e-6:5.0f} "
                  f"{r['sm_clock_probe_mhz_min']:>5} {r['sm_clock_probe_mhz_max']:>5} "
                  f"{2 * m * n * k / sec / (SMS * PEAK[t] * f):6.3f}")

    if "kernels" in main_rows[0]:
        print("\n5. The kernels cuBLAS ran (gemm_probe.csv's `kernels`: nvjet_sm90_..._TMxTN_KTxST_"
              "CMxCN_...)")
        shape = re.compile(r"_(\d+)x(\d+)_(\d+)x(\d+)_(\d+)x(\d+)_")
        for dtype in ("bf16", "fp8"):
            names = [re.search(shape, r["kernels"]) for r in main_rows if r["dtype"] == dtype]
            clustered = sum(int(g[5]) * int(g[6]) > 1 for g in names if g)
            tiles = sorted({f"{g[1]}x{g[2]}" for g in names if g})
            print(f"   {dtype}: {len(names)} rows, {clustered} in clusters of 2 CTAs, "
                  f"{sum(g is None for g in names)} unnamed; tiles {', '.join(tiles)}")

    # ParallelKittens' Table 3 shapes (M = N = 32768, bf16, K = 512 ... 8192; docs/VALIDATION.md)
    pk = [(32768, 32768, k, "bf16") for k in (512, 1024, 2048, 4096, 8192)]
    if all(kk in base for kk in pk):
        print("\n6. ParallelKittens' Table 3 shapes (M = N = 32768, bf16), ms: torch gated (probe MHz)"
              + (", gemm.cu" if all(kk in cu for kk in pk) else ""))
        mhz = {key(r): float(r["sm_clock_probe_mhz_median"]) for r in main_rows}
        for kk in pk:
            extra = f"  {cu[kk] * 1e-3:7.3f}" if kk in cu else ""
            print(f"   K = {kk[2]:5d}: {base[kk] * 1e-3:7.3f} ({mhz[kk]:.0f}){extra}")


if __name__ == "__main__":
    main()
