#!/usr/bin/env python3
"""How long a warp waits for its HBM loads by the lines it waits for (mlp_warps.csv,
validate/cuda/mlp.cu --warps; docs/VALIDATION.md, "A warp waits for the latest of its lines"),
beside the model's wait for the latest of k lines, hbm.latency + hbm.latency_spread x (H_k - 1).

For each read row of mlp.cu's loops that wait once (all but 8 B x 8 and 16 B x 8:
scripts/sass_loads.py): the wait per iteration, W / r (W the CTA's bytes in flight, r its rate
per CTA), by warps and lines per warp (k = W / warps / 128 B). It prints the median wait of each
(warps, k) and, for the preset, the model's idle wait for k lines and its difference. It fits
nothing (the calibration fit `hbm spread` does, on the one-warp rows).

--tma: the same question of one TMA message at a time (tma_local.csv's loads, one CTA, one
outstanding): the wait per message beyond its bytes' time through the SM's memory pipe
(message / sm.memory_rate) by the message's lines, beside the model's latest-of-k growth from the
smallest message (the fixed part, the mbarrier's completion, is not the question here).

  scripts/hbm_spread.py [--data validate/data/h200-single] [--preset models/presets/...yaml] [--tma]

The preset defaults to the folder's GPU's calibrated one (h200-single: h200.calibrated).
"""
import argparse
import csv
import statistics

from mlp_errors import preset_value

LINE = 128


def harmonic(k):
    return sum(1 / i for i in range(1, k + 1))


def latest_of(latency, spread, k):
    """The model's idle wait for the latest of k lines (models::HbmSpec::latest_of)."""
    return latency + spread * (harmonic(k) - 1)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default="validate/data/h200-single")
    p.add_argument("--preset")
    p.add_argument("--tma", action="store_true", help="tma_local.csv's one-message loads instead")
    args = p.parse_args()
    gpu = args.data.rstrip("/").split("/")[-1].split("-")[0]
    preset = args.preset or f"models/presets/{gpu}.calibrated.yaml"
    latency = preset_value(preset, "hbm", "latency")
    spread = preset_value(preset, "hbm", "latency_spread")
    with open(f"{args.data}/mlp_warps.csv") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    waits = {}  # (warps, lines per warp) -> waits in ns
    for r in rows:
        width, unroll = int(r["bytes_per_access"]), int(r["unroll"])
        if r["op"] != "read" or (unroll == 8 and width in (8, 16)):
            continue
        warps = int(r["threads_per_cta"]) // 32
        window = int(r["bytes_in_flight_per_cta"])
        wait = window / (float(r["gbps_per_cta_median"]) * 1e9)
        waits.setdefault((warps, window // warps // LINE), []).append(wait * 1e9)
    print(f"{preset}: hbm.latency {latency * 1e9:.1f} ns, hbm.latency_spread {spread * 1e9:.1f} ns")
    if args.tma:
        return tma(args.data, latency, spread, preset_value(preset, "sm", "memory_rate"))
    print("warps  lines/warp  lines/SM  rows  measured wait (median, ns)  model (idle)  model/measured")
    for (warps, k), w in sorted(waits.items()):
        model = latest_of(latency, spread, k) * 1e9
        m = statistics.median(w)
        print(f"{warps:5}  {k:10}  {warps * k:8}  {len(w):4}  {m:26.1f}  {model:12.1f}  "
              f"{model / m:14.3f}")


def tma(data, latency, spread, pipe):
    with open(f"{data}/tma_local.csv") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    rows = [r for r in rows if r["op"] == "load" and r["outstanding"] == "1" and r["ctas"] == "1"]
    rows.sort(key=lambda r: int(r["message_bytes"]))
    print(f"sm.memory_rate {pipe * 1e-9:.1f} GB/s")
    print("message (B)  lines  wait per message (ns)  beyond the pipe (ns)  growth  model growth")
    first = None
    for r in rows:
        message = int(r["message_bytes"])
        k = message // LINE
        per = message / (int(r["bytes_moved_per_rep"]) / (float(r["time_us_median"]) * 1e-6))
        beyond = (per - message / pipe) * 1e9
        model = latest_of(latency, spread, k) * 1e9
        if first is None:
            first = (beyond, model)
        print(f"{message:11}  {k:5}  {per * 1e9:21.1f}  {beyond:20.1f}  {beyond - first[0]:6.1f}  "
              f"{model - first[1]:12.1f}")


if __name__ == "__main__":
    main()
