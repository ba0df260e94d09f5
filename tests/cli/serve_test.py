#!/usr/bin/env python3
"""mgsim serve answers each JSON line on stdin with one JSON line on stdout: a run as `mgsim run
--json` prints it, or an error of a kind (input, limit, deadlock), with the request's id; the same
request gives the same bytes; a machine is loaded once; with "check" or a "problem", what
`mgsim check` finds.

  tests/cli/serve_test.py MGSIM     (from the repository root; exit 1 on any failure)
"""
import json
import subprocess
import sys
from pathlib import Path



def main():
    mgsim = sys.argv[1]
    small_copy = Path("tests/cli/small_copy.yaml").read_text()  # 4 KiB from rank 0 to rank 1
    all_reduce = Path("examples/all_reduce_ring.yaml").read_text()
    deadlock = Path("tests/cli/bad/deadlock.yaml").read_text()
    flag_reuse = Path("tests/cli/hacks/flag_reuse.yaml").read_text()
    one_shot = Path("tests/cli/hacks/all_reduce.yaml").read_text()
    requests = [
        {"id": "copy", "topology": "hgx-h200-8", "schedule": small_copy},
        {"id": "copy", "topology": "hgx-h200-8", "schedule": small_copy},
        {"id": "dict", "topology": "hgx-h200-8", "params": {"SIZE": "4KiB"},
         "schedule": {"world": 2, "params": {"SIZE": "1MiB"},
                      "streams": [{"name": "copy", "if": "rank == 0",
                                   "ops": [{"memcpy": {"bytes": "SIZE", "dst": 1}}]}]}},
        {"id": "bad", "topology": "hgx-h200-8", "schedule": small_copy.replace("memcpy", "memcopy")},
        {"id": "limit", "topology": "hgx-h200-8", "schedule": all_reduce,
         "params": {"SIZE": "1GiB"}, "limits": {"max_events": 10000}},
        {"id": "deadlock", "topology": "hgx-h200-8", "schedule": deadlock},
        {"id": "machine", "topology": "no-such-topology", "schedule": small_copy},
        {"id": "check", "topology": "hgx-h200-8", "schedule": flag_reuse,
         "params": {"RESET": "0"}, "check": True},
        {"id": "problem", "topology": "hgx-h200-8", "schedule": one_shot, "params": {"OWN": "1"},
         "problem": "tests/cli/hacks/all_reduce.problem.yaml"},
    ]
    lines = [json.dumps(r) for r in requests] + ["{not json", ""]
    p = subprocess.run([mgsim, "serve"], input="\n".join(lines) + "\n", capture_output=True,
                       text=True, timeout=120)
    out = p.stdout.splitlines()
    failures = []

    def expect(cond, what):
        if not cond:
            failures.append(what)

    expect(p.returncode == 0, f"exit code {p.returncode}: {p.stderr}")
    expect(len(out) == 10, f"{len(out)} answers to 10 requests (the blank line gets none)")
    if len(out) == 10:
        a = [json.loads(line) for line in out]
        expect(a[0]["id"] == "copy" and a[0]["ok"], f"a run: {out[0]}")
        # The h200 preset's 4 KiB copy (tests/traces/behaviour_test.cpp): 5511106 ps.
        expect(a[0]["ok"] and a[0]["result"]["runs"][0]["end_ps"] == 5511106, "its time")
        expect(out[1] == out[0], "the same request, the same bytes")
        expect(a[2]["ok"] and a[2]["result"]["runs"][0]["end_ps"] == 5511106,
               f"a dict schedule with params: {out[2]}")
        expect(a[3]["error"] == "input" and "<schedule>:7:9: error: unknown key 'memcopy'"
               in a[3]["message"], f"bad input: {out[3]}")
        expect(a[4]["error"] == "limit" and "passed 10000 events" in a[4]["message"],
               f"a limit: {out[4]}")
        expect(a[5]["error"] == "deadlock" and "deadlocked" in a[5]["message"],
               f"a deadlock: {out[5]}")
        expect(a[6]["error"] == "input" and "no-such-topology" in a[6]["message"],
               f"an unknown machine: {out[6]}")
        # The request lines, then the line that is not JSON: its answer is last.
        expect(a[9]["error"] == "input" and a[9]["id"] == "", f"a line that is not JSON: {out[9]}")
        expect(a[7]["ok"] and [v["kind"] for v in a[7]["violations"]] == ["stale_wait",
                                                                          "early_read"],
               f"a checked run: {out[7]}")
        e = a[8]["ok"] and a[8]["evaluation"]
        expect(e and not e["valid"] and e["violations"][0]["kind"] == "missing_input"
               and e["speedup"] == e["baseline_us"] / e["time_us"],
               f"a schedule evaluated against a problem: {out[8]}")
    for f in failures:
        print("FAIL:", f)
    if failures:
        print("--- stdout:\n" + p.stdout + "--- stderr:\n" + p.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
