#!/usr/bin/env python3
"""How many latencies a kernel's compiled load loop waits per iteration (an ld/st load's
`rounds`, docs/LANGUAGE.md), read from its SASS (cuobjdump -sass).

A warp issues in order and stalls at the first instruction that reads a register a pending load
writes (or overwrites one). Its main loop (the shortest backward branch holding the most LDGs) is
run for a few iterations with loads that return after L cycles and other instructions that take
one; the steady-state time per iteration over L, rounded, is the number of latencies a thread
waits per group of loads. A loop that issues all its loads before it uses any waits once; one
that uses a load before it has issued the rest (register reuse, a dependent address chain)
waits more.

  scripts/sass_loads.py                 print every kernel's loop of the SASS files below
  scripts/sass_loads.py --check         and fail unless the cases and the fit say the same
  scripts/sass_loads.py --expected      one warp's time per iteration of mlp.cu's read loops and
                                        hbm_l2's, each line's latency drawn as the preset's
                                        (hbm.latency + an exponential part of mean
                                        hbm.latency_spread, a load's wait the latest of its
                                        lines; seeded), beside the model's (rounds x the latest
                                        of the lines per wait) and mlp_warps.csv's one-warp rows

--check compares with validate/cases/mlp.yaml's ROUNDS expression (mlp.cu's read loops by WIDTH
and UNROLL) and with kHbmLoadRounds in validate/fits/memory.cpp (hbm_l2.cu's read loop, which
validate/cases/hbm.yaml, l2.yaml and l2_contention.yaml declare as `rounds: 2`).
"""
import argparse
import csv
import random
import re
import statistics
import sys

DATA = "validate/data/h200-single/system_run18"
MLP = (f"{DATA}/sass_mlp_read.txt", r"mlp_readILi(\d+)ELi(\d+)E")
HBM_L2 = (f"{DATA}/sass_hbm_l2_read.txt", r"read_kernel")
# Run 20: the other streaming loops the cases model with ld/st ops (whole SASS per program).
RUN20 = "validate/data/h200-single/system_run20"
MLP_COPY = (f"{RUN20}/sass_mlp.txt", r"mlp_copyILi(\d+)ELi(\d+)E")
OTHERS = [("kernels.cuh copy_kernel (hbm.csv copies, peer_sm.cu)", f"{RUN20}/sass_peer_sm.txt",
           r"11copy_kernel"),
          ("membound.cu grid_stride_kernel<op>", f"{RUN20}/sass_membound.txt",
           r"grid_stride_kernelILNS_2OpE(\d)E")]
LATENCY_CYCLES = 1000  # long enough that the loop's own instructions do not round up


def functions(path):
    """name -> [(address, instruction text)] of each function in a cuobjdump -sass listing."""
    out, cur = {}, None
    for line in open(path):
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = m.group(1)
            out.setdefault(cur, [])
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4})\*/\s+(.*?)\s*;", line)
        if m and cur:
            out[cur].append((int(m.group(1), 16), m.group(2)))
    return out


def main_loop(ins):
    """The instructions of the shortest backward branch that holds the most LDGs."""
    best = None
    for addr, text in ins:
        b = re.search(r"BRA (0x[0-9a-f]+)", text)
        if not b or int(b.group(1), 16) >= addr:
            continue
        span = [t for a, t in ins if int(b.group(1), 16) <= a <= addr]
        key = (sum("LDG" in t for t in span), -len(span))
        if key[0] and (best is None or key > best[0]):
            best = (key, span)
    if best is None:
        sys.exit("no loop with a global load")
    return best[1]


def registers(token, width):
    m = re.fullmatch(r"R(\d+)(?:\.64)?", token)
    return set(range(int(m.group(1)), int(m.group(1)) + width)) if m else set()


def decode(text):
    """(is a global load, registers read, registers written) of one instruction."""
    words = text.split()
    if words[0].startswith("@"):
        words = words[1:]
    op, operands = words[0], " ".join(words[1:])
    parts = [p.strip() for p in operands.split(",")]
    reads = set()
    for token in re.findall(r"(?<![A-Z])R\d+(?:\.64)?", ",".join(parts[1:])):
        reads |= registers(token, 2 if token.endswith(".64") else 1)
    load = op.startswith("LDG")
    width = 1
    if load:
        m = re.search(r"\.(128|64)(?:\.|$)", op)
        width = {"128": 4, "64": 2}.get(m.group(1) if m else "", 1)
    return load, reads, registers(parts[0], width) if parts and parts[0] else set()


