#!/bin/sh
# expect.sh RC PATTERN CMD...: runs CMD, passes when it exits with RC and its stdout+stderr
# contains PATTERN (a fixed string). Prints what it got otherwise.
rc_want=$1
pattern=$2
shift 2
out=$("$@" 2>&1)
rc=$?
if [ "$rc" -ne "$rc_want" ]; then
  printf 'exit code %s, wanted %s\n%s\n' "$rc" "$rc_want" "$out"
  exit 1
fi
case "$out" in
  *"$pattern"*) exit 0 ;;
esac
printf 'output lacks: %s\n--- output:\n%s\n' "$pattern" "$out"
exit 1
