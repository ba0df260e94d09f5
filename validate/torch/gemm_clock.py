#!/usr/bin/env python3
"""The SM clock cuBLAS GEMMs run at, against the NVML reading gemm.csv records (issue 15).

validate/data/h200/gemm.csv's `sm_clock_mhz_end` is NVML's SM clock read right after a case's
timed repetitions (validate/cuda/gemm.cu: 3 warm-up calls, then calls between two CUDA events
with a synchronize after each, until 250 ms of them or 50 calls), and the `tensor clock` fit
divides each row's rate by it. attention_clock.py found NVML reading 1980 MHz after attention
calls that ran at 1.6 - 1.9 GHz. This repeats gemm.cu's protocol with torch.matmul (cuBLAS) and
reads the clock both ways: NVML after the last call, and attention.py's probe kernel beside every
call (median, min and max over the calls).

Two sets:
  python3 validate/torch/gemm_clock.py --out DIR
      -> DIR/gemm_clock.csv: bf16, A @ B with B (K x N) row-major, on gemm.csv's four largest
         square-ish shapes (run 23).
  python3 validate/torch/gemm_clock.py --out DIR --shapes validate/data/h200/gemm.csv [--fp8]
      -> DIR/gemm_probe.csv: every (m, n, k) of that file in its order, laid out as gemm.cu lays
         them out (C = A B^T, A M x K and B N x K row-major: `a @ b.t()`), in bf16, then with
         --fp8 the same shapes in e4m3 (torch._scaled_mm, unit scales, bf16 output: cuBLASLt's
         fp8 GEMM). Each timed call waits behind a 500 us one-thread gate kernel, so the time
         is the GPU's (gemm.cu, calling cuBLAS from C++, needs none). Each row checked against a float32 product on its first 64 x 64 block
         (`max_rel_err`, `ok`); `kernels`: the CUDA kernels one call launched (torch.profiler).
"""
import argparse
import csv
import datetime
import os
import statistics
import sys

import pynvml
import torch

from attention import kernel_names, load_probe

SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (16384, 8192, 8192), (16384, 16384, 16384)]


def timed(call, probe, side, out, gate_ns=0):
    """gemm.cu's protocol (3 warm-up calls; timed calls until 7 and 250 ms, or 50) with the
    probe beside each timed call: (times in us, probe clocks in MHz). With gate_ns, each timed
    call waits behind a one-thread kernel spinning that long, so the host has enqueued the call
    and its stop event before the start event is written: the time is the GPU's alone, not the
    Python call's (the small shapes' calls take longer to make than to run)."""
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    gated = torch.cuda.Event()
    gate_out = torch.zeros(2, dtype=torch.int64, device="cuda")

    def once(probe_ns):
        if gate_ns:
            probe.probe(gate_ns, gate_out)
            gated.record()
            side.wait_event(gated)
        if probe_ns:
            with torch.cuda.stream(side):
                probe.probe(probe_ns, out)
        start.record()
        call()
        stop.record()
        torch.cuda.synchronize()
        return start.elapsed_time(stop) * 1e3

    for _ in range(3):
        call()
    torch.cuda.synchronize()
    ns = int(once(0) * 1e3 * 0.8)
    times, clocks = [], []
    while len(times) < 7 or (sum(times) < 250e3 and len(times) < 50):
        times.append(once(ns))
        cycles, elapsed = out.tolist()
        clocks.append(cycles / elapsed * 1e3)
    return times, clocks


def header(f, name, what):
    f.write(f"# file: {name}\n# what: {what}; see validate/torch/gemm_clock.py\n")
    f.write(f"# gpu0_name: {torch.cuda.get_device_name(0)}\n")
    f.write(f"# gpu0_sm_count: {torch.cuda.get_device_properties(0).multi_processor_count}\n")
    f.write(f"# torch: {torch.__version__}\n")
    f.write(f"# launched_by: {os.environ.get('MGSIM_LAUNCHED_BY', '')}\n")
    f.write(f"# env_NCCL_NVLS_ENABLE: {os.environ.get('NCCL_NVLS_ENABLE', '')}\n")
    f.write(f"# date_utc: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%dT%H:%M:%SZ}\n")
    f.write(f"# command: gemm_clock.py {' '.join(sys.argv[1:])}\n")


