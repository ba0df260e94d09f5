# Sourced by scripts/measure_h200.sh and scripts/measure_h200_single.sh: the one way a device run
# runs a measurement step.
#
# step NAME LIMIT_S CMD...: runs CMD in $RES under a time limit (cut to what is left of
# $DEADLINE seconds), logs its status, then calls the caller's `pack` (so a run cut short still
# returns what finished). MEASURE_ONLY="gemm overlap" runs only the named steps. With
# STEP_STDOUT=1, CMD's stdout goes to $RES/system/stdout_NAME.txt and its last lines to the log.
step() {
  local name=$1 limit=$2
  shift 2
  if [ -n "${MEASURE_ONLY:-}" ] && [[ " $MEASURE_ONLY " != *" $name "* ]]; then
    return
  fi
  local left=$((DEADLINE - SECONDS))
  if ((left < 15)); then
    echo "=== $name SKIPPED: out of time"
    return
  fi
  ((limit > left)) && limit=$left
  echo "=== $name start $(date -u +%H:%M:%S) limit ${limit}s"
  local t0=$SECONDS
  if [ "${STEP_STDOUT:-0}" = 1 ]; then
    (cd "$RES" && timeout -k 5 "$limit" "$@") >"$RES/system/stdout_$name.txt"
    echo "=== $name rc=$? in $((SECONDS - t0))s"
    tail -3 "$RES/system/stdout_$name.txt"
  else
    (cd "$RES" && timeout -k 5 "$limit" "$@")
    echo "=== $name rc=$? in $((SECONDS - t0))s"
  fi
  pack
}
