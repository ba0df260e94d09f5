#!/usr/bin/env python3
"""Checks a power-cap model of the SM clock against validate/data/h200-single/power*.csv (or
another GPU's folder: validate/data/h100-single).

The model (issue 15, not yet in the simulator): board power = P0 + E(f) x flop rate + H x HBM
byte rate, with the tensor cores' energy per flop E(f) = E_max x (f / f_max)^2 (dynamic energy
goes with the voltage squared, and on the DVFS curve the voltage goes with the clock), and the
flop rate = eta x SMs x 4096 flops per cycle x f. Under the cap the governor lowers f until the
power is the cap. Fitted here, each from one family of rows:
  P0, E_max  least squares of power on flop rate over the `gemm_on_sms` rows below the cap
             (clock at its maximum, no cap reason);
  eta        per shape, from its own sustained rate and clock (the kernel's issue efficiency);
  H          the `copy` row: (power - P0) / bytes per second;
  tau        the median over power_ramp.csv's shapes (below).
Predicted, not fitted: each full-GPU GEMM's clock under the cap (from its eta), the two
`gemm_beside_copy` rows' clock (their copy rate as measured), and from power_ramp.csv the time
constant of the governor's power average: the boost lasts while an average of the power over a
window tau stays below the cap.

  scripts/power_model.py [DATA_DIR]     (default validate/data/h200-single)
"""
import csv
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLOPS_PER_CYCLE = 4096  # bf16 dense per SM per cycle, Hopper (models/presets/h200.yaml)


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def meta(path, key):
    with open(path) as f:
        for line in f:
            if line.startswith(f"# {key}:"):
                return line.split(":", 1)[1].strip()
    raise SystemExit(f"{path}: no '{key}' metadata")


def least_squares(xs, ys):
    """(intercept, slope) of the least-squares line y = a + b x."""
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def on_probe(power, below, ys, cap, sms, f_max):
    """The same law on the probe's clocks: the fit with each row's energy at its probed clock
    (rate x (f / f_max)^2), the law's clock for each sustained GEMM against the probe's, and the
    exponent a of E(f) = E_max (f / f_max)^a that would put the law's clock on the probe's (the
    GEMMs' own HBM traffic left out, as in the table above)."""
    p0, e_max = least_squares([float(r["gemm_tflops"]) * (float(r["sm_mhz_probe_median"]) / f_max)
                               ** 2 for r in below], ys)
    print(f"\non the probe's clocks: P0 = {p0:.1f} W, E_max = {e_max:.3f} pJ/flop; sustained GEMMs:")
    print(f"{'shape':>22}{'eta':>7}{'probe':>7}{'f model':>9}{'error':>8}{'exponent':>10}")
    for r in power:
        if r["case"] != "gemm" or int(r["gemm_sms"]) != sms:
            continue
        f = float(r["sm_mhz_probe_median"])
        eta = float(r["gemm_tflops"]) * 1e12 / (sms * FLOPS_PER_CYCLE * f * 1e6)
        rate_at_max = eta * sms * FLOPS_PER_CYCLE * f_max * 1e6 / 1e12
        x = solve_clock(cap, p0, e_max, rate_at_max, 0.0)
        # At the probe's clock the power is the cap: x^(1 + a) = (cap - P0) / (E_max rate_at_max).
        a = math.log((cap - p0) / (e_max * rate_at_max)) / math.log(f / f_max) - 1
        print(f"{r['m'] + 'x' + r['n'] + 'x' + r['k']:>22}{eta:>7.3f}{f:>7.0f}{x * f_max:>9.0f}"
              f"{(x * f_max / f - 1) * 100:>+7.1f}%{a:>10.2f}")