def rounds(loop, latency=LATENCY_CYCLES, iterations=6):
    """Latencies per iteration of `loop`, steady state, the most loads in flight at once, and the
    loads issued between one wait and the next in the last iteration (the loads each wait is for:
    issued together, they return together, so the wait ends with the latest of their lines; a
    stall shorter than half a latency is one of them returning, not a wait of its own)."""
    ready, t, starts, most = {}, 0, [], 0
    issued = []  # per iteration: loads issued since the last wait, closed at each wait
    for _ in range(iterations):
        starts.append(t)
        issued.append([0])
        for text in loop:
            load, reads, writes = decode(text)
            waited = max([t] + [ready.get(r, 0) for r in reads | writes])
            if waited - t > latency // 2:
                issued[-1].append(0)
            t = waited
            for r in writes:
                ready[r] = t + (latency if load else 1)
            if load:
                most = max(most, len({v for v in ready.values() if v > t + 1}))
                issued[-1][-1] += 1
            t += 1
    per_iteration = (starts[-1] - starts[1]) / (iterations - 2)
    # The last iteration's first wait is for the loads the iteration before issued after its
    # last wait: they join the last iteration's own trailing loads.
    last = issued[-1]
    batches = last[1:-1] + [issued[-2][-1] + last[0]] if len(last) > 1 else last
    return round(per_iteration / latency), most, batches