def clock_set(args, handle, probe, side, out):
    path = os.path.join(args.out, "gemm_clock.csv")
    with open(path, "w") as f:
        header(f, "gemm_clock.csv", "cuBLAS bf16 GEMMs (torch.matmul) timed as validate/cuda/gemm.cu "
               "times them, with NVML's SM clock after the last call and a probe kernel's clock "
               "beside every call")
        f.write("m,n,k,time_us_median,tflops_median,reps,sm_clock_mhz_end,"
                "sm_clock_probe_mhz_median,sm_clock_probe_mhz_min,sm_clock_probe_mhz_max\n")
        for m, n, k in SHAPES:
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
            times, clocks = timed(lambda: a @ b, probe, side, out)
            nvml = pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM)
            t = statistics.median(times)
            line = (f"{m},{n},{k},{t:.3f},{2.0 * m * n * k / t * 1e-6:.1f},{len(times)},{nvml},"
                    f"{statistics.median(clocks):.0f},{min(clocks):.0f},{max(clocks):.0f}\n")
            f.write(line)
            f.flush()
            print(line, end="", flush=True)


def gemm_call(m, n, k, dtype):
    """(call, check): the GEMM C = A B^T in `dtype`, and its largest relative error on C's first
    64 x 64 block against a float32 product of the same (rounded) inputs."""
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    if dtype == "bf16":
        def call():
            return a @ b.t()
        ref_a, ref_b = a, b
    else:
        a8, b8 = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
        one = torch.ones((), device="cuda", dtype=torch.float32)

        def call():
            return torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        ref_a, ref_b = a8, b8

    def check():
        c = call()[:64, :64].float()
        r = ref_a[:64].float() @ ref_b[:64].float().t()
        return float(((c - r).abs() / (r.abs() + 1.0)).max())
    return call, check


def shape_set(args, handle, probe, side, out):
    with open(args.shapes) as f:
        rows = [r for r in csv.DictReader(line for line in f if not line.startswith("#"))]
    shapes = list(dict.fromkeys((int(r["m"]), int(r["n"]), int(r["k"])) for r in rows))
    dtypes = ["bf16", "fp8"] if args.fp8 else ["bf16"]
    path = os.path.join(args.out, "gemm_probe.csv")
    with open(path, "w") as f:
        header(f, "gemm_probe.csv", f"cuBLAS GEMMs C[MxN] = A[MxK] B[NxK]^T on GPU 0, the shapes of "
               f"{os.path.basename(args.shapes)} in its order, bf16 (torch.matmul) then e4m3 "
               f"(torch._scaled_mm, unit scales, bf16 out), timed as validate/cuda/gemm.cu times "
               f"them (each call behind a 500 us gate kernel, so the events time the GPU), NVML's SM clock and power after the last call and a probe kernel's SM "
               f"clock beside every call")
        f.write("m,n,k,dtype,flop,time_us_median,time_us_min,tflops_median,reps,sm_clock_mhz_end,"
                "power_w_end,sm_clock_probe_mhz_median,sm_clock_probe_mhz_min,"
                "sm_clock_probe_mhz_max,max_rel_err,kernels,ok\n")
        for dtype in dtypes:
            for m, n, k in shapes:
                call, check = gemm_call(m, n, k, dtype)
                times, clocks = timed(call, probe, side, out, gate_ns=500_000)
                nvml = pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM)
                power = pynvml.nvmlDeviceGetPowerUsage(handle) / 1000.0
                err = check()
                kernels = kernel_names(call)
                ok = int(err < (2e-2 if dtype == "bf16" else 1e-1))
                t = statistics.median(times)
                flop = 2 * m * n * k
                line = (f"{m},{n},{k},{dtype},{flop},{t:.3f},{min(times):.3f},"
                        f"{flop / t * 1e-6:.1f},{len(times)},{nvml},{power:.1f},"
                        f"{statistics.median(clocks):.0f},{min(clocks):.0f},{max(clocks):.0f},"
                        f"{err:.2e},{kernels},{ok}\n")
                f.write(line)
                f.flush()
                print(line, end="", flush=True)
                del call, check
                torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--shapes", help="a gemm.csv whose (m, n, k) to run (writes gemm_probe.csv)")
    ap.add_argument("--fp8", action="store_true", help="with --shapes: e4m3 rows after bf16's")
    args = ap.parse_args()
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(0)
    probe = load_probe()
    side = torch.cuda.Stream()
    out = torch.zeros(2, dtype=torch.int64, device="cuda")
    (shape_set if args.shapes else clock_set)(args, handle, probe, side, out)


if __name__ == "__main__":
    main()
