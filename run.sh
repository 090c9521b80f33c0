#!/usr/bin/env bash
# One entry point for people and CI: installs missing Debian packages,
# configures and builds into build/, then runs what was asked.
#   ./run.sh tour     build the program only, then walk the lock evolution (the main job)
#   ./run.sh test     build, then run the whole test suite with ctest
#   ./run.sh bench    build, then run the benchmark programs
#   ./run.sh build    just build
# Environment: BUILD_DIR (default build), CMAKE_ARGS (extra configure flags).
set -euo pipefail
user_dir=$PWD
cd "$(dirname "$0")"

# What building and the tour need; kept small.
packages=(cmake g++ make ninja-build pkg-config catch2 librapidcheck-dev libfmt-dev
          liblua5.1-0-dev lua-cjson lua-bitop libcli11-dev libhiredis-dev libevent-dev libasio-dev
          nlohmann-json3-dev)
# Servers and clients that only the tests and benchmarks use.
test_packages=(redis-server redis-tools mariadb-server libmariadb-dev parallel python3-redis python3-pytest clang chromium faketime
               libgtest-dev libgmock-dev mold)

install_missing() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  echo "run.sh: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
}

what=${1:-tour}
shift || true
case "$what" in
  tour|build) install_missing "${packages[@]}" ;;
  test|bench) install_missing "${packages[@]}" "${test_packages[@]}"
              # The embedded peer bench_redis measures beside the model (bench/peers/).
              [[ $what == bench ]] && install_missing python3-fakeredis python3-lupa
              command -v npm >/dev/null || install_missing nodejs npm ;;  # a Node from elsewhere has its npm
  *) echo "usage: ./run.sh tour|test|bench|build" >&2; exit 2 ;;
esac

build_dir=${BUILD_DIR:-build}
jobs=$(nproc)
# The tests of real servers are built and required only when the test command
# has installed them.
require_servers=OFF
[[ $what == test ]] && require_servers=ON
# The tour builds the program alone (no tests, benchmarks or examples): its
# first chapter comes minutes after a fresh clone. The build log goes to a file
# and one line shows the progress; the other commands build everything.
mkdir -p "$build_dir"
log="$build_dir/build.log"
# mold links the ~30 test programs about 4x faster than ld (2.75 s -> 0.68 s for one
# test program); the test command installs it, the tour uses it where it is.
linker=()
if command -v mold >/dev/null && [[ ${CMAKE_ARGS:-} != *LINKER_FLAGS* ]]; then
  linker=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=mold -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=mold)
fi
# Line tables only (-g1): backtraces and sanitizer reports still name file and
# line, and g++ compiles about a quarter faster than at -g (cli/check.cpp: 22.5 s
# -> 17 s); configure a Debug build for a debugger's view of variables.
debug_info=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG")
# Unity builds: each library compiles as a few large files instead of ~190 small ones, so
# the headers every file includes (CLI11 ~10 s, Asio ~4 s, fmt, the model's) are parsed
# and their templates instantiated a few times, not once per file: the program's CPU time
# to build falls from ~1000 s to ~380 s (g++ 12, -O2 -g1). File-local names must differ across a library's
# files (an anonymous namespace is per unity file, not per source file).
unity=(-DCMAKE_UNITY_BUILD=ON)
[[ ${CMAKE_ARGS:-} == *CMAKE_UNITY_BUILD* ]] && unity=()
# Ninja where the build directory is new or Ninja's already: it compiles the files of
# every library at once (Make finishes one library before starting the next, which
# leaves a core idle beside each library's last unity file).
generator=()
if command -v ninja >/dev/null && ! [[ -f $build_dir/CMakeCache.txt ]]; then
  generator=(-G Ninja)
fi
# The benchmarks are built by the bench command only: the test command (and CI, which
# runs it) does not compile eight programs it never runs.
benchmarks=()
[[ $what == test ]] && benchmarks=(-DLOCKSIM_BUILD_BENCH=OFF)
[[ $what == bench ]] && benchmarks=(-DLOCKSIM_BUILD_BENCH=ON)
# shellcheck disable=SC2086
cmake -S . -B "$build_dir" "${generator[@]}" "${unity[@]}" "${linker[@]}" "${debug_info[@]}" "${benchmarks[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOCKSIM_REQUIRE_TEST_SERVERS=$require_servers \
      ${CMAKE_ARGS:-} >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
targets=()
[[ $what == tour ]] && targets=(--target locksim)
progress() {  # "[ 42%] Building ..." (Make), "[12/40] Building ..." (Ninja) -> one line, rewritten in place on a terminal
  local line pct="" now
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$log"
    if [[ $line =~ ^\[\ *([0-9]+)%\] ]]; then now=${BASH_REMATCH[1]}
    elif [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]]; then now=$((BASH_REMATCH[1] * 100 / BASH_REMATCH[2]))
    else continue
    fi
    [[ $now == "$pct" ]] && continue
    pct=$now
    if [[ -t 2 ]]; then printf '\rrun.sh: building %s%% (log: %s)' "$pct" "$log" >&2; fi
  done
  [[ -t 2 ]] && printf '\n' >&2
  return 0
}
echo "run.sh: building ${targets[*]:-everything} in $build_dir (log: $log)" >&2
if ! cmake --build "$build_dir" -j "$jobs" "${targets[@]}" 2>&1 | progress; then
  echo "run.sh: the build failed; the end of $log:" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
# Replay lines the program prints name it as the user can type it from where they stand.
program=$(realpath --relative-to="$user_dir" "$build_dir/cli/locksim")
[[ $program == /* || $program == .* ]] || program=./$program

# The Node fixtures' client libraries (examples/fixtures) and the lock libraries on trial
# (examples/trial), pinned, from npm's registry.
node_packages=(ioredis@5.4.1 redis@4.7.0 redlock@4.2.0 redis-semaphore@5.8.0)
if [[ $what == test ]]; then
  npm install --no-audit --no-fund --silent --prefix "$build_dir/node" "${node_packages[@]}" >/dev/null
# The embedded peer bench_redis measures beside the model in Node (bench/peers/), pinned;
# without npm's registry the benchmarks run without it.
elif [[ $what == bench ]] &&
     ! npm install --no-audit --no-fund --silent --prefix "$build_dir/node" ioredis@5.4.1 ioredis-mock@8.13.1 >/dev/null; then
  echo "run.sh: npm could not install ioredis-mock; bench_redis runs without that peer" >&2
fi

case "$what" in
  tour)  exec -a "$program" "$build_dir/cli/locksim" tour "$@" ;;
  test)  exec ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" "$@" ;;
  bench) for b in "$build_dir"/bench/bench_*; do [[ -x $b ]] && "$b"; done ;;
  build) ;;
esac
