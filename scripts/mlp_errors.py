#!/usr/bin/env python3
"""The model's errors on mlp.csv (docs/VALIDATION.md, "Memory-level parallelism by kernel
shape"), split the way that section discusses them: by operation, reads by bytes in flight per
CTA, and the latency one CTA's reads saw (bytes in flight / rate), beside the per-iteration wait
scripts/sass_loads.py reads from the loop's SASS.

It reads mlp.csv and the per-case table `mgsim validate --write docs/VALIDATION.md` wrote; it
fits nothing. Its last lines set a copy's reads beside plain reads at the same HBM utilisation:
the wait beyond one CTA's (the queue's, as the `hbm queue` fit measures it) against the model's
hbm.queue_delay x rho / (1 - rho), with h200.calibrated's hbm.bandwidth and hbm.queue_delay.

  scripts/mlp_errors.py
"""
import csv
import re
import statistics

import sass_loads

DATA = "validate/data/h200-single"
PRESET = "models/presets/h200.calibrated.yaml"


def preset_value(preset, section, key):
    """A value of a preset (`section: / key: / value: NUMBER UNIT`), in SI units."""
    scale = {"GB/s": 1e9, "ns": 1e-9}
    lines = open(preset).read().splitlines()
    start = lines.index(f"{section}:")
    i = next(j for j in range(start + 1, len(lines)) if lines[j] == f"  {key}:")
    m = re.match(r"\s+value: ([\d.]+)(\S+)", lines[i + 1])
    return float(m.group(1)) * scale[m.group(2)]


def main():
    with open(f"{DATA}/mlp.csv") as f:
        lines = f.readlines()
    header = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    rows = list(csv.DictReader(lines[header:]))
    for i, r in enumerate(rows):
        r["line"] = header + 2 + i  # the file's line number, as mgsim validate reports it
    signed = {}  # line -> the model's signed error (%), from docs/VALIDATION.md's per-case table
    for line in open("docs/VALIDATION.md"):
        m = re.match(r"\| \.\./h200-single/mlp\.csv \| (\d+) \|.*\| ([+-][\d.]+) % \|$", line)
        if m:
            signed[int(m.group(1))] = float(m.group(2))

    def show(name, errors):
        e = sorted(abs(x) for x in errors)
        print(f"{name:44} {len(e):4} rows  |error| median {statistics.median(e):5.1f} %  "
              f"p90 {e[int(0.9 * len(e))]:5.1f} %  signed median "
              f"{statistics.median(errors):+5.1f} %")

    by_op = {}
    for r in rows:
        by_op.setdefault(f"{r['op']} ({r['set']})" if r["set"] == "hbm_l2_kernel" else r["op"],
                         []).append(signed[r["line"]])
    for op, errors in sorted(by_op.items()):
        show(op, errors)
    by_window = {}
    for r in rows:
        if r["op"] == "read" and r["set"] in ("cross", "axis"):
            by_window.setdefault(int(r["bytes_in_flight_per_cta"]), []).append(signed[r["line"]])
    print("reads, the model's median signed error (%) by bytes in flight per CTA:",
          " ".join(f"{w}:{statistics.median(v):+.0f}" for w, v in sorted(by_window.items())))
    loops = sass_loads.loops(*sass_loads.MLP)
    seen = {}
    for r in rows:
        if r["op"] == "read" and r["set"] in ("cross", "axis") and r["ctas"] == "1":
            key = (int(r["bytes_per_access"]), int(r["unroll"]))
            window = int(r["bytes_in_flight_per_cta"])
            seen.setdefault(loops[key][3], []).append(window / float(r["gbps_per_cta_median"]))
    print("one CTA's reads, the time per loop iteration seen (ns) by the loop's waits (SASS):",
          " ".join(f"{n}:{min(v):.0f}-{max(v):.0f}" for n, v in sorted(seen.items())))

    # The queue's wait at the HBM: a loop's round on N CTAs beyond the same shape's on one CTA,
    # W / r_N - W / r_1 (a copy's rates halved: its loads' side), by rho = what the N CTAs move
    # over hbm.bandwidth, reads and writes together; loops that wait once (as the fit's rows).
    bandwidth = preset_value(PRESET, "hbm", "bandwidth")
    coefficient = preset_value(PRESET, "hbm", "queue_delay")
    one = {}
    shape = lambda r: (r["op"], r["set"], r["threads_per_cta"], r["bytes_per_access"], r["unroll"])
    waits_once = [r for r in rows if r["op"] in ("read", "copy") and r["set"] != "hbm_l2_kernel"
                  and not (r["unroll"] == "8" and r["bytes_per_access"] in ("8", "16"))]
    for r in waits_once:
        if r["ctas"] == "1":
            one[shape(r)] = r
    waits = {}
    for r in waits_once:
        if r["ctas"] == "1" or shape(r) not in one:
            continue
        sides = 2 if r["op"] == "copy" else 1
        rate_n = float(r["gbps_per_cta_median"]) * 1e9 / sides
        rate_1 = float(one[shape(r)]["gbps_per_cta_median"]) * 1e9 / sides
        rho = int(r["ctas"]) * rate_n * sides / bandwidth
        window = int(r["bytes_in_flight_per_cta"])
        if 0.05 <= rho < 0.95:
            waits.setdefault((r["op"], round(rho, 1)), []).append((window / rate_n - window / rate_1) * 1e9)
    print(f"the HBM queue's wait (ns, median of rows) by rho, reads | copies' reads | the model's "
          f"{coefficient * 1e9:.1f} ns x rho / (1 - rho):")
    for rho in sorted({k[1] for k in waits}):
        cells = [f"{statistics.median(waits[(op, rho)]):5.0f} ({len(waits[(op, rho)]):3})"
                 if (op, rho) in waits else "    -      " for op in ("read", "copy")]
        print(f"  rho {rho:.1f}: {cells[0]} | {cells[1]} | {coefficient * 1e9 * rho / (1 - rho):5.0f}")


if __name__ == "__main__":
    main()
