#!/usr/bin/env python3
"""Fits sm.smem_serialisation (models/sm.hpp) to the mma.sync rows of tensor_pipes_run17.csv.

Each row with operands read by ldmatrix (r_ldsm, r_ldsm_reuse2, r_ldsm_reuse4, ldsm_ldsm) has a
pipe time per SM, t_pipe = flops / the same thread count's mma.sync rate from registers (the `rr`
bf16 row), and a shared-memory time, t_smem = ldmatrix bytes / the same thread count's
`ldmatrix` row (shared memory's measured read rate). The model combines them as
t = (t_pipe^(1/q) + t_smem^(1/q))^q; q is chosen to minimise the squared relative error of t
against the measured cycles over the 32-warp rows (1024 threads, the warps per SM that
sm.mma_sync_flops_per_cycle_bf16 was measured with). The 8-warp rows are printed beside it,
not fitted.

  scripts/smem_overlap_fit.py [validate/data/h200-single/tensor_pipes_run17.csv]
"""
import csv
import sys


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def model(t_pipe, t_smem, q):
    big = max(t_pipe, t_smem)
    return big * ((t_pipe / big) ** (1 / q) + (t_smem / big) ** (1 / q)) ** q


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "validate/data/h200-single/tensor_pipes_run17.csv"
    data = rows(path)
    cases = {}
    for threads in ("256", "1024"):
        rr = next(r for r in data if r["operands"] == "rr" and r["dtype"] == "bf16" and
                  r["threads_per_cta"] == threads)
        ld = next(r for r in data if r["instr"] == "ldmatrix" and r["threads_per_cta"] == threads)
        pipe_rate = float(rr["flops_per_cycle_median"])
        smem_rate = float(ld["smem_bytes_per_cycle_median"])
        cases[threads] = [(r["operands"], float(r["flops_per_sm"]) / pipe_rate,
                           float(r["smem_bytes_per_sm"]) / smem_rate, float(r["cycles_median"]))
                          for r in data
                          if r["instr"] == "mma_sync" and r["threads_per_cta"] == threads and
                          float(r["smem_bytes_per_sm"]) > 0]
        print(f"{threads} threads: mma.sync {pipe_rate:.1f} flops/cycle, "
              f"shared memory {smem_rate:.1f} B/cycle")

    def cost(q):
        return sum((model(p, s, q) / t - 1) ** 2 for _, p, s, t in cases["1024"])

    grid = [i / 1000 for i in range(1, 1001)]
    q = min(grid, key=cost)
    print(f"q = {q:.3f} (fitted on the 1024-thread rows)")
    for threads in ("1024", "256"):
        for name, p, s, t in cases[threads]:
            pred = model(p, s, q)
            print(f"  {threads:>4} {name:14} t_pipe {p:10.0f} t_smem {s:10.0f} measured {t:10.0f} "
                  f"max() {max(p, s) / t - 1:+7.1%}  model {pred / t - 1:+7.1%}")


if __name__ == "__main__":
    main()
