#!/usr/bin/env python3
"""How far apart two runs of one measuring program are, row by row.

  scripts/run_spread.py --key mode,bytes --value us_median A.csv B.csv [C.csv ...]

For each file after the first, the rows whose --key columns match a row of A.csv, and the
spread |value(B) / value(A) - 1| over them: its median, nearest-rank p90 and maximum, in %.
What the model cannot beat: two runs of the same program on the same (or another) machine.
"""
import argparse
import csv
import math
import sys


def load(path, key, value):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    if not rows:
        sys.exit(f"{path}: no rows")
    for column in key + [value]:
        if column not in rows[0]:
            sys.exit(f"{path}: no column '{column}' (has {', '.join(rows[0])})")
    out = {}
    for r in rows:
        k = tuple(r[c] for c in key)
        if k in out:
            sys.exit(f"{path}: two rows with {dict(zip(key, k))}: give a longer --key")
        out[k] = float(r[value])
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--key", required=True, help="columns that identify a row, comma-separated")
    p.add_argument("--value", required=True, help="the measured column")
    p.add_argument("base")
    p.add_argument("others", nargs="+")
    a = p.parse_args()
    key = a.key.split(",")
    base = load(a.base, key, a.value)
    for other in a.others:
        rows = load(other, key, a.value)
        spread = sorted(abs(v / base[k] - 1) * 100 for k, v in rows.items() if k in base)
        if not spread:
            sys.exit(f"{other}: no row matches {a.base}")
        n = len(spread)
        median = (spread[(n - 1) // 2] + spread[n // 2]) / 2
        p90 = spread[max(0, math.ceil(0.9 * n) - 1)]
        print(f"{other}: {n} rows, |spread| median {median:.1f} %, p90 {p90:.1f} %, "
              f"max {spread[-1]:.1f} %")


if __name__ == "__main__":
    main()
