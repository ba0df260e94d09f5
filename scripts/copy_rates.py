#!/usr/bin/env python3
"""What memcpy_local.csv's runs say about copies whose arrays stay in L2 (docs/VALIDATION.md,
"Device-local copies").

  scripts/copy_rates.py validate/data/h200-single/memcpy_local.csv [more runs ...]

Per run: the growth of a single copy-engine copy and of the copy kernel from 4 to 16 MiB, as the
rate of reads and writes together it implies (2 x 12 MiB over the growth), and the time per copy
of back-to-back copies of 16 and 64 MiB with the copy rate that gives. For runs with the `_cold`
modes (the L2 overwritten before each repetition), a second table: per size from 1 MiB, the
medians warm / cold of the copy engine's copy, the copy kernel and the write-only kernel.
"""
import csv
import sys

MIB = 1 << 20


def rows(path):
    with open(path, newline="") as f:
        return {(r["mode"], int(r["bytes"])): r for r in csv.DictReader(
            line for line in f if not line.startswith("#"))}


def main(paths):
    if not paths:
        sys.exit(__doc__)
    width = max(len(p) for p in paths)
    print(f"{'run':{width}} {'single 4->16':>13} {'kernel 4->16':>13} {'b2b 16 MiB':>16} "
          f"{'b2b 64 MiB':>16}")
    for path in paths:
        t = rows(path)
        us = lambda mode, mib: float(t[(mode, mib * MIB)]["us_median"])
        cells = []
        for mode in ("single", "kernel"):
            grow = us(mode, 16) - us(mode, 4)
            cells.append(f"{2 * 12 * MIB / grow / 1e6:6.2f} TB/s")
        for mib in (16, 64):
            r = t[("back_to_back", mib * MIB)]
            per = float(r["us_median"]) / int(r["count"])
            cells.append(f"{per:5.2f} us {mib * MIB / per / 1e6:4.2f} TB/s")
        print(f"{path:{width}} {cells[0]:>13} {cells[1]:>13} {cells[2]:>16} {cells[3]:>16}")
    for path in paths:
        warm_cold(path, rows(path))


def warm_cold(path, t):
    """The warm and cold medians side by side, if the run has cold rows."""
    sizes = sorted(b for (m, b) in t if m == "single_cold" and b >= MIB)
    if not sizes:
        return
    print(f"\n{path}: us warm / cold (the L2 overwritten first)")
    print(f"{'MiB':>5} {'memcpy':>15} {'copy kernel':>15} {'write kernel':>15}")
    for b in sizes:
        cells = [f"{float(t[(m, b)]['us_median']):6.2f} / {float(t[(m + '_cold', b)]['us_median']):6.2f}"
                 for m in ("single", "kernel", "write_kernel")]
        print(f"{b // MIB:>5} {cells[0]:>15} {cells[1]:>15} {cells[2]:>15}")


if __name__ == "__main__":
    main(sys.argv[1:])
