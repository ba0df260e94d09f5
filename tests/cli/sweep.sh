#!/bin/sh
# sweep.sh MGSIM: `mgsim sweep` writes one row per point, the same rows whatever the number of
# threads; a rerun skips the points its outputs hold (a last row cut short is dropped and run
# again); an output that cannot be written ends it with exit 4; an output of another sweep is
# refused (exit 2).
set -u
mgsim=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat > "$dir/s.yaml" <<YAML
schedule: $(pwd)/examples/all_reduce_ring.yaml
machines:
  - {name: hgx, topology: hgx-h200-8, hardware: h200}
grid:
  SIZE: {from: 1MiB, to: 16MiB, factor: 4}
  hw.nvlink.link_bandwidth: [12.5GB/s, 25GB/s]
YAML
body() { tail -n +2 "$1" | sort -t, -k1,1n; }

"$mgsim" sweep "$dir/s.yaml" -o "$dir/a.csv" --jsonl "$dir/a.jsonl" -j 1 2> "$dir/err" || fail "rc $?"
grep -q "6 points, 6 run (6 ok), 0 already in the output" "$dir/err" || fail "summary: $(cat "$dir/err")"
[ "$(head -1 "$dir/a.csv")" = "point,machine,topology,hardware,SIZE,hw.nvlink.link_bandwidth,status,time_us,bound_us,fraction,bottleneck,message" ] ||
  fail "header: $(head -1 "$dir/a.csv")"
[ "$(tail -n +2 "$dir/a.csv" | wc -l)" -eq 6 ] || fail "rows: $(cat "$dir/a.csv")"
[ "$(wc -l < "$dir/a.jsonl")" -eq 6 ] || fail "json lines"
python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" "$dir/a.jsonl" || fail "json"
# Twice the link bandwidth is never slower (the same SIZE, points 2k and 2k+1).
awk -F, 'NR > 1 { t[$1] = $8 } END { for (k = 0; k < 6; k += 2) if (t[k + 1] > t[k]) exit 1 }' \
  "$dir/a.csv" || fail "a faster link made a point slower"

# Two threads: the same rows (perhaps in another order).
"$mgsim" sweep "$dir/s.yaml" -o "$dir/b.csv" -j 2 2> /dev/null || fail "rc $? with -j 2"
[ "$(body "$dir/a.csv")" = "$(body "$dir/b.csv")" ] || fail "-j 2 differs from -j 1"

# A rerun does nothing; with the last two rows gone and a third cut short, it runs those three.
"$mgsim" sweep "$dir/s.yaml" -o "$dir/b.csv" 2> "$dir/err" || fail "rerun rc $?"
grep -q "0 run, 6 already in the output" "$dir/err" || fail "rerun: $(cat "$dir/err")"
head -n 4 "$dir/a.csv" > "$dir/c.csv"
sed -n 5p "$dir/a.csv" | head -c 7 >> "$dir/c.csv"
"$mgsim" sweep "$dir/s.yaml" -o "$dir/c.csv" 2> "$dir/err" || fail "resume rc $?"
grep -q "3 run (3 ok), 3 already in the output" "$dir/err" || fail "resume: $(cat "$dir/err")"
[ "$(body "$dir/a.csv")" = "$(body "$dir/c.csv")" ] || fail "the resumed file differs"

# Without -o: the CSV on stdout.
"$mgsim" sweep "$dir/s.yaml" -j 2 > "$dir/d.csv" 2> /dev/null || fail "stdout rc $?"
[ "$(body "$dir/a.csv")" = "$(body "$dir/d.csv")" ] || fail "stdout differs"

# An output that cannot be written (a full disk): exit 4, no crash, whatever the threads.
"$mgsim" sweep "$dir/s.yaml" -o /dev/full -j 2 2> "$dir/err"
rc=$?
[ $rc -eq 4 ] || fail "a full disk: rc $rc $(cat "$dir/err")"
grep -q "/dev/full: a row could not be written" "$dir/err" || fail "full disk message: $(cat "$dir/err")"

# Another sweep's file is refused, and left as it was.
sed 's/hw.nvlink.link_bandwidth/hw.hbm.bandwidth/; s/12.5GB\/s, 25GB\/s/1TB\/s/' "$dir/s.yaml" > "$dir/t.yaml"
cp "$dir/a.csv" "$dir/e.csv"
"$mgsim" sweep "$dir/t.yaml" -o "$dir/e.csv" 2> "$dir/err"
rc=$?
[ $rc -eq 2 ] || fail "another sweep's file: rc $rc"
grep -q "e.csv:1:1: error: holds another sweep's results" "$dir/err" || fail "message: $(cat "$dir/err")"
cmp -s "$dir/a.csv" "$dir/e.csv" || fail "another sweep's file was changed"
exit 0
