#!/bin/sh
# Builds the libFuzzer targets under ASan+UBSan (clang, build-fuzz/) and runs
# each for SECONDS (default 60) from its seed corpus in fuzz/corpus/<target>,
# JOBS targets at a time (default: the number of cores).
# New inputs go to build-fuzz/corpus/<target>; a crash leaves its input in
# build-fuzz/crashes/ and fails the script. Usage: fuzz/run.sh [SECONDS]
set -eu
seconds=${1:-60}
jobs=${JOBS:-$(nproc)}
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-fuzz"
launcher=""
command -v ccache >/dev/null 2>&1 && launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache"
# Unity builds and Ninja, as run.sh (there: why): the libraries compile as a few large files.
generator=""
command -v ninja >/dev/null 2>&1 && [ ! -f "$build/CMakeCache.txt" ] && generator="-G Ninja"
# shellcheck disable=SC2086
CC=clang CXX=clang++ cmake -S "$root" -B "$build" $generator -DCMAKE_UNITY_BUILD=ON -DLOCKSIM_BUILD_FUZZ=ON -DLOCKSIM_SANITIZE=ON \
  -DLOCKSIM_BUILD_TESTS=OFF -DLOCKSIM_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo $launcher >/dev/null
targets=$(cat "$build/fuzz/targets.txt")
# shellcheck disable=SC2086
cmake --build "$build" -j"$jobs" --target $targets 2>&1 | grep -E "error|warning: .*fuzz" || true
mkdir -p "$build/crashes"

# One target: its verdict goes to $build/<target>.status (0 = clean).
run_one() {
  t=$1
  mkdir -p "$build/corpus/$t"
  status=0
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
    -artifact_prefix="$build/crashes/$t-" -print_final_stats=1 \
    "$build/corpus/$t" "$root/fuzz/corpus/$t" >"$build/$t.log" 2>&1 || status=$?
  echo "$status" >"$build/$t.status"
}

running=0
for t in $targets; do
  [ -x "$build/fuzz/$t" ] || { echo "fuzz: $t was not built"; exit 1; }
  echo "fuzz: $t for ${seconds}s"
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait; running=0; fi
done
wait

status=0
for t in $targets; do
  if [ "$(cat "$build/$t.status")" != 0 ]; then
    echo "fuzz: $t FAILED (see $build/$t.log and $build/crashes/)"
    tail -30 "$build/$t.log"
    status=1
  else
    echo "fuzz: $t clean: $(grep -E '^stat::number_of_executed_units' "$build/$t.log" | awk '{print $2}') inputs"
  fi
done
exit $status
