"""A reward loop without a model: grid search over the knobs of an all-gather + GEMM schedule for
problems/ag_gemm.yaml, scored in process by mgsim (the Python module), as an RL loop would score
an agent's schedules. Then one reward hack, refused.

    PYTHONPATH=build/python python3 examples/rl/search.py [--shape N]

The candidates are examples/kernels/ag_gemm_inter_sm.yaml (communication CTAs push this rank's
shard to every peer while the other CTAs compute) with the transfer mechanism of the push (TMA
or ld/st) and the number of communication SMs varied. Each is checked against the problem
(`valid`: no read before its data is valid, every output written, every rank's flops done) and
scored by its speedup over the problem's baseline (NCCL all-gather, then the GEMM). Prints every
candidate and exits 1 unless the best valid one beats the baseline and the hack is refused.
"""
import argparse
import itertools
import sys
from pathlib import Path

import mgsim

ROOT = Path(__file__).resolve().parents[2]
PROBLEM = ROOT / "problems" / "ag_gemm.yaml"
SCHEDULE = ROOT / "examples" / "kernels" / "ag_gemm_inter_sm.yaml"
PUSH = "via: tma, buffer: A"  # the push's mechanism in SCHEDULE


def candidates(text):
    for via, comm_sms in itertools.product(["tma", "ldst"], [4, 8, 16, 24, 32]):
        yield f"{via}, {comm_sms} comm SMs", text.replace(PUSH, f"via: {via}, buffer: A"), {
            "COMM_SMS": comm_sms}


def main():
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--shape", type=int, default=0, help="the problem's shape (default 0)")
    shape = args.parse_args().shape
    machine = mgsim.Machine("hgx-h200-8")
    problem = mgsim.Problem(str(PROBLEM))
    text = SCHEDULE.read_text()
    assert PUSH in text, f"{SCHEDULE} no longer has '{PUSH}'"
    print(f"problem {problem.name} shape {problem.shapes[shape]} on hgx-h200-8")
    best = None
    for name, schedule, params in candidates(text):
        r = machine.evaluate(problem, schedule, shape=shape, params=params, name=str(SCHEDULE))
        print(f"  {name:24} {r['time_us']:9.1f} us  speedup {r['speedup']:.3f}  "
              f"fraction of bound {r['fraction']:.3f}  {'valid' if r['valid'] else 'INVALID'}")
        if r["valid"] and (best is None or r["speedup"] > best[1]["speedup"]):
            best = (name, r)
    print(f"best: {best[0]}, {best[1]['speedup']:.3f}x the baseline ({best[1]['baseline_us']:.1f} us)")

    # A hack an agent finds: the math waits for one peer's signal instead of all of its
    # communication CTAs' (wait for 1, not COMM_SMS), reading shards still being written.
    hacked = text.replace("value: COMM_SMS}", "value: 1}")
    r = machine.evaluate(problem, hacked, shape=shape, params={"COMM_SMS": 16}, name="hacked.yaml")
    first = r["violations"][0] if r["violations"] else None
    print(f"hack (wait for 1 signal, not COMM_SMS): {'refused' if not r['valid'] else 'ACCEPTED'}"
          + (f": {first['kind']}: {first['message'][:150]}..." if first else ""))
    return 0 if best[1]["speedup"] > 1 and not r["valid"] else 1


if __name__ == "__main__":
    sys.exit(main())
