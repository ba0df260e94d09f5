#!/bin/sh
# interrupt.sh MGSIM: a run writing a trace is interrupted (SIGINT) mid-simulation; it must leave
# neither the half-written .partial nor the older trace of that name (which would look current).
set -u
mgsim=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo '{"old": "trace"}' > "$dir/t.json"
# About 9 s of simulation (docs/PERFORMANCE.md: NCCL's kernels, 64 MiB on 72 GPUs).
"$mgsim" run examples/all_reduce_ring.yaml --topology gb200-nvl72 -D SIZE=64MiB \
  --trace "$dir/t.json" > /dev/null 2>&1 &
pid=$!
i=0
while [ ! -e "$dir/t.json.partial" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -e "$dir/t.json.partial" ] || { echo "no .partial appeared"; kill $pid; exit 1; }
[ -e "$dir/t.json" ] && { echo "the older trace is still there while the run goes"; exit 1; }
kill -INT $pid
wait $pid
rc=$?
[ $rc -ne 0 ] || { echo "an interrupted run exited 0"; exit 1; }
left=$(ls "$dir")
[ -z "$left" ] || { echo "left behind: $left"; exit 1; }
exit 0
