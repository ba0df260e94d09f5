#!/usr/bin/env python3
"""Fails on a Catch2 TEST_CASE whose name ctest cannot run.

catch_discover_tests registers each test case by name in a CMake list, where ';' separates
items: a name with ';' becomes a filter that matches no test case, and Catch2 then exits 0
("No tests ran"), so the test passes whatever its assertions say. Usage: test_names.py ROOT
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
bad = []
for path in sorted(root.glob("tests/**/*.cpp")):
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        m = re.search(r'TEST_CASE\("([^"]*)"', line)
        if m and ";" in m.group(1):
            bad.append(f"{path.relative_to(root)}:{lineno}: test name has ';' (ctest would "
                       f"never run it): {m.group(1)}")
print("\n".join(bad) if bad else "every TEST_CASE name is runnable by ctest")
sys.exit(1 if bad else 0)
