#!/usr/bin/env python3
"""Checks a candidate mechanism for mlp.csv's reads (docs/VALIDATION.md, mlp.csv): a load's
slot is held for the unloaded latency plus the time its warp waits to issue the loop's
instructions among the SM's other warps, instead of the fitted hbm.latency.

  rate per CTA = min(bytes in flight / (L0 + I x warps / 4 / f), SM cap, HBM / CTAs)

I = instructions in the kernel's main loop per iteration (one unrolled group of loads), counted
from the SASS of mlp.cu's read kernels (validate/data/h200-single/system_run18/sass_mlp_read.txt:
the smallest backward branch span holding the most LDGs); warps = the CTA's warps (one CTA per
SM); 4 schedulers per SM at f = 1.98 GHz; L0 = the latency of the rows with the least in flight
(one CTA, 512 B - 4 KiB in flight: 363 - 403 ns); SM cap = one SM's best read rate (133 GB/s);
HBM = h200.calibrated's hbm.bandwidth. Nothing here is in the model yet: it prints how far this
candidate is from the measurement, beside the model's error on the same rows (the per-case
table `mgsim validate --write docs/VALIDATION.md` wrote).

  scripts/mlp_issue_check.py [--l0-ns 365]
"""
import argparse
import csv
import re
import statistics

DATA = "validate/data/h200-single"


def loop_instructions(path, kernel=r"mlp_readILi(\d+)ELi(\d+)E"):
    """(width, unroll) -> instructions of the main loop of mlp_read<width, unroll>; for another
    kernel name pattern without groups, {(16, 4): ...} (hbm_l2's read_kernel: 16 B x 4)."""
    funcs, cur = {}, None
    for line in open(path):
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = m.group(1)
            funcs.setdefault(cur, [])
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4})\*/\s+(.*?);", line)
        if m and cur:
            funcs[cur].append((int(m.group(1), 16), m.group(2)))
    out = {}
    for name, ins in funcs.items():
        m = re.search(kernel, name)
        if not m:
            continue
        key = (int(m.group(1)), int(m.group(2))) if m.groups() else (16, 4)
        if key in out:
            continue
        best = None
        for addr, text in ins:
            b = re.search(r"BRA (0x[0-9a-f]+)", text)
            if not b or int(b.group(1), 16) >= addr:
                continue
            span = [t for a, t in ins if int(b.group(1), 16) <= a <= addr]
            loads = sum("LDG" in t for t in span)
            if loads and (best is None or (loads, -len(span)) > (best[1], -best[0])):
                best = (len(span), loads)
        out[key] = best[0]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--l0-ns", type=float, default=365.0)
    args = ap.parse_args()
    instr = loop_instructions(f"{DATA}/system_run18/sass_mlp_read.txt")
    hbm_l2 = loop_instructions(f"{DATA}/system_run18/sass_hbm_l2_read.txt", r"read_kernel")
    with open(f"{DATA}/mlp.csv") as f:
        lines = f.readlines()
    header = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    rows = list(csv.DictReader(lines[header:]))
    for i, r in enumerate(rows):
        r["line"] = header + 2 + i  # the file's line number, as mgsim validate reports it
    model = {}  # line -> the model's |error|, from docs/VALIDATION.md's per-case table
    for line in open("docs/VALIDATION.md"):
        m = re.match(r"\| \.\./h200-single/mlp\.csv \| (\d+) \|.*\| ([+-][\d.]+) % \|$", line)
        if m:
            model[int(m.group(1))] = abs(float(m.group(2))) / 100
    clock_ghz, sm_cap, hbm = 1.98, 133.0, 4351.4
    errors, anomalous, now = [], [], []
    for r in rows:
        if r["op"] != "read" or r["set"] not in ("cross", "axis"):
            continue
        threads, width, unroll = (int(r[k]) for k in ("threads_per_cta", "bytes_per_access",
                                                      "unroll"))
        ctas = int(r["ctas"])
        window = threads * width * unroll
        issue_ns = instr[(width, unroll)] * threads / 32 / 4 / clock_ghz
        rate = min(window / (args.l0_ns + issue_ns), sm_cap, hbm / ctas)
        error = float(r["gbps_per_cta_median"]) / rate - 1  # time error: predicted / measured - 1
        (anomalous if unroll == 8 and width >= 8 else errors).append(abs(error))
        now.append(model[r["line"]])

    def show(name, e):
        e = sorted(e)
        print(f"{name:44} {len(e):4} rows  |error| median {100 * statistics.median(e):5.1f} %  "
              f"p90 {100 * e[int(0.9 * len(e))]:5.1f} %")

    # What the data says without a model: the latency one CTA sees (bytes in flight / its rate),
    # and the model's signed error on the reads, by bytes in flight per CTA.
    seen, signed = {}, {}
    for line in open("docs/VALIDATION.md"):
        m = re.match(r"\| \.\./h200-single/mlp\.csv \| (\d+) \|.*\| ([+-][\d.]+) % \|$", line)
        if m:
            signed[int(m.group(1))] = float(m.group(2))
    by_window = {}
    for r in rows:
        if r["op"] != "read" or r["set"] not in ("cross", "axis"):
            continue
        window = int(r["bytes_in_flight_per_cta"])
        by_window.setdefault(window, []).append(signed[r["line"]])
        if r["ctas"] == "1":
            seen.setdefault(window, []).append(window / float(r["gbps_per_cta_median"]))
    print("one CTA, latency seen (ns) by bytes in flight:",
          " ".join(f"{w}:{min(v):.0f}-{max(v):.0f}" for w, v in sorted(seen.items())))
    print("the model's median error on reads (%) by bytes in flight per CTA:",
          " ".join(f"{w}:{statistics.median(v):+.0f}" for w, v in sorted(by_window.items())))
    print("loop instructions per iteration (width, unroll):",
          " ".join(f"{k[0]}x{k[1]}:{v}" for k, v in sorted(instr.items())))
    for r in rows:  # hbm_l2's kernel, one CTA: its loop, the candidate's rate and the measured
        if r["set"] == "hbm_l2_kernel" and r["ctas"] == "1":
            window = int(r["bytes_in_flight_per_cta"])
            issue_ns = hbm_l2[(16, 4)] * int(r["threads_per_cta"]) / 32 / 4 / clock_ghz
            print(f"hbm_l2's read kernel: {hbm_l2[(16, 4)]} instructions a loop; one CTA "
                  f"{float(r['gbps_per_cta_median']):.1f} GB/s measured, "
                  f"{min(window / (args.l0_ns + issue_ns), sm_cap):.1f} by the candidate")
    show("reads, the model now (docs/VALIDATION.md)", now)
    show("reads, the candidate", errors + anomalous)
    show("reads without unroll 8 of 8- and 16-byte loads", errors)
    show("unroll 8 of 8- and 16-byte loads", anomalous)


if __name__ == "__main__":
    main()
