#!/usr/bin/env python3
"""Checks mgsim's power governor (models/power.hpp) against validate/data/h200-single/power.csv.

power.csv holds each cuBLAS GEMM shape run for 3 s on all 132 SMs of one H200 (after 1 s to
settle): its time per GEMM and the SM clock under the 700 W cap. Here each shape runs through
mgsim as validate/cases/gemm.yaml's kernel, with the clock left to the governor from a GPU that
has been running at its limit (`power: {start: limit}`) instead of locked at a measured clock;
the governor's parameters are fitted on other rows of the same file (scripts/power_model.py: the
GEMM on fewer SMs below the cap, the copy) and on power_ramp.csv, so the clock and the time here
are predictions. The GEMM runs back to back for at least 6 ms (the governor's first step
runs at sm.clock) and the last launch is timed. Needs `mgsim` on PATH.

  scripts/power_check.py [HW]     (default h200.calibrated)
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
DATA = ROOT / "validate/data/h200-single/power.csv"
CASE = ROOT / "validate/cases/gemm.yaml"
LOCK = "power:\n  clock: CLOCK\n"


def reps(us):
    """Launches enough for the governor's first steps (1.4 ms each on the H200) to pass."""
    return max(3, math.ceil(6000 / us) + 1)


def main():
    hw = sys.argv[1] if len(sys.argv) > 1 else "h200.calibrated"
    text = CASE.read_text()
    if LOCK not in text:
        raise SystemExit(f"{CASE}: no '{LOCK.strip()}' block to replace")
    launch = "      - launch: gemm\n"
    if not text.endswith(launch) or not text.startswith("params:\n", text.index("\nparams:") + 1):
        raise SystemExit(f"{CASE}: expected params, and the stream to end with one launch")
    text = text.replace(LOCK, "power:\n  start: limit\n").replace("\nparams:\n", "\nparams:\n  REPS: 1\n")
    text = text[:-len(launch)] + "      - for: {var: i, from: 0, to: REPS, ops: [launch: gemm]}\n"
    with open(DATA) as f:
        rows = [r for r in csv.DictReader(line for line in f if not line.startswith("#"))
                if r["case"] == "gemm" and r["ok"] == "1"]
    print(f"{'shape':>20} {'measured us':>12} {'mgsim us':>10} {'error':>7}"
          f" {'clock MHz':>10} {'mgsim MHz':>10}")  # mgsim's: the mean over the run
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        schedule = Path(tmp) / "gemm_sustained.yaml"
        schedule.write_text(text)
        for r in rows:
            out = subprocess.run(
                ["mgsim", "run", str(schedule), "--hw", hw, "--topology",
                 str(ROOT / "validate/cases/h200x2.yaml"), "--json",
                 "-D", f"M={r['m']}", "-D", f"N={r['n']}", "-D", f"K={r['k']}",
                 "-D", f"REPS={reps(float(r['gemm_us_per_op']))}"],
                check=True, capture_output=True, text=True, env=os.environ).stdout
            run = json.loads(out)["runs"][0]
            last = run["kernels"][-1]
            us = (last["end_ps"] - last["begin_ps"]) * 1e-6
            clock = run["clocks"][0]["mean_clock_hz"] * 1e-6  # over the whole run
            measured = float(r["gemm_us_per_op"])
            errors.append(abs(us / measured - 1))
            print(f"{r['m'] + 'x' + r['n'] + 'x' + r['k']:>20} {measured:12.1f} {us:10.1f}"
                  f" {(us / measured - 1) * 100:+6.1f}% {float(r['sm_mhz_median']):10.0f}"
                  f" {clock:10.0f}")
    errors.sort()
    print(f"|error| median {errors[len(errors) // 2] * 100:.1f} %, worst {errors[-1] * 100:.1f} %"
          f" over {len(errors)} shapes (hardware {hw})")


if __name__ == "__main__":
    main()
