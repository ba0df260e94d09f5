#!/bin/sh
# report.sh MGSIM CHROMIUM: `mgsim sweep --report` and `mgsim run --report` write one
# self-contained HTML page each (nothing fetched, no script) that headless Chromium loads without
# console messages, with their plots (a sweep: a plot per result column against each axis of two
# or more values and a row per point; a run: timeline, heatmap, roofline, its text); a screenshot
# is taken of each.
set -u
mgsim=$1
chromium=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$mgsim" sweep examples/sweeps/all_reduce_what_if.sweep.yaml -o "$dir/r.csv" \
  --report "$dir/r.html" 2> /dev/null || fail "sweep rc $?"
grep -qE '(src|href)=' "$dir/r.html" && fail "the page refers to another file"
grep -q '<script' "$dir/r.html" && fail "the page has a script"
# Chromium as a sandboxed user would run it cannot run as root in a container: --no-sandbox.
flags="--headless --no-sandbox --disable-gpu --hide-scrollbars --enable-logging=stderr --v=0"
# shellcheck disable=SC2086
timeout 60 "$chromium" $flags --dump-dom "file://$dir/r.html" > "$dir/dom.html" 2> "$dir/log" ||
  fail "chromium --dump-dom: rc $? $(tail -5 "$dir/log")"
grep -q "CONSOLE" "$dir/log" && fail "console messages: $(grep CONSOLE "$dir/log")"
# 3 results (time, bound, fraction) x 3 axes (nodes, SIZE, NVLink rate), each of 2+ values.
[ "$(grep -o '<svg class="plot"' "$dir/dom.html" | wc -l)" -eq 9 ] || fail "plots"
[ "$(grep -o '<polyline class="series"' "$dir/dom.html" | wc -l)" -gt 9 ] || fail "no lines"
# The table: a header and 27 points.
[ "$(grep -o '<tr>' "$dir/dom.html" | wc -l)" -eq 28 ] || fail "table rows"
# shellcheck disable=SC2086
timeout 60 "$chromium" $flags --window-size=1300,1800 --screenshot="$dir/r.png" \
  "file://$dir/r.html" > /dev/null 2>&1 || fail "screenshot rc $?"
[ "$(head -c 8 "$dir/r.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] ||
  fail "the screenshot is not a PNG"
[ "$(wc -c < "$dir/r.png")" -gt 20000 ] || fail "the screenshot is nearly empty"

# A run's report: timeline, heatmap, roofline bars and the printed text, with --trace beside it
# (the trace file is the one --trace alone writes).
"$mgsim" run examples/kernels/ag_gemm_inter_sm.yaml --topology hgx-h200-8 --report "$dir/run.html" \
  --trace "$dir/t1.json" > "$dir/out.txt" || fail "run rc $?"
"$mgsim" run examples/kernels/ag_gemm_inter_sm.yaml --topology hgx-h200-8 --trace "$dir/t2.json" \
  > /dev/null || fail "run rc $?"
cmp -s "$dir/t1.json" "$dir/t2.json" || fail "--report changed the trace"
grep -qE '(src|href)=' "$dir/run.html" && fail "the run page refers to another file"
# shellcheck disable=SC2086
timeout 60 "$chromium" $flags --dump-dom "file://$dir/run.html" > "$dir/dom.html" 2> "$dir/log" ||
  fail "chromium --dump-dom (run): rc $?"
grep -q "CONSOLE" "$dir/log" && fail "console messages: $(grep CONSOLE "$dir/log")"
for what in '<svg class="timeline"' '<svg class="heatmap"' '<svg class="roofline"' \
  '<rect class="busy"' '<rect class="cell"' '<rect class="term"' '<table class="rows path"'; do
  grep -q "$what" "$dir/dom.html" || fail "no $what in the run's report"
done
total=$(grep -o "total: [0-9.]* us" "$dir/out.txt") || fail "no total in the run's text"
grep -q "$total" "$dir/dom.html" || fail "the run's text ($total) is not in its report"
grep -q "critical path" "$dir/out.txt" && fail "--report alone printed the critical path"
"$mgsim" run examples/kernels/ag_gemm_inter_sm.yaml --topology hgx-h200-8 --critical-path |
  grep -qE "^critical path: [0-9]+ steps" || fail "--critical-path printed no critical path"
# shellcheck disable=SC2086
timeout 60 "$chromium" $flags --window-size=1400,2400 --screenshot="$dir/run.png" \
  "file://$dir/run.html" > /dev/null 2>&1 || fail "screenshot (run) rc $?"
[ "$(wc -c < "$dir/run.png")" -gt 20000 ] || fail "the run's screenshot is nearly empty"
exit 0
