#!/usr/bin/env python3
"""What other SMs' reads, writes and copies do to one CTA's HBM load latency
(hbm_turnaround.csv, validate/cuda/hbm_turnaround.cu; docs/VALIDATION.md, "HBM under reads and
writes together"), beside the model's queue.

For each row: the background's read and write rates, rho = their sum over the preset's
hbm.bandwidth, the probe's wait beyond its unloaded round (the K = 0 row), and the model's wait
hbm.queue_delay x rho / (1 - rho), which counts every byte alike. For rows with writes, w: the
weight of a written byte that c (rho_r + w rho_w) / (1 - rho) would need to give the measured
wait (rho_r, rho_w the read and write parts of rho; the probe's own reads, 8 KiB a round, left
out). It fits nothing.

  scripts/hbm_turnaround.py [--data validate/data/h100-single]

The preset is the folder's GPU's calibrated one (h100-single: h100.calibrated).
"""
import argparse
import csv
import re
import statistics

from mlp_errors import preset_value


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default="validate/data/h100-single")
    args = p.parse_args()
    gpu = re.search(r"(h\d00)-single", args.data).group(1)
    preset = f"models/presets/{gpu}.calibrated.yaml"
    bandwidth = preset_value(preset, "hbm", "bandwidth")
    c = preset_value(preset, "hbm", "queue_delay")
    lines = open(f"{args.data}/hbm_turnaround.csv").read().splitlines()
    rows = list(csv.DictReader([line for line in lines if not line.startswith("#")]))
    unloaded = float(next(r for r in rows if r["mode"] == "none")["probe_round_ns_median"])
    print(f"{preset}: hbm.bandwidth {bandwidth / 1e9:.1f} GB/s, hbm.queue_delay {c * 1e9:.1f} ns; "
          f"the probe's round unloaded {unloaded:.1f} ns")
    print(" mode   K   read GB/s  write GB/s   rho   wait ns  model ns  wait/model     w")
    weights = {}
    for r in rows:
        if r["mode"] == "none":
            continue
        rd, wr = float(r["bg_read_gbps_median"]) * 1e9, float(r["bg_write_gbps_median"]) * 1e9
        rho_r, rho_w = rd / bandwidth, wr / bandwidth
        rho = rho_r + rho_w
        wait = (float(r["probe_round_ns_median"]) - unloaded) * 1e-9
        model = c * rho / (1 - rho) if rho < 1 else float("inf")
        w = ""
        if rho_w > 0 and rho < 1:
            w = (wait * (1 - rho) / c - rho_r) / rho_w
            if 0.1 <= rho <= 0.9:
                weights.setdefault(r["mode"], []).append(w)
            w = f"{w:5.1f}"
        print(f"{r['mode']:>5} {int(r['bg_ctas']):3} {rd / 1e9:10.1f} {wr / 1e9:11.1f} {rho:6.2f} "
              f"{wait * 1e9:8.0f} {model * 1e9:9.0f} {wait / model if model > 0 else 0:11.2f} {w:>5}")
    for mode, ws in sorted(weights.items()):
        print(f"w over the {mode} rows at rho 0.1 - 0.9: median {statistics.median(ws):.1f} "
              f"(range {min(ws):.1f} - {max(ws):.1f}, {len(ws)} rows)")


if __name__ == "__main__":
    main()
