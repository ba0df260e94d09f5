#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz, built in BUILD (make build-fuzz), for SECONDS each:
#
#   scripts/fuzz.sh BUILD SECONDS [TARGET ...]      (default: every target)
#
# Each target starts from its corpus in BUILD/tests/fuzz/corpus/TARGET (kept between runs; new
# inputs go there), its seeds from the tree (below) and its regressions, tests/fuzz/regressions/
# TARGET (each crash found becomes one: the input that caused it, fixed since). A crash, a
# sanitizer report, a timeout or running out of memory stops the script with libFuzzer's exit
# status; the input is written to BUILD/tests/fuzz/crashes/TARGET/. ctest runs it for a few
# seconds per target (make test), `make fuzz` for longer.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
seconds=$2
shift 2
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(schedule topology hardware expression units csv)

seeds() {
  case $1 in
    schedule) echo examples problems tests/cli/bad ;;
    topology) echo topologies/presets ;;
    hardware) echo models/presets ;;
    expression) echo tests/fuzz/seeds/expression ;;
    units) echo tests/fuzz/seeds/units ;;
    csv) echo validate/data ;;
    *) echo "fuzz.sh: no target '$1'" >&2; exit 2 ;;
  esac
}

for t in "${targets[@]}"; do
  dirs=()
  for d in $(seeds "$t"); do dirs+=("$root/$d"); done
  [ -d "$root/tests/fuzz/regressions/$t" ] && dirs+=("$root/tests/fuzz/regressions/$t")
  corpus=$build/tests/fuzz/corpus/$t
  crashes=$build/tests/fuzz/crashes/$t
  mkdir -p "$corpus" "$crashes"
  echo "fuzz.sh: $t for ${seconds}s"
  "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$crashes/" "$corpus" "${dirs[@]}"
done
