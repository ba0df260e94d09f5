#!/usr/bin/env python3
"""The model's errors on mlp.csv (docs/VALIDATION.md, "Memory-level parallelism by kernel
shape"), split the way that section discusses them: by operation, reads by bytes in flight per
CTA, and the latency one CTA's reads saw (bytes in flight / rate), beside the per-iteration wait
scripts/sass_loads.py reads from the loop's SASS.

It reads mlp.csv and the per-case table `mgsim validate --write docs/VALIDATION.md` wrote; it
fits nothing.

  scripts/mlp_errors.py
"""
import csv
import re
import statistics

import sass_loads

DATA = "validate/data/h200-single"


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


if __name__ == "__main__":
    main()
