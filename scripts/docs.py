#!/usr/bin/env python3
"""Numbers quoted in the docs come from commands, not from hands.

A fenced block in a Markdown file whose first line starts with "$ mgsim" or "$ scripts/" is a
quoted run: each "$ COMMAND" line is followed by exactly what COMMAND prints (stdout and stderr).
COMMAND runs with `sh -c` in the repository root, with the mgsim of BUILD first on PATH (so
"$ mgsim ... | grep x" works).

  scripts/docs.py check BUILD [FILE.md ...]   exit 1, showing the difference, when a quoted run
                                              prints something else today (ctest runs this)
  scripts/docs.py update BUILD [FILE.md ...]  rewrite every quoted run with what it prints now,
                                              and list the files that moved
Default files: README.md and docs/*.md.
"""
import difflib
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```[^\n]*\n(\$ (?:mgsim|scripts/).*?)^```", re.S | re.M)


def run(cmd: str, build: Path) -> str:
    env = dict(os.environ, PATH=f"{build.resolve() / 'cli'}{os.pathsep}{os.environ['PATH']}")
    p = subprocess.run(["sh", "-c", cmd], cwd=ROOT, env=env, capture_output=True, text=True)
    return p.stdout + p.stderr


def regenerate(block: str, build: Path) -> str:
    out = []
    for line in block.splitlines():
        if line.startswith("$ "):
            out.append(line + "\n" + run(line[2:], build))
    return "".join(out)


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("check", "update"):
        sys.exit(__doc__)
    mode, build = sys.argv[1], Path(sys.argv[2])
    files = [Path(f) for f in sys.argv[3:]] or [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    moved, blocks = [], 0
    for f in files:
        text = f.read_text()
        new = text
        for m in FENCE.finditer(text):
            blocks += 1
            fresh = regenerate(m.group(1), build)
            if fresh != m.group(1):
                moved.append(f)
                print(f"== {f.relative_to(ROOT)}: a quoted run prints something else now")
                for d in difflib.unified_diff(m.group(1).splitlines(), fresh.splitlines(),
                                              lineterm="", n=0):
                    if not d.startswith(("---", "+++", "@@")):
                        print(d)
                new = new.replace(m.group(1), fresh, 1)
        if mode == "update" and new != text:
            f.write_text(new)
    print(f"{blocks} quoted runs, {len(moved)} moved" +
          (" (updated)" if mode == "update" and moved else ""))
    sys.exit(1 if moved and mode == "check" else 0)


if __name__ == "__main__":
    main()
