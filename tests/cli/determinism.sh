#!/bin/sh
# determinism.sh MGSIM: every example, run by two separate mgsim processes, prints the same JSON
# summary and writes the same trace, byte for byte (DESIGN.md's determinism rule, across
# processes; tests/traces/determinism_test.cpp checks it within one process and across threads).
mgsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
for f in examples/*.yaml examples/*/*.yaml; do
  case "$f" in *.sweep.yaml | *.hw.yaml) continue ;; esac  # sweeps (docs/SWEEP.md): tests/cli/sweep.sh;
  # hardware files (--hw): tests/models/presets_test.cpp
  for i in 1 2; do
    "$mgsim" run "$f" --topology hgx-h200-8 --json --trace "$tmp/trace$i.json" > "$tmp/out$i.json" 2>&1 ||
      { echo "$f: mgsim failed:"; cat "$tmp/out$i.json"; exit 1; }
  done
  cmp -s "$tmp/out1.json" "$tmp/out2.json" || { echo "$f: the JSON differs between two runs"; exit 1; }
  cmp -s "$tmp/trace1.json" "$tmp/trace2.json" || { echo "$f: the trace differs between two runs"; exit 1; }
  [ -s "$tmp/trace1.json" ] || { echo "$f: no trace written"; exit 1; }
  n=$((n + 1))
done
[ "$n" -ge 6 ] || { echo "only $n examples found"; exit 1; }
echo "$n examples: byte-identical JSON and trace across two processes"
