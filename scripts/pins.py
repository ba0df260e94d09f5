#!/usr/bin/env python3
"""Regenerates what the pinned end-to-end tests see, and shows what moved.

  scripts/pins.py snapshot BUILD OUT   run every `cli.*` test's mgsim command of BUILD (as ctest
                                       knows it) and write its whole output to OUT/<test>.out,
                                       plus OUT/validate.out (mgsim validate --hw h200.calibrated)
                                       and OUT/calibrate.yaml (mgsim calibrate validate/data/h200)
  scripts/pins.py diff OLD NEW         list the snapshots that differ, with their changed lines

A model change that moves a number shows every moved number at once: snapshot before, snapshot
after, diff. A refactor that moves none shows nothing (exit 0); anything that moved exits 1.
"""
import difflib
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cli_tests(build: Path):
    out = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, check=True,
                         capture_output=True, text=True).stdout
    for t in json.loads(out)["tests"]:
        if t["name"].startswith("cli.") and t["command"][0].endswith("expect.sh"):
            # expect.sh RC PATTERN MGSIM ARGS...: the mgsim command starts at index 3.
            yield t["name"], t["command"][3:]


def run(cmd, path: Path):
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    # The snapshot folder's own path is printed by some commands; it must not count as a move.
    text = f"exit {p.returncode}\n{p.stdout}{p.stderr}".replace(str(path.parent), "OUT")
    path.write_text(text)


def snapshot(build: Path, out: Path):
    out.mkdir(parents=True, exist_ok=True)
    mgsim = None
    for name, cmd in cli_tests(build):
        mgsim = cmd[0]
        run(cmd, out / f"{name}.out")
    if mgsim is None:
        sys.exit(f"no cli.* tests in {build}")
    run([mgsim, "validate", "--hw", "h200.calibrated"], out / "validate.out")
    cal = out / "calibrate.yaml"
    run([mgsim, "calibrate", "validate/data/h200", "-o", str(cal)], out / "calibrate.out")


def diff(old: Path, new: Path) -> int:
    names = sorted({p.name for p in old.iterdir()} | {p.name for p in new.iterdir()})
    moved = 0
    for n in names:
        a = (old / n).read_text().splitlines() if (old / n).exists() else ["<missing>"]
        b = (new / n).read_text().splitlines() if (new / n).exists() else ["<missing>"]
        if a == b:
            continue
        moved += 1
        print(f"== {n}")
        for line in difflib.unified_diff(a, b, lineterm="", n=0):
            if not line.startswith(("---", "+++", "@@")):
                print(line[:300])
    print(f"{moved} of {len(names)} snapshots moved")
    return 1 if moved else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "snapshot":
        snapshot(Path(sys.argv[2]).resolve(), Path(sys.argv[3]).resolve())
    elif len(sys.argv) == 4 and sys.argv[1] == "diff":
        sys.exit(diff(Path(sys.argv[2]), Path(sys.argv[3])))
    else:
        sys.exit(__doc__)
