#!/usr/bin/env python3
"""What other SMs' reads, writes and copies do to one CTA's HBM load latency
(hbm_turnaround.csv, validate/cuda/hbm_turnaround.cu; docs/VALIDATION.md, "HBM under reads and
writes together"), beside the model's queue.

For each row: the background's read and write rates, rho = their sum over the preset's
hbm.bandwidth, the probe's wait beyond its unloaded round (the K = 0 row), and the model's wait
for reads alone, hbm.queue_delay x rho / (1 - rho). For rows that mix reads and writes (copies,
and split rows: some CTAs reading, the rest writing), what the mix adds beyond that, per unit of
m = 2 rho_r rho_w / rho (how often reads and writes alternate; rho / 2 for a copy) in the two
forms the turnaround's delay could take: added as it is (t_add = (wait - the reads' model) / m)
or through the queue's 1 / (1 - rho) (t_amp = t_add x (1 - rho)). For rows with writes, also w:
the weight of a written byte that c (rho_r + w rho_w) / (1 - rho) would need (the probe's own
reads, 8 KiB a round, left out). It fits nothing.

  scripts/hbm_turnaround.py [--data validate/data/h100-single] [--csv hbm_turnaround.csv]
                            [--check PRESET.yaml ...]

It prints the least-squares hbm.turnaround_delay of the additive form over every mixed row at
rho 0.1 - 0.9; --check fails unless the named presets hold that value (tests: the presets'
value cannot drift from the data).

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
    p.add_argument("--csv", default="hbm_turnaround.csv",
                   help="the file in --data (hbm_turnaround_run11.csv: a later run with split rows)")
    p.add_argument("--check", nargs="*", metavar="PRESET",
                   help="fail unless these presets' hbm.turnaround_delay is the fitted value")
    args = p.parse_args()
    gpu = re.search(r"(h\d00)-single", args.data).group(1)
    preset = f"models/presets/{gpu}.calibrated.yaml"
    bandwidth = preset_value(preset, "hbm", "bandwidth")
    c = preset_value(preset, "hbm", "queue_delay")
    lines = open(f"{args.data}/{args.csv}").read().splitlines()
    rows = list(csv.DictReader([line for line in lines if not line.startswith("#")]))
    unloaded = float(next(r for r in rows if r["mode"] == "none")["probe_round_ns_median"])
    print(f"{preset}: hbm.bandwidth {bandwidth / 1e9:.1f} GB/s, hbm.queue_delay {c * 1e9:.1f} ns; "
          f"the probe's round unloaded {unloaded:.1f} ns")
    print(" mode   K  wr   read GB/s  write GB/s   rho   wait ns  model ns     w   t_add  t_amp")
    weights, turn = {}, {}
    sxy = sxx = 0.0
    for r in rows:
        if r["mode"] == "none":
            continue
        rd, wr = float(r["bg_read_gbps_median"]) * 1e9, float(r["bg_write_gbps_median"]) * 1e9
        rho_r, rho_w = rd / bandwidth, wr / bandwidth
        rho = rho_r + rho_w
        wait = (float(r["probe_round_ns_median"]) - unloaded) * 1e-9
        model = c * rho / (1 - rho) if rho < 1 else float("inf")
        w = t_add = t_amp = ""
        if rho_w > 0 and rho < 1:
            w = (wait * (1 - rho) / c - rho_r) / rho_w
            if 0.1 <= rho <= 0.9:
                weights.setdefault(r["mode"], []).append(w)
            w = f"{w:5.1f}"
        if rho_w > 0 and rho_r > 0 and rho < 1:
            mix = 2 * rho_r * rho_w / rho
            add = (wait - model) / mix
            if 0.1 <= rho <= 0.9:
                turn.setdefault(r["mode"], []).append((add, add * (1 - rho)))
                sxy += mix * (wait - model)
                sxx += mix * mix
            t_add, t_amp = f"{add * 1e9:6.0f}", f"{add * (1 - rho) * 1e9:6.0f}"
        print(f"{r['mode']:>5} {int(r['bg_ctas']):3} {r.get('writer_ctas', ''):>3} {rd / 1e9:10.1f} "
              f"{wr / 1e9:11.1f} {rho:6.2f} {wait * 1e9:8.0f} {model * 1e9:9.0f} {w:>5} {t_add:>6} "
              f"{t_amp:>6}")
    for mode, ws in sorted(weights.items()):
        print(f"w over the {mode} rows at rho 0.1 - 0.9: median {statistics.median(ws):.1f} "
              f"(range {min(ws):.1f} - {max(ws):.1f}, {len(ws)} rows)")
    for mode, ts in sorted(turn.items()):
        for i, form in enumerate(("t_add", "t_amp")):
            v = [t[i] * 1e9 for t in ts]
            print(f"{form} over the {mode} rows at rho 0.1 - 0.9: median {statistics.median(v):.0f} ns "
                  f"(range {min(v):.0f} - {max(v):.0f}, {len(v)} rows)")
    if sxx > 0:
        fitted = sxy / sxx
        print(f"hbm.turnaround_delay: {fitted * 1e9:.1f} ns (least squares through the origin of "
              f"the wait beyond the reads' model against 2 rho_r rho_w / rho, every mixed row at "
              f"rho 0.1 - 0.9)")
        if args.check:
            for name in args.check:
                have = preset_value(name, "hbm", "turnaround_delay")
                if abs(have - fitted) > 0.05e-9:
                    raise SystemExit(f"{name}: hbm.turnaround_delay {have * 1e9:.1f} ns, but "
                                     f"{args.data}/{args.csv} gives {fitted * 1e9:.1f} ns")
                print(f"{name}: hbm.turnaround_delay {have * 1e9:.1f} ns, as fitted")

if __name__ == "__main__":
    main()