def expected(loop, latency, spread, iterations=2000, seed=1):
    """Mean ns per iteration of `loop` for one warp when each line of a load returns after
    latency - spread + Exp(spread) ns (mean `latency`) and its load when the latest has, other
    instructions 0.5 ns (about one SM cycle); steady state, seeded."""
    rnd = random.Random(seed)
    ready, t, starts = {}, 0.0, []
    for _ in range(iterations):
        starts.append(t)
        for text in loop:
            load, reads, writes = decode(text)
            t = max([t] + [ready.get(r, 0) for r in reads | writes])
            done = t + 0.5
            if load:
                width = max(len(writes), 1) * 4  # bytes per thread: the registers it writes
                lines = max(1, 32 * width // 128)
                done = t + max(latency - spread + rnd.expovariate(1 / spread) if spread else latency
                               for _ in range(lines))
            for r in writes:
                ready[r] = done
            t += 0.5
    skip = iterations // 10
    return (starts[-1] - starts[skip]) / (iterations - 1 - skip)


def show_expected(preset):
    from hbm_spread import latest_of
    from mlp_errors import preset_value
    latency = preset_value(preset, "hbm", "latency") * 1e9
    spread = preset_value(preset, "hbm", "latency_spread") * 1e9
    measured = {}
    with open("validate/data/h200-single/mlp_warps.csv") as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            if r["op"] == "read" and r["threads_per_cta"] == "32":
                key = (int(r["bytes_per_access"]), int(r["unroll"]))
                window = int(r["bytes_in_flight_per_cta"])
                measured.setdefault(key, []).append(window / float(r["gbps_per_cta_median"]))
    print(f"{preset}: hbm.latency {latency:.1f} ns, hbm.latency_spread {spread:.1f} ns; one warp")
    print("loop                         rounds  loads per wait  expected (ns)  model (ns)  "
          "measured (ns)")
    rows = [(f"mlp_read {w:2} B x {u}", (w, u), ins) for (w, u), ins in
            sorted(main_loops(*MLP).items())]
    rows += [("hbm_l2 read_kernel 16 B x 4", None, ins) for ins in main_loops(*HBM_L2).values()]
    for name, key, loop in rows:
        n, _, batches = rounds(loop)
        width = 16 if key is None else key[0]
        lines = 32 * width // 128 * sum(batches)
        model = n * latest_of(latency, spread, max(1, -(-lines // n)))
        got = f"{statistics.median(measured[key]):.1f}" if key in measured else "-"
        print(f"{name:27}  {n:6}  {' + '.join(map(str, batches)):>14}  "
              f"{expected(loop, latency, spread):13.1f}  {model:10.1f}  {got:>13}")


def main_loops(path, pattern):
    """key -> the main loop's instructions of each matching kernel."""
    out = {}
    for name, ins in functions(path).items():
        m = re.search(pattern, name)
        if m:
            out.setdefault(tuple(int(g) for g in m.groups()) or name, main_loop(ins))
    return out


def loops(path, pattern):
    """key -> (instructions, loads, most in flight, rounds, loads per wait) of each matching
    kernel's loop."""
    out = {}
    for key, loop in main_loops(path, pattern).items():
        n, most, batches = rounds(loop)
        out[key] = (len(loop), sum("LDG" in t for t in loop), most, n, batches)
    return out


def mlp_expression():
    for line in open("validate/cases/mlp.yaml"):
        m = re.match(r"\s*ROUNDS:\s*(.+?)\s*$", line)
        if m:
            return m.group(1).strip("\"'")
    sys.exit("validate/cases/mlp.yaml has no ROUNDS param")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--expected", action="store_true")
    ap.add_argument("--preset", default="models/presets/h200.calibrated.yaml")
    args = ap.parse_args()
    if args.expected:
        return show_expected(args.preset)
    mlp = loops(*MLP)
    hbm_l2 = loops(*HBM_L2)
    print("kernel loop                instructions  loads  most in flight  rounds  loads per wait")
    row = "{:27} {:4}      {:4}  {:8}  {:8}  {}"
    for (width, unroll), v in sorted(mlp.items()):
        print(row.format(f"mlp_read {width:2} B x {unroll}", *v[:4], " + ".join(map(str, v[4]))))
    for v in hbm_l2.values():
        print(row.format("hbm_l2 read_kernel 16 B x 4", *v[:4], " + ".join(map(str, v[4]))))
    mlp_copy = loops(*MLP_COPY)
    for (width, unroll), v in sorted(mlp_copy.items()):
        print(row.format(f"mlp_copy {width:2} B x {unroll}", *v[:4], " + ".join(map(str, v[4]))))
    for name, path, pattern in OTHERS:
        for key, v in sorted(loops(path, pattern).items(), key=str):
            print(f"{name} {key if isinstance(key, tuple) else ''}: {v[0]} instructions, "
                  f"{v[1]} loads, most in flight {v[2]}, rounds {v[3]}")
    if not args.check:
        return
    bad = []
    expression = mlp_expression()

    def said(width, unroll, hbm_l2_kernel):
        names = {"WIDTH": width, "UNROLL": unroll, "HBM_L2": hbm_l2_kernel}
        return int(eval(expression, {"__builtins__": {}}, names))

    for (width, unroll), v in sorted(mlp.items()):
        if said(width, unroll, 0) != v[3]:
            bad.append(f"mlp.yaml's ROUNDS gives {said(width, unroll, 0)} for {width} B x "
                       f"{unroll}, the SASS {v[3]}")
    if any(v[3] != 1 for v in mlp_copy.values()):
        bad.append("an mlp_copy loop waits more than once: mlp.yaml's copy_reader says once")
    hbm_l2_rounds = next(iter(hbm_l2.values()))[3]
    if said(16, 4, 1) != hbm_l2_rounds:
        bad.append(f"mlp.yaml's ROUNDS gives {said(16, 4, 1)} for hbm_l2's kernel, the SASS "
                   f"{hbm_l2_rounds}")
    fit = re.search(r"kHbmLoadRounds = (\d+)", open("validate/fits/memory.cpp").read())
    if not fit or int(fit.group(1)) != hbm_l2_rounds:
        bad.append("validate/fits/memory.cpp's kHbmLoadRounds differs from hbm_l2's read loop")
    for case in ("hbm.yaml", "l2.yaml", "l2_contention.yaml"):
        if f"rounds: {hbm_l2_rounds}" not in open(f"validate/cases/{case}").read():
            bad.append(f"validate/cases/{case} does not declare hbm_l2's read loop's rounds")
    if bad:
        sys.exit("\n".join(bad))
    print("the cases and the fit say what the SASS says")


if __name__ == "__main__":
    main()
