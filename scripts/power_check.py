#!/usr/bin/env python3
"""Checks mgsim's power governor (models/power.hpp) and tensor rates against the GEMMs of
validate/data/h200-single/power.csv and power_fp8.csv.

Both files hold cuBLAS GEMMs on all 132 SMs of one H200, each shape run for 3 s after 1 s to settle
(`gemm` rows: the time per GEMM and the SM clock under the 700 W cap); power_fp8.csv also has each
shape from a cool start (`cool` rows: up to 8 GEMMs back to back, within about 20 ms, after 2 s
idle), in bf16 and in fp8 (e4m3, cuBLASLt). Here each row runs through mgsim as
validate/cases/gemm.yaml's kernel (for fp8: the fp8 dtype, 128-wide k tiles, 1-byte operands),
with the clock left to the governor: `power: {start: limit}` for the sustained rows (the GEMM back
to back for at least 6 ms, the governor's first step being at sm.clock; the last launch timed),
`start: idle` for the cool rows (as many launches as measured; their mean). Nothing here is
fitted: the governor's numbers come from other rows (scripts/power_model.py), sm.tensor_clock from
gemm.csv (bf16). Needs `mgsim` on PATH.

  scripts/power_check.py [--data DIR] [HW]
      (default validate/data/h200-single and <gpu>.calibrated, <gpu> the folder's: h200)
"""
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARGS = sys.argv[1:]
DATA = ROOT / "validate/data/h200-single"
if ARGS[:1] == ["--data"]:
    DATA, ARGS = ROOT / ARGS[1], ARGS[2:]
CASE = ROOT / "validate/cases/gemm.yaml"
LOCK = "power:\n  clock: CLOCK\n"
LAUNCH = "      - record: start\n      - launch: gemm\n      - record: stop\n"
# The case's fp8 form (its FP8 parameter: the dtype, 128-byte k tiles, 1-byte operands from HBM).
FP8 = ("\n  FP8: 0\n", "\n  FP8: 1\n")


def schedule_text(dtype, start):
    text = CASE.read_text()
    if LOCK not in text or not text.endswith(LAUNCH) or "\nparams:\n" not in text:
        raise SystemExit(f"{CASE}: expected params, '{LOCK.strip()}' and one launch between two "
                         "records at the end")
    text = text.replace(LOCK, f"power:\n  start: {start}\n")
    text = text.replace("\nparams:\n", "\nparams:\n  REPS: 1\n")
    text = text[:-len(LAUNCH)] + "      - for: {var: i, from: 0, to: REPS, ops: [launch: gemm]}\n"
    if dtype == "fp8":
        if text.count(FP8[0]) != 1:
            raise SystemExit(f"{CASE}: expected the parameter '{FP8[0].strip()}' once")
        text = text.replace(*FP8)
    return text


def rows(path):
    with open(path) as f:
        return [r for r in csv.DictReader(line for line in f if not line.startswith("#"))
                if r["case"] in ("gemm", "cool") and r["gemm_sms"] == "132" and r["ok"] == "1"]


def main():
    hw = ARGS[0] if ARGS else DATA.resolve().name.split("-")[0] + ".calibrated"
    cases = [("power.csv", r) for r in rows(DATA / "power.csv")]
    cases += [("power_fp8.csv", r) for r in rows(DATA / "power_fp8.csv")]
    print(f"{'file':<14}{'case':<5}{'dtype':>6}{'shape':>19}{'measured us':>13}{'mgsim us':>10}"
          f"{'error':>8}{'clock MHz':>10}{'mgsim MHz':>10}")
    errors = {}
    with tempfile.TemporaryDirectory() as tmp:
        for file, r in cases:
            cool = r["case"] == "cool"
            path = Path(tmp) / f"{r['dtype']}_{r['case']}.yaml"
            if not path.exists():
                path.write_text(schedule_text(r["dtype"], "idle" if cool else "limit"))
            measured = float(r["gemm_us_per_op"])
            reps = int(r["gemm_ops"]) if cool else max(3, math.ceil(6000 / measured) + 1)
            out = subprocess.run(
                ["mgsim", "run", str(path), "--hw", hw, "--topology",
                 str(ROOT / "validate/cases/h200x2.yaml"), "--json",
                 "-D", f"M={r['m']}", "-D", f"N={r['n']}", "-D", f"K={r['k']}",
                 "-D", f"REPS={reps}"],
                check=True, capture_output=True, text=True, env=os.environ).stdout
            run = json.loads(out)["runs"][0]
            kernels = run["kernels"]
            if cool:  # the mean over the burst, as the events around it measured
                us = (kernels[-1]["end_ps"] - kernels[0]["begin_ps"]) * 1e-6 / reps
                clock_col = "-"
            else:
                us = (kernels[-1]["end_ps"] - kernels[-1]["begin_ps"]) * 1e-6
                clock_col = f"{float(r['sm_mhz_median']):.0f}"
            clock = run["clocks"][0]["mean_clock_hz"] * 1e-6  # over the whole run
            err = us / measured - 1
            errors.setdefault((r["case"], r["dtype"]), []).append(abs(err))
            shape = f"{r['m']}x{r['n']}x{r['k']}"
            print(f"{file:<14}{r['case']:<5}{r['dtype']:>6}{shape:>19}{measured:13.1f}{us:10.1f}"
                  f"{err * 100:+7.1f}%{clock_col:>10}{clock:10.0f}")
    print(f"hardware {hw}; mgsim MHz: the mean over the run (the sustained runs' first step is at "
          f"sm.clock)")
    for (case, dtype), e in sorted(errors.items()):
        e.sort()
        print(f"  {case:<5} {dtype:<5} |error| median {e[len(e) // 2] * 100:5.1f} %, worst "
              f"{e[-1] * 100:5.1f} % over {len(e)} rows")


if __name__ == "__main__":
    main()
