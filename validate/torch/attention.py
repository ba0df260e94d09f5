#!/usr/bin/env python3
"""Attention forward on GPU 0 through PyTorch's scaled_dot_product_attention (attention.csv).

Issue 15's attention family: what the FlashAttention-style kernels a user calls cost on one
H200, by backend (PyTorch's SDPA backends: `flash` is FlashAttention-2, written with mma.sync;
`cudnn` is cuDNN's fused attention, on Hopper its wgmma kernels; `efficient` is the CUTLASS
memory-efficient kernel), shape and causality. bf16, inputs (B, H, S, D), no dropout, scale
1/sqrt(D).

Timing: per case 5 warm-up calls, then `reps` calls each between two CUDA events on the current
stream; median, p10 and p90 over them. `sm_clock_mhz`: NVML's SM clock read right after the timed
calls (mean of the reads after each call): that is the idle GPU's clock, not the one the kernels
ran at (validate/torch/attention_clock.py). `sm_clock_probe_mhz`: the clock they ran at, from
`reps` more calls, each beside a one-thread probe kernel on a second stream that spins for 80 % of
the call's median time and divides its clock64() cycles by its %globaltimer nanoseconds (median
over the calls; alone the probe reads 1980 MHz). The probe takes one warp's registers on one SM. `flops` counts the two matrix products, 4 B H S^2 D
(half of it when causal), as FlashAttention's papers do. `kernels`: the CUDA kernels one call
launched (torch.profiler, once per case), so the file says which code ran.

Verified: for the first batch, two heads and the first 256 queries the output is compared with a
float32 softmax(Q K^T / sqrt(D)) V computed directly; `max_abs_err` is the largest difference and
`ok` is 1 when it is below 2e-2 (bf16 inputs and output).

Usage (on the device, through scripts/measure_h200_single.sh, step attention):
  python3 validate/torch/attention.py --out DIR
"""
import argparse
import datetime
import math
import os
import socket
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline
from torch.nn.attention import SDPBackend, sdpa_kernel

try:
    import pynvml
except ImportError:  # the clock column is then empty
    pynvml = None

BACKENDS = {
    "flash": SDPBackend.FLASH_ATTENTION,
    "cudnn": SDPBackend.CUDNN_ATTENTION,
    "efficient": SDPBackend.EFFICIENT_ATTENTION,
}

