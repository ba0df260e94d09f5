#!/usr/bin/env python3
"""The SM clock while attention runs, against the clock attention.py records (issue 15).

attention.csv's `sm_clock_mhz` is NVML's SM clock read right after each timed call, when the GPU
has gone idle; Nsight Compute showed the kernels running at 1.71-1.80 GHz where that column says
1980 MHz (validate/data/h200-single/system_run22/). This times the same calls as attention.py
(5 warm-up calls, then `reps` calls each between two CUDA events, a synchronize after each) on
three shapes per backend and measures the clock three ways:
  - clock_after: NVML's SM clock read after each call, as attention.py reads it;
  - clock_nvml: NVML's SM clock sampled every 1 ms by a second thread while a call is in flight;
  - clock_probe: a one-thread probe kernel on a second stream, launched just before each call
    and spinning for `probe_fraction` of the call's time: its clock64() cycles over its
    %globaltimer nanoseconds, the SM clock the chip ran at meanwhile (it takes one warp's
    registers on one SM, so one attention CTA there may have to wait for it).

  python3 validate/torch/attention_clock.py --out DIR   -> DIR/attention_clock.csv
"""
import argparse
import datetime
import os
import statistics
import threading
import time

import pynvml
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from attention import load_probe, probed_clock

BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}
SHAPES = [(16, 16, 1024, 128, False), (4, 16, 4096, 128, False), (1, 16, 16384, 128, False)]


class Sampler:
    """NVML SM clock (MHz) and power (W) every `period` seconds, each tagged busy or not."""

    def __init__(self, handle, period=0.001):
        self.handle, self.period = handle, period
        self.busy = False
        self.samples = []  # (busy, clock, power)
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stop:
            busy = self.busy
            clock = pynvml.nvmlDeviceGetClockInfo(self.handle, pynvml.NVML_CLOCK_SM)
            power = pynvml.nvmlDeviceGetPowerUsage(self.handle) / 1000.0
            if busy and self.busy:
                self.samples.append((clock, power))
            time.sleep(self.period)


def measure(handle, probe, backend, shape, reps, probe_fraction=0.8):
    b, h, s, d, causal = shape
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))

    def call():
        with sdpa_kernel([BACKENDS[backend]]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

    for _ in range(5):
        call()
    torch.cuda.synchronize()
    # The probe: one call's time first, then calls with a probe beside each.
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    start.record()
    call()
    stop.record()
    stop.synchronize()
    probe_ns = int(start.elapsed_time(stop) * 1e6 * probe_fraction)
    clock_probe = probed_clock(probe, call, reps, probe_ns)
    sampler = Sampler(handle)
    sampler.thread.start()
    times, after = [], []
    for _ in range(reps):
        sampler.busy = True
        start.record()
        call()
        stop.record()
        stop.synchronize()
        sampler.busy = False
        times.append(start.elapsed_time(stop) * 1e3)
        after.append(pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM))
    sampler.stop = True
    sampler.thread.join()
    clocks = [c for c, _ in sampler.samples]
    powers = [p for _, p in sampler.samples]
    return {
        "time_us_median": statistics.median(times),
        "clock_after_mhz": statistics.fmean(after),
        "clock_nvml_mhz_median": statistics.median(clocks) if clocks else float("nan"),
        "clock_nvml_mhz_min": min(clocks) if clocks else float("nan"),
        "power_nvml_w_median": statistics.median(powers) if powers else float("nan"),
        "samples": len(clocks),
        "clock_probe_mhz_median": clock_probe,
        "reps": reps,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(0)
    probe = load_probe()
    out = torch.zeros(2, dtype=torch.int64, device="cuda")
    alone = []
    for _ in range(10):  # the probe on an idle GPU: the clock it reads with nothing beside it
        probe.probe(1_000_000, out)
        torch.cuda.synchronize()
        cycles, elapsed = out.tolist()
        alone.append(cycles / elapsed * 1e3)
    path = os.path.join(args.out, "attention_clock.csv")
    with open(path, "w") as f:
        f.write("# file: attention_clock.csv\n")
        f.write("# what: attention forward by SDPA backend, timed as attention.py times it, with "
                "NVML's SM clock and power sampled every 1 ms while each call is in flight; see "
                "validate/torch/attention_clock.py\n")
        f.write(f"# gpu0_name: {torch.cuda.get_device_name(0)}\n")
        f.write(f"# torch: {torch.__version__}\n")
        f.write(f"# probe_alone_mhz_median: {statistics.median(alone):.0f} (1 ms, idle GPU)\n")
        f.write(f"# date_utc: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%dT%H:%M:%SZ}\n")
        f.write("backend,batch,heads,seq,head_dim,causal,time_us_median,clock_after_mhz,"
                "clock_nvml_mhz_median,clock_nvml_mhz_min,power_nvml_w_median,samples,"
                "clock_probe_mhz_median,reps\n")
        for backend in BACKENDS:
            for shape in SHAPES:
                r = measure(handle, probe, backend, shape, args.reps)
                line = (f"{backend},{shape[0]},{shape[1]},{shape[2]},{shape[3]},{int(shape[4])},"
                        f"{r['time_us_median']:.3f},{r['clock_after_mhz']:.0f},"
                        f"{r['clock_nvml_mhz_median']:.0f},{r['clock_nvml_mhz_min']:.0f},"
                        f"{r['power_nvml_w_median']:.1f},{r['samples']},"
                        f"{r['clock_probe_mhz_median']:.0f},{r['reps']}\n")
                f.write(line)
                f.flush()
                print(line, end="", flush=True)


if __name__ == "__main__":
    main()
