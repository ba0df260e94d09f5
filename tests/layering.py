#!/usr/bin/env python3
"""The layering test: no source file includes a header of a layer its own layer does not link.

The layers and what each links are read from the build files themselves (each folder's
CMakeLists.txt: `add_library(mgsim_x files...)` / `add_executable(mgsim ...)` and the mgsim_*
names of its `target_link_libraries`), so this test and the build cannot disagree. A file belongs
to the target that lists it (a header to the target listing its .cpp, else to its folder's target);
"sim/config.hpp" is mgsim_config, "sim/engine.hpp" mgsim_sim. A file may include headers of its
own target and of every target its target links, directly or through others. Anything else (an
"upward" include, such as models/ including traces/, or the engine including sim/config.hpp) is
reported as file:line and fails the test.

  tests/layering.py SOURCE_DIR              check the tree (exit 1 on any violation)
  tests/layering.py SOURCE_DIR --self-test  check that an upward include would be caught
"""
import re
import sys
from pathlib import Path

LAYER_DIRS = ["sim", "models", "topologies", "traces", "validate", "cli"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
TARGET = re.compile(r"add_(?:library|executable)\(\s*(mgsim\w*)([^)]*)\)", re.S)
LINKS = re.compile(r"target_link_libraries\(\s*(mgsim\w*)([^)]*)\)", re.S)


def read_targets(root: Path):
    """(file -> target, target -> set of linked targets, folder -> default target)."""
    owner, links, folder_target = {}, {}, {}
    for layer in LAYER_DIRS:
        cmake = root / layer / "CMakeLists.txt"
        if not cmake.exists():
            continue
        text = re.sub(r"#.*", "", cmake.read_text())
        for name, body in TARGET.findall(text):
            folder_target.setdefault(layer, name)
            links.setdefault(name, set())
            for src in body.split():
                if src.endswith(".cpp"):
                    stem = f"{layer}/{src[:-4]}"
                    owner[stem + ".cpp"] = name
                    owner[stem + ".hpp"] = name
        for name, body in LINKS.findall(text):
            links.setdefault(name, set()).update(w for w in body.split() if w.startswith("mgsim_")
                                                 and w not in ("mgsim_warnings",))
    return owner, links, folder_target


def closure(links):
    out = {}
    for t in links:
        seen, todo = {t}, [t]
        while todo:
            for d in links.get(todo.pop(), ()):
                if d not in seen:
                    seen.add(d)
                    todo.append(d)
        out[t] = seen
    return out


def target_of(path: str, owner, folder_target):
    if path in owner:
        return owner[path]
    top = path.split("/")[0]
    return folder_target.get(top)


def violations(files, owner, links, folder_target):
    """files: {relative path: text}. Yields 'path:line: ...' for every include out of reach."""
    reach = closure(links)
    for path, text in sorted(files.items()):
        src = target_of(path, owner, folder_target)
        if src is None:
            continue
        for m in INCLUDE.finditer(text):
            inc = m.group(1)
            dst = target_of(inc, owner, folder_target)
            if dst is None or dst in reach[src]:
                continue
            line = text.count("\n", 0, m.start()) + 1
            yield (f"{path}:{line}: {src} includes \"{inc}\" of {dst}, which it does not link "
                   f"(it links: {', '.join(sorted(reach[src] - {src})) or 'nothing'})")


def tree_files(root: Path):
    files = {}
    for layer in LAYER_DIRS:
        for p in sorted((root / layer).rglob("*")):
            if p.suffix in (".cpp", ".hpp") and "cuda" not in p.parts:
                files[p.relative_to(root).as_posix()] = p.read_text()
    return files


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    root = Path(sys.argv[1])
    owner, links, folder_target = read_targets(root)
    files = tree_files(root)
    if len(sys.argv) == 3 and sys.argv[2] == "--self-test":
        # Two upward includes that must be caught: a model including the schedule language, and
        # the engine including the YAML reader.
        files["models/sm.cpp"] += '\n#include "traces/executor.hpp"\n'
        files["sim/engine.cpp"] += '\n#include "sim/config.hpp"\n'
        found = list(violations(files, owner, links, folder_target))
        ok = (any(v.startswith("models/sm.cpp:") for v in found)
              and any(v.startswith("sim/engine.cpp:") for v in found))
        print("\n".join(found))
        print("self-test:", "both upward includes caught" if ok else "MISSED an upward include")
        sys.exit(0 if ok else 1)
    found = list(violations(files, owner, links, folder_target))
    for v in found:
        print(v)
    print(f"{len(files)} files, {len(folder_target)} layers, {len(found)} upward includes")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
