#!/bin/bash
# Compares what two locksim programs answer to `check ALGO --json --runs N --seed S --jobs J`
# for every built-in algorithm, byte for byte: a change meant only to make check faster
# must leave every answer as it was (determinism is the product).
#   bench/check_output_diff.sh BEFORE AFTER [runs [seed [jobs]]]     (default 2000 1 1)
# Exit status 0 when every answer is identical, 1 when one differs, 2 on bad use.
set -u
if [ $# -lt 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ]; then
  echo "usage: $0 BEFORE AFTER [runs [seed [jobs]]]  (two locksim programs)" >&2
  exit 2
fi
runs=${3:-2000}
seed=${4:-1}
jobs=${5:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The replay lines name the program as it was called: both are called "locksim".
mkdir -p "$work/before" "$work/after"
ln -s "$(realpath "$1")" "$work/before/locksim"
ln -s "$(realpath "$2")" "$work/after/locksim"
algorithms=$("$work/after/locksim" list 2>/dev/null | sed -n 's/^ *[0-9]*\. \([a-z0-9-]*\)$/\1/p')
if [ -z "$algorithms" ]; then
  echo "$2 lists no algorithms" >&2
  exit 2
fi
status=0
for a in $algorithms; do
  for side in before after; do
    "$work/$side/locksim" check "$a" --json --runs "$runs" --seed "$seed" --jobs "$jobs" \
      >"$work/$side/$a.json" 2>"$work/$side/$a.err"
    echo $? >"$work/$side/$a.status"
  done
  if cmp -s "$work/before/$a.json" "$work/after/$a.json" && cmp -s "$work/before/$a.err" "$work/after/$a.err" &&
    cmp -s "$work/before/$a.status" "$work/after/$a.status"; then
    echo "$a: identical"
  else
    echo "$a: DIFFERS"
    diff "$work/before/$a.json" "$work/after/$a.json" | head -5
    status=1
  fi
done
exit $status
