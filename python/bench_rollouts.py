#!/usr/bin/env python3
"""Rollouts per second through the Python module, in process (issue 11's targets: >= 1,000/s on one
core for one collective on hgx-h200-8, >= 100/s for the 8-GPU all-gather GEMM at tile level).

  PYTHONPATH=build/python python3 python/bench_rollouts.py [--seconds 3] [--threads 1]

A rollout is what an RL loop does per proposal: parse the schedule text and simulate it on a
Machine loaded once. Prints rollouts/s per schedule, plain and with `check=True` (the data
check of `mgsim check` following the run: what it costs beside the simulation); with --threads
N, N Python threads share the Machine (runs release the GIL), which shows how rollouts scale
with cores.
"""
import argparse
import threading
import time
from pathlib import Path

import mgsim

ROOT = Path(__file__).resolve().parents[1]
CASES = [
    ("all_reduce 64 KiB, NCCL (hgx-h200-8)", "examples/all_reduce_ring.yaml", {"SIZE": "64KiB"}),
    ("all_reduce 1 MiB, NCCL (hgx-h200-8)", "examples/all_reduce_ring.yaml", {"SIZE": "1MiB"}),
    ("peer copy 1 GiB (hgx-h200-8)", "examples/peer_copy.yaml", {}),
    ("all-gather GEMM, tile level, 8 GPUs", "examples/kernels/ag_gemm_inter_sm.yaml", {}),
    ("MoE dispatch + combine, 8 GPUs", "examples/field/moe_dispatch_combine.yaml", {}),
]


def rate(machine, text, params, seconds, threads, check):
    counts = [0] * threads
    stop = time.perf_counter() + seconds

    def work(i):
        while time.perf_counter() < stop:
            machine.run(text, params=params, check=check)
            counts[i] += 1

    start = time.perf_counter()
    pool = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return sum(counts) / (time.perf_counter() - start)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    machine = mgsim.Machine("hgx-h200-8")
    print(f"{'schedule':40} {'rollouts/s':>12} {'ms each':>9} {'checked/s':>10} "
          f"{'check cost':>10}  (threads {args.threads})")
    for name, path, params in CASES:
        text = (ROOT / path).read_text()
        machine.run(text, params=params, check=True)  # warm
        plain = rate(machine, text, params, args.seconds, args.threads, False)
        checked = rate(machine, text, params, args.seconds, args.threads, True)
        print(f"{name:40} {plain:12.1f} {1000.0 * args.threads / plain:9.3f} {checked:10.1f} "
              f"{plain / checked - 1:+10.1%}")


if __name__ == "__main__":
    main()
