#!/usr/bin/env python3
"""NCCL's all-reduce against the all-reduce kernels users write instead, by size (issue 10).

Usage: scripts/all_reduce_by_size.py [--mgsim build/cli/mgsim] [--topology hgx-h200-8]
                                      [--sizes 64KiB:256MiB:x4]

Runs each schedule over the same sweep of SIZE on one machine and prints, per size, each one's
predicted time (the whole run: the host's call, the launch and the kernel, us) and which wins:
  nccl       examples/all_reduce_ring.yaml: as NCCL runs it (its tuner's protocol and channels)
  one_shot   examples/kernels/all_reduce_oneshot_ldst.yaml: every rank reads every peer (ld/st)
  two_shot   examples/field/all_reduce_twoshot_ldst.yaml: reduce-scatter then all-gather (ld/st)
  nvls       examples/kernels/all_reduce_nvls.yaml: NVSwitch multicast and in-network reduction
"""
import argparse
import json
import subprocess
import sys

SCHEDULES = [
    ("nccl", "examples/all_reduce_ring.yaml"),
    ("one_shot", "examples/kernels/all_reduce_oneshot_ldst.yaml"),
    ("two_shot", "examples/field/all_reduce_twoshot_ldst.yaml"),
    ("nvls", "examples/kernels/all_reduce_nvls.yaml"),
]


def sweep(mgsim, schedule, topology, sizes):
    out = subprocess.run([mgsim, "run", schedule, "--topology", topology, "--sweep",
                          f"SIZE={sizes}", "--json"], check=True, capture_output=True, text=True)
    runs = json.loads(out.stdout)["runs"]
    return {run["params"]["SIZE"]: run["end_ps"] / 1e6 for run in runs}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mgsim", default="build/cli/mgsim")
    ap.add_argument("--topology", default="hgx-h200-8")
    ap.add_argument("--sizes", default="64KiB:256MiB:x4")
    a = ap.parse_args()
    times = {name: sweep(a.mgsim, path, a.topology, a.sizes) for name, path in SCHEDULES}
    names = [name for name, _ in SCHEDULES]
    print(f"all-reduce on {a.topology}: predicted time (us) of the whole run, by size")
    print(f"{'size (B)':>12}  " + "  ".join(f"{n:>10}" for n in names) + "  fastest")
    for size in sorted(times["nccl"]):
        row = [times[n][size] for n in names]
        best = names[row.index(min(row))]
        print(f"{size:>12}  " + "  ".join(f"{t:>10.2f}" for t in row) + f"  {best}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
