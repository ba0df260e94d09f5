#!/bin/sh
# sweep_mpi.sh MGSIM MPIEXEC: `mgsim sweep` under mpirun with 3 local processes writes the rows
# one process writes; an output of another sweep ends every process with exit 2 and is left as it
# was.
set -u
mgsim=$1
mpiexec=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Root in a container: OpenMPI refuses it unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sweep=examples/sweeps/all_reduce_what_if.sweep.yaml
body() { tail -n +2 "$1" | sort -t, -k1,1n; }

"$mgsim" sweep "$sweep" -o "$dir/one.csv" -j 1 2> /dev/null || fail "one process: rc $?"
"$mpiexec" --oversubscribe -np 3 "$mgsim" sweep "$sweep" -o "$dir/three.csv" -j 1 2> "$dir/err" ||
  fail "3 processes: rc $? $(cat "$dir/err")"
grep -q "27 run (27 ok), 0 already in the output, .* s, 3 processes" "$dir/err" ||
  fail "summary: $(cat "$dir/err")"
[ "$(body "$dir/one.csv")" = "$(body "$dir/three.csv")" ] || fail "3 processes wrote other rows"

echo "x,y" > "$dir/other.csv"
"$mpiexec" --oversubscribe -np 3 "$mgsim" sweep "$sweep" -o "$dir/other.csv" 2> "$dir/err"
rc=$?
[ $rc -eq 2 ] || fail "another sweep's file under mpirun: rc $rc"
grep -q "holds another sweep's results" "$dir/err" || fail "message: $(cat "$dir/err")"
[ "$(cat "$dir/other.csv")" = "x,y" ] || fail "another sweep's file was changed"
exit 0