# (batch, heads, seq, head_dim, causal): 16384 tokens per call at every sequence length, so the
# rows differ in S (the work per token grows with S) and not in how many tokens there are.
SHAPES = (
    [(16384 // s, 16, s, 128, False) for s in (512, 1024, 2048, 4096, 8192, 16384)]
    + [(16384 // s, 32, s, 64, False) for s in (1024, 4096, 16384)]
    + [(16384 // s, 16, s, 128, True) for s in (1024, 4096, 16384)]
)


PROBE_CUDA = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
__global__ void probe_kernel(unsigned long long ns, int64_t* out) {
  unsigned long long t0, t;
  const long long c0 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
  const long long c1 = clock64();
  out[0] = (int64_t)(c1 - c0);
  out[1] = (int64_t)(t - t0);
}
void probe(int64_t ns, torch::Tensor out) {
  probe_kernel<<<1, 1, 0, at::cuda::getCurrentCUDAStream()>>>(
      (unsigned long long)ns, out.data_ptr<int64_t>());
}
"""


def load_probe():
    """The clock probe: probe(ns, out) spins one thread for ns on the current stream and writes
    its clock64() cycles and %globaltimer nanoseconds to out (int64, 2 elements, on the GPU)."""
    return load_inline("clock_probe", "void probe(int64_t ns, torch::Tensor out);",
                       cuda_sources=PROBE_CUDA, functions=["probe"])


def probed_clock(probe, call, reps, ns):
    """Median SM clock (MHz) over `reps` calls, each beside a probe spinning for `ns`."""
    side = torch.cuda.Stream()
    out = torch.zeros(2, dtype=torch.int64, device="cuda")
    clocks = []
    for _ in range(reps):
        torch.cuda.synchronize()
        with torch.cuda.stream(side):
            probe.probe(ns, out)
        call()
        torch.cuda.synchronize()
        cycles, elapsed = out.tolist()
        clocks.append(cycles / elapsed * 1e3)
    return statistics.median(clocks)


def nvml_handle():
    if pynvml is None:
        return None
    try:
        pynvml.nvmlInit()
        return pynvml.nvmlDeviceGetHandleByIndex(0)
    except pynvml.NVMLError:
        return None


def sm_clock(handle):
    if handle is None:
        return float("nan")
    return float(pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM))


def reference_error(q, k, v, out, causal):
    """Largest |out - float32 reference| over batch 0, heads 0-1, queries 0-255."""
    qs = q[0, :2, :256].float()
    ks = k[0, :2].float()
    vs = v[0, :2].float()
    scores = qs @ ks.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        rows = torch.arange(qs.shape[1], device=q.device)[:, None]
        cols = torch.arange(ks.shape[1], device=q.device)[None, :]
        scores = scores.masked_fill(cols > rows, float("-inf"))
    ref = torch.softmax(scores, dim=-1) @ vs
    return (out[0, :2, :256].float() - ref).abs().max().item()


def kernel_names(call):
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        call()
        torch.cuda.synchronize()
    names = sorted({e.name for e in prof.events() if e.device_type.name == "CUDA"})
    return ";".join(n.replace(",", " ")[:120] for n in names)


def measure(backend, shape, reps, handle, probe):
    b, h, s, d, causal = shape
    gen = torch.Generator(device="cuda").manual_seed(1234)
    q, k, v = (
        torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16, generator=gen)
        for _ in range(3)
    )

    def call():
        with sdpa_kernel([BACKENDS[backend]]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

    out = call()  # raises if the backend does not take this case
    torch.cuda.synchronize()
    err = reference_error(q, k, v, out, causal)
    for _ in range(5):
        call()
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    times, clocks = [], []
    for _ in range(reps):
        start.record()
        call()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1e3)  # us
        clocks.append(sm_clock(handle))
    names = kernel_names(call)
    clock_probe = probed_clock(probe, call, reps, int(statistics.median(times) * 1e3 * 0.8))
    flops = 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)
    times.sort()
    q10 = times[len(times) // 10]
    q90 = times[(9 * len(times)) // 10]
    med = statistics.median(times)
    return {
        "time_us_median": med,
        "time_us_p10": q10,
        "time_us_p90": q90,
        "tflops": flops / med * 1e-6,
        "flops": flops,
        "sm_clock_mhz": statistics.fmean(clocks),
        "sm_clock_probe_mhz": clock_probe,
        "max_abs_err": err,
        "kernels": names,
        "reps": reps,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    handle = nvml_handle()
    probe = load_probe()
    path = os.path.join(args.out, "attention.csv")
    props = torch.cuda.get_device_properties(0)
    meta = [
        ("file", "attention.csv"),
        ("what", "attention forward (PyTorch scaled_dot_product_attention) by backend and shape on GPU 0, bf16"),
        ("gpu0_name", props.name),
        ("gpu0_sm_count", props.multi_processor_count),
        ("torch_version", torch.__version__),
        ("cuda_version", torch.version.cuda),
        ("cudnn_version", torch.backends.cudnn.version()),
        ("launched_by", os.environ.get("MGSIM_LAUNCHED_BY", "")),
        ("env_NCCL_NVLS_ENABLE", os.environ.get("NCCL_NVLS_ENABLE", "")),
        ("host", socket.gethostname()),
        ("timer", "CUDA events around each call; sm_clock_mhz: NVML SM clock after each call; "
         "sm_clock_probe_mhz: clock64 / globaltimer of a probe kernel beside each of reps more calls"),
        ("flops", "4 B H S^2 D (x 0.5 when causal): the two matrix products"),
        ("date_utc", datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")),
        ("command", "attention.py " + " ".join(sys.argv[1:])),
    ]
    cols = (
        "backend,batch,heads,seq,head_dim,causal,flops,time_us_median,time_us_p10,time_us_p90,"
        "tflops,sm_clock_mhz,sm_clock_probe_mhz,max_abs_err,reps,kernels,ok"
    )
    with open(path, "w") as f:
        for key, value in meta:
            f.write(f"# {key}: {value}\n")
        f.write(cols + "\n")
        f.flush()
        for backend in BACKENDS:
            for shape in SHAPES:
                b, h, s, d, causal = shape
                try:
                    r = measure(backend, shape, args.reps, handle, probe)
                except RuntimeError as e:  # the backend does not support this case
                    print(f"[attention.csv] skipped {backend} {shape}: {str(e).splitlines()[0]}")
                    torch.cuda.synchronize()
                    continue
                ok = 1 if r["max_abs_err"] < 2e-2 else 0
                row = (
                    f"{backend},{b},{h},{s},{d},{int(causal)},{r['flops']:.0f},"
                    f"{r['time_us_median']:.3f},{r['time_us_p10']:.3f},{r['time_us_p90']:.3f},"
                    f"{r['tflops']:.1f},{r['sm_clock_mhz']:.0f},{r['sm_clock_probe_mhz']:.0f},"
                    f"{r['max_abs_err']:.2e},"
                    f"{r['reps']},{r['kernels']},{ok}"
                )
                f.write(row + "\n")
                f.flush()
                print("[attention.csv] " + row, flush=True)


if __name__ == "__main__":
    main()
