#!/usr/bin/env bash
# Instructions per rollout (callgrind: deterministic, unlike wall time on a shared machine) of the
# Python module in each MODULE_DIR given (a folder holding mgsim*.so: build/python, or a copy of
# an older build's), for the cases of python/bench_rollouts.py that issue 11 sets targets for,
# plain and with check=True. Process start and the Machine's loading are subtracted.
#
#   scripts/rollout_instructions.sh build/python /tmp/old_build_python
set -euo pipefail
cd "$(dirname "$0")/.."
loop='
import sys, mgsim
from pathlib import Path
m = mgsim.Machine("hgx-h200-8")
path, n, check = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
params = dict(a.split("=") for a in sys.argv[4:])
text = Path(path).read_text()
for i in range(n):
    m.run(text, params=params, check=check)
'
ir() {
  PYTHONPATH=$1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    /usr/bin/python3 -c "$loop" "${@:2}" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
printf '%-16s %-42s %14s %14s %8s\n' module schedule plain checked check
for module in "$@"; do
  zero=$(ir "$module" examples/peer_copy.yaml 0 0)
  while read -r file n params; do
    plain=$(ir "$module" "$file" "$n" 0 $params)
    checked=$(ir "$module" "$file" "$n" 1 $params)
    awk -v m="$module" -v f="$file $params" -v n="$n" -v z="$zero" -v p="$plain" -v c="$checked" \
      'BEGIN { printf "%-16s %-42s %14d %14d %+7.0f%%\n", m, f, (p - z) / n, (c - z) / n,
               (c - p) * 100 / (p - z) }'
  done <<'CASES'
examples/all_reduce_ring.yaml 40 SIZE=64KiB
examples/kernels/ag_gemm_inter_sm.yaml 6
examples/field/moe_dispatch_combine.yaml 2
CASES
done
