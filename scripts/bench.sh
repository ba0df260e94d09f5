#!/usr/bin/env bash
# Runs every benchmark program of a build (default: build/) and prints their numbers.
# Benchmarks are never timed tests; their latest numbers live in docs/PERFORMANCE.md.
set -euo pipefail
build=${1:-build}
found=0
for b in "$build"/tests/bench/*/bench_*; do
  [ -x "$b" ] || continue
  found=1
  echo "== $b"
  "$b" --benchmark_min_time=0.2
done
[ "$found" = 1 ] || { echo "no benchmark programs under $build/tests/bench (configure with -DMGSIM_BENCHMARKS=ON)" >&2; exit 1; }
