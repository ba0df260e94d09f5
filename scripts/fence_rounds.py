#!/usr/bin/env python3
"""How far apart an SM's fence rounds start, from validate/data/h200-single/fence_warps_timeline.csv.

Each recorded fence ends when its round ends, so fences whose ends lie within 15 ns of each other
belong to one round. When the warps of one SM fence out of step they split into groups that
alternate rounds; two consecutive rounds less than one fence apart then show how soon a round
may follow the one before (models/sync.hpp, sync.fence_<scope>_round).

  scripts/fence_rounds.py [TIMELINE.csv]
"""
import csv
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JOIN_NS = 15  # ends this close belong to one round


def rounds(ends):
    out = []
    for e in sorted(ends):
        if out and e - out[-1][-1] < JOIN_NS:
            out[-1].append(e)
        else:
            out.append([e])
    return [r[0] for r in out]


def main():
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else \
        ROOT / "validate/data/h200-single/fence_warps_timeline.csv"
    runs = {}
    with open(path) as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            if row["fencers"] != row["warps"]:
                continue
            key = (row["scope"], int(row["warps"]))
            runs.setdefault(key, []).append((float(row["begin_ns"]), float(row["end_ns"])))
    print("scope   warps  fence_ns  rounds  apart_ns (rounds closer than one fence: n, median)")
    for (scope, warps), fences in sorted(runs.items()):
        one = statistics.median(e - b for b, e in fences)
        starts = rounds(e for _, e in fences)
        gaps = [b - a for a, b in zip(starts, starts[1:]) if b - a < 0.9 * one]
        apart = f"{len(gaps)}, {statistics.median(gaps):.0f}" if gaps else "0, -"
        print(f"{scope:7} {warps:5} {one:9.0f} {len(starts):7}  {apart}")


if __name__ == "__main__":
    main()
