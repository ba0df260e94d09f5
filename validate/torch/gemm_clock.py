#!/usr/bin/env python3
"""The SM clock cuBLAS GEMMs run at, against the NVML reading gemm.csv records (issue 15).

validate/data/h200/gemm.csv's `sm_clock_mhz_end` is NVML's SM clock read right after a case's
timed repetitions (validate/cuda/gemm.cu: 3 warm-up calls, then calls between two CUDA events
with a synchronize after each, until 250 ms of them or 50 calls), and the `tensor clock` fit
divides each row's rate by it. attention_clock.py found NVML reading 1980 MHz after attention
calls that ran at 1.6 - 1.9 GHz. This repeats gemm.cu's protocol with torch.matmul (cuBLAS) in
bf16 on gemm.csv's largest shapes and reads the clock both ways: NVML after the last call, and
attention.py's probe kernel beside every call (median).

  python3 validate/torch/gemm_clock.py --out DIR   -> DIR/gemm_clock.csv
"""
import argparse
import datetime
import os
import statistics

import pynvml
import torch

from attention import load_probe

SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (16384, 8192, 8192), (16384, 16384, 16384)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    args = ap.parse_args()
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(0)
    probe = load_probe()
    side = torch.cuda.Stream()
    out = torch.zeros(2, dtype=torch.int64, device="cuda")
    path = os.path.join(args.out, "gemm_clock.csv")
    with open(path, "w") as f:
        f.write("# file: gemm_clock.csv\n")
        f.write("# what: cuBLAS bf16 GEMMs (torch.matmul) timed as validate/cuda/gemm.cu times "
                "them, with NVML's SM clock after the last call and a probe kernel's clock beside "
                "every call; see validate/torch/gemm_clock.py\n")
        f.write(f"# gpu0_name: {torch.cuda.get_device_name(0)}\n")
        f.write(f"# torch: {torch.__version__}\n")
        f.write(f"# date_utc: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%dT%H:%M:%SZ}\n")
        f.write("m,n,k,time_us_median,tflops_median,reps,sm_clock_mhz_end,"
                "sm_clock_probe_mhz_median,sm_clock_probe_mhz_min,sm_clock_probe_mhz_max\n")
        for m, n, k in SHAPES:
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            for _ in range(3):
                a @ b
            torch.cuda.synchronize()
            start.record()
            a @ b
            stop.record()
            stop.synchronize()
            ns = int(start.elapsed_time(stop) * 1e6 * 0.8)
            times, clocks = [], []
            while len(times) < 7 or (sum(times) < 250e3 and len(times) < 50):
                with torch.cuda.stream(side):
                    probe.probe(ns, out)
                start.record()
                a @ b
                stop.record()
                torch.cuda.synchronize()
                times.append(start.elapsed_time(stop) * 1e3)
                cycles, elapsed = out.tolist()
                clocks.append(cycles / elapsed * 1e3)
            nvml = pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM)
            t = statistics.median(times)
            line = (f"{m},{n},{k},{t:.3f},{2.0 * m * n * k / t * 1e-6:.1f},{len(times)},{nvml},"
                    f"{statistics.median(clocks):.0f},{min(clocks):.0f},{max(clocks):.0f}\n")
            f.write(line)
            f.flush()
            print(line, end="", flush=True)


if __name__ == "__main__":
    main()