def window_from_ramp(data, cap, idle, p0, e_max):
    """The governor's time constant from power_ramp.csv (the median over its shapes), or None
    when the folder has no ramp."""
    if not (data / "power_ramp.csv").exists():
        print("\nno power_ramp.csv: the window is not fitted")
        return None
    ramp = rows(data / "power_ramp.csv")
    print("\nramp from a cool start: boost (rate above the mean of boost and settled rates) lasts")
    shapes, taus = [], []
    for r in ramp:
        key = (r["m"], r["n"], r["k"])
        if key not in shapes:
            shapes.append(key)
    for key in shapes:
        pts = [(float(r["t_start_us"]) * 1e-3, float(r["tflops"])) for r in ramp
               if (r["m"], r["n"], r["k"]) == key]
        boost = sorted(t for s, t in pts if s < 20)[len([1 for s, _ in pts if s < 20]) // 2]
        settled = sorted(t for s, t in pts if 150 <= s < 600)
        settled = settled[len(settled) // 2]
        mid = (boost + settled) / 2
        t_b = next(s for s, t in pts if s > 5 and t < mid)
        # The power at boost from the model (clock at its maximum), against the cap: an average
        # over tau rising from idle reaches the cap after t_b = -tau ln(1 - (cap - idle) / (P - idle)).
        p_boost = p0 + e_max * boost
        tau = -t_b / math.log(1 - (cap - idle) / (p_boost - idle))
        taus.append(tau)
        print(f"  {'x'.join(key):>16}: {boost:5.0f} TFLOP/s for {t_b:4.0f} ms, then {settled:4.0f}; "
              f"model power at boost {p_boost:4.0f} W -> tau {tau:3.0f} ms")

    taus.sort()
    window = (taus[(len(taus) - 1) // 2] + taus[len(taus) // 2]) / 2
    return window


def solve_clock(cap, p0, e_max, rate_at_max, other):
    """x = f / f_max with p0 + other + e_max x^2 x rate_at_max x = cap, at most 1."""
    x = ((cap - p0 - other) / (e_max * rate_at_max)) ** (1 / 3)
    return min(x, 1.0)


def main():
    data = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "validate/data/h200-single"
    power = rows(data / "power.csv")
    cap = float(meta(data / "power.csv", "power_limit_w"))
    sms = int(meta(data / "power.csv", "gpu0_sm_count"))
    f_max = float(meta(data / "power.csv", "gpu0_sm_clock_mhz_max"))

    below = [r for r in power if r["case"] == "gemm_on_sms" and r["reasons_or"] == "0x0"]
    ys = [float(r["power_w_energy"]) for r in below]
    n = len(ys)
    # W; e_max in W per TFLOP/s = pJ per flop
    p0, e_max = least_squares([float(r["gemm_tflops"]) for r in below], ys)
    idle = next(float(r["power_w_energy"]) for r in power if r["case"] == "idle")
    copy = next(r for r in power if r["case"] == "copy")
    h = (float(copy["power_w_energy"]) - p0) / float(copy["copy_gbps"])  # W per GB/s = pJ/B x 1e3
    print(f"fit over {n} gemm_on_sms rows below the cap at {f_max:.0f} MHz: "
          f"P0 = {p0:.1f} W (idle {idle:.1f}), E_max = {e_max:.3f} pJ/flop; "
          f"copy: H = {h * 1e3:.1f} pJ/B")

    # The clock probe beside each batch (power.cu's sm_mhz_probe_* columns), where a file has it: the
    # clock the SMs ran at, which NVML's samples overstate under the cap (docs/VALIDATION.md).
    probe = "sm_mhz_probe_median" in power[0]
    if probe:
        below_probe = [float(r["sm_mhz_probe_median"]) for r in below]
        print(f"probe: the gemm_on_sms rows below the cap ran at {min(below_probe):.0f}-"
              f"{max(below_probe):.0f} MHz (NVML {f_max:.0f})")
    print(f"\n{'case':<18}{'shape':>22}{'eta':>7}{'f meas':>8}{'f model':>9}{'error':>8}"
          + (f"{'probe':>7}{'NVML/probe':>11}" if probe else ""))
    for r in power:
        if r["case"] not in ("gemm", "gemm_beside_copy") or int(r["gemm_sms"]) != sms:
            continue
        f = float(r["sm_mhz_median"])
        tflops = float(r["gemm_tflops"])
        eta = tflops * 1e12 / (sms * FLOPS_PER_CYCLE * f * 1e6)
        rate_at_max = eta * sms * FLOPS_PER_CYCLE * f_max * 1e6 / 1e12  # TFLOP/s at f_max
        other = h * float(r["copy_gbps"]) if r["case"] == "gemm_beside_copy" else 0.0
        x = solve_clock(cap, p0, e_max, rate_at_max, other)
        shape = f"{r['m']}x{r['n']}x{r['k']}" + (f"+copy{r['copy_ctas']}" if other else "")
        print(f"{r['case']:<18}{shape:>22}{eta:>7.3f}{f:>8.0f}{x * f_max:>9.0f}"
              f"{(x * f_max / f - 1) * 100:>+7.1f}%"
              + (f"{float(r['sm_mhz_probe_median']):>7.0f}"
                 f"{(f / float(r['sm_mhz_probe_median']) - 1) * 100:>+10.1f}%" if probe else ""))

    if probe:
        on_probe(power, below, ys, cap, sms, f_max)

    window = window_from_ramp(data, cap, idle, p0, e_max)
    # The GPU's folder: h200-single -> h200, also for a run's folder inside it (h200-single/run42).
    folder = next((d for d in [data.resolve(), *data.resolve().parents]
                   if d.name.endswith("-single")), data.resolve())
    gpu = folder.name.split("-")[0]
    print(f"\nthe power section of models/presets/{gpu}.yaml: limit {cap:.0f}W (power_limit_w), "
          f"idle {idle:.1f}W, static {p0:.1f}W, tensor_energy {e_max:.3f}pJ, "
          f"hbm_energy {h * 1e3:.1f}pJ, window "
          + (f"{window:.0f}ms (median tau)" if window else "not fitted"))


if __name__ == "__main__":
    main()
