#!/usr/bin/env python3
"""NCCL's own choice per collective call, from its logs (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=TUNING).

Usage: scripts/nccl_choices.py nccl_debug_<setting>.<pid>.txt ... > nccl_choices.csv

Each call logs "<Func>: <bytes> Bytes -> Algo <algo> proto <proto> channel{Lo..Hi}={<lo>..<hi>}"
(NCCL 2.28, src/enqueue.cc). One CSV row per (setting, function, bytes, algorithm, protocol,
channels) with how many calls chose it; the setting is the file name's <setting> part.
"""
import collections
import csv
import os
import re
import sys

LINE = re.compile(
    r"NCCL INFO (\w+): (\d+) Bytes -> Algo (\w+) proto (\w+) channel\{Lo\.\.Hi\}=\{(\d+)\.\.(\d+)\}")


def setting_of(path):
    name = os.path.basename(path)
    m = re.match(r"nccl_debug_(.+?)\.\d+\.txt$", name)
    return m.group(1) if m else name


def main(paths):
    counts = collections.Counter()
    for path in paths:
        setting = setting_of(path)
        with open(path, errors="replace") as f:
            for line in f:
                m = LINE.search(line)
                if m:
                    func, nbytes, algo, proto, lo, hi = m.groups()
                    counts[(setting, func, int(nbytes), algo, proto, int(hi) - int(lo) + 1)] += 1
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["setting", "function", "bytes", "algorithm", "protocol", "channels", "calls"])
    for key in sorted(counts):
        out.writerow([*key, counts[key]])
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
