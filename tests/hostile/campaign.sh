#!/usr/bin/env bash
# Hostile-input campaign (issue 19): every reproducer of the issue plus invented
# hostile inputs, each run under `timeout`, an address-space limit and
# /usr/bin/time. A result is bad if it ends by a signal or timeout, exits with a
# status the docs do not define (0 ok, 1 violation / --fail-on-error, 2 usage or
# input error, 3 not reproducible for real), takes more than LIMIT_S seconds,
# peaks above 1 GB, or prints a sanitizer report, an internal error or an
# uncaught exception.
#
#   tests/hostile/campaign.sh [LOCKSIM]          # default build/cli/locksim
#   SANITIZED=1 tests/hostile/campaign.sh build-asan/cli/locksim
#
# SANITIZED=1 drops the address-space limit (ASan reserves terabytes of shadow)
# and allows 3x the time. Results go to $OUT/results.tsv; exit 1 if any is bad.
set -uo pipefail
cd "$(dirname "$0")/../.."
LOCKSIM=$(realpath "${1:-build/cli/locksim}")
OUT=${OUT:-$(mktemp -d /tmp/locksim-campaign.XXXXXX)}
mkdir -p "$OUT/work"
W=$OUT/work
LIMIT_S=${LIMIT_S:-2}
MEM_KB=$((1024 * 1024))
AS_BYTES=$((3 * 1024 * 1024 * 1024))
KILL_S=5
AS_LIMIT=(prlimit --as=$AS_BYTES --)
if [[ ${SANITIZED:-0} == 1 ]]; then
  LIMIT_S=$((LIMIT_S * 3))
  KILL_S=$((KILL_S * 3))
  AS_LIMIT=()
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
RESULTS=$OUT/results.tsv
printf 'case\tstatus\tseconds\tpeak_kb\tverdict\n' >"$RESULTS"
tried=0
bad=0

# The limits wrapper: time(1) outside, then timeout, then the address-space cap.
limited() {
  /usr/bin/time -f '%e %M' -o "$W/time" timeout -s KILL $KILL_S "${AS_LIMIT[@]}" "$@"
}

# judge NAME STATUS OUTPUT_FILE [ALLOWED_STATUSES]: records one result.
judge() {
  local name=$1 status=$2 log=$3 allowed=${4:-0 1 2 3}
  local secs kb why=""
  read -r secs kb < <(grep -E '^[0-9.]+ [0-9]+$' "$W/time" | tail -n 1)
  secs=${secs:-0} kb=${kb:-0}
  [[ " $allowed " == *" $status "* ]] || why="status $status"
  awk -v s="$secs" -v l="$LIMIT_S" 'BEGIN { exit !(s > l) }' && why="$why slow ${secs}s"
  ((kb > MEM_KB)) && why="$why rss ${kb}KB"
  if grep -aqE 'ERROR: (Address|Leak)Sanitizer|runtime error:|internal error|terminate called|uncaught|Assertion .* failed|LOCKSIM_ASSERT' "$log"; then
    why="$why report: $(grep -aE -m1 'Sanitizer|runtime error|internal error|terminate|uncaught|Assert' "$log" | cut -c1-120)"
  fi
  tried=$((tried + 1))
  if [[ -n $why ]]; then
    bad=$((bad + 1))
    printf '%s\t%s\t%s\t%s\tBAD:%s\n' "$name" "$status" "$secs" "$kb" "$why" >>"$RESULTS"
    echo "BAD  $name:$why"
  else
    printf '%s\t%s\t%s\t%s\tok\n' "$name" "$status" "$secs" "$kb" >>"$RESULTS"
  fi
}

# cli NAME ARGS...: one locksim command line, stdin from /dev/null.
cli() {
  local name=$1
  shift
  limited "$LOCKSIM" "$@" </dev/null >"$W/log" 2>&1
  judge "$name" $? "$W/log"
}

# con NAME LINE...: lines typed into `locksim redis --fail-on-error`.
con() {
  local name=$1
  shift
  printf '%s\n' "$@" >"$W/stdin"
  limited "$LOCKSIM" redis --fail-on-error <"$W/stdin" >"$W/log" 2>&1
  judge "con: $name" $? "$W/log" "0 1"
}

# con_raw NAME FILE: a console session from a prepared file.
con_raw() {
  limited "$LOCKSIM" redis --fail-on-error <"$2" >"$W/log" 2>&1
  judge "con: $1" $? "$W/log" "0 1"
}

# variant NAME BODY [ARGS...]: a Lua variant file, run with `run` then `check`.
variant() {
  local name=$1 body=$2
  shift 2
  printf '%s\n' "$body" >"$W/v.lua"
  cli "variant run: $name" run v --variant "$W/v.lua" --clients 2 --iterations 2 "$@"
  cli "variant check: $name" check v --variant "$W/v.lua" --runs 20 "$@"
}

source tests/hostile/campaign_cases.sh

echo "campaign: $tried inputs, $bad bad (results: $RESULTS)"
((bad == 0))
