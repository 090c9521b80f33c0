#!/usr/bin/env bash
# Redis 7.0's own test suite (tests/unit of Debian's redis source package, fetched here at
# run time, never vendored) in external mode - one database, object encodings not checked,
# nothing that needs DEBUG, replication, CONFIG SET or a server process of its own -
# against `locksim serve` and against a real redis-server, started here in the same run.
# Prints the pass counts per unit and the ratio; the failing tests go to $work/*.log.
#
# Usage: tests/server/redis_suite.sh [path/to/locksim] [unit ...]
#   REDIS_SUITE_DIR (default /tmp/locksim-redis-suite): where the suite and the logs go;
#   SUITE_REUSE_REDIS=1: take the real server's counts from that folder's earlier logs.
# Needs: tcl, redis-server 7.0, and Debian's source repository (a deb-src line; the
# script adds one for bookworm main when there is none, which needs root).
set -euo pipefail
locksim=$(realpath "${1:-build/cli/locksim}")
shift || true
units=("$@")
((${#units[@]})) || units=(type/string type/incr expire type/hash keyspace multi scripting type/list type/set
                           type/zset pubsub)
work=${REDIS_SUITE_DIR:-/tmp/locksim-redis-suite}
mkdir -p "$work"

fetch_suite() {
  if ! apt-get source --download-only --print-uris redis >/dev/null 2>&1; then
    echo "redis_suite: adding deb-src for bookworm main and updating the package lists" >&2
    local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    echo "deb-src [signed-by=$keyring] http://deb.debian.org/debian bookworm main" \
      >/etc/apt/sources.list.d/locksim-deb-src.list
    apt-get update -q >/dev/null
  fi
  (cd "$work" && apt-get source --download-only redis >/dev/null 2>&1)
  tar -xzf "$(ls "$work"/redis_*.orig.tar.gz | head -1)" -C "$work"
}
suite=$(ls -d "$work"/redis-7.0.*/tests 2>/dev/null | head -1 || true)
if [[ -z $suite ]]; then
  fetch_suite
  suite=$(ls -d "$work"/redis-7.0.*/tests | head -1)
fi
command -v tclsh >/dev/null || { echo "redis_suite: tclsh not found: apt-get install tcl" >&2; exit 1; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

redis_port=$(free_port)
timeout -k 5 3600 redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --logfile /dev/null &
pids+=($!)
serve_port=$(free_port)
timeout -k 5 3600 "$locksim" serve --port "$serve_port" >/dev/null &
pids+=($!)
sleep 0.5

skip_tags="-needs:debug -needs:repl -needs:config-maxmemory -needs:config-resetstat -needs:reset -needs:save"
skip_tags+=" -needs:pfdebug -needs:latency -needs:local-process"
# The harness listens for its test clients near --baseport: a port range of this run's
# own, so that two runs at once do not collide.
baseport=$((20000 + ($$ % 200) * 100))
run_unit() {  # run_unit <port> <unit> <log>: prints the number of passed tests
  (cd "$suite/.." && timeout 900 ./runtest --host 127.0.0.1 --port "$1" --singledb --ignore-encoding \
    --ignore-digest --durable --clients 1 --baseport "$baseport" --tags "$skip_tags" --single "unit/$2" \
    >"$3" 2>&1) || true
  sed 's/\x1b\[[0-9;]*m//g' "$3" | grep -c '^\[ok\]: ' || true
}

printf '%-14s %8s %8s\n' unit redis locksim
total_redis=0
total_serve=0
for unit in "${units[@]}"; do
  name=${unit//\//_}
  if [[ ${SUITE_REUSE_REDIS:-} && -s $work/redis.$name.log ]]; then  # the real server's figures of an earlier run
    r=$(sed 's/\x1b\[[0-9;]*m//g' "$work/redis.$name.log" | grep -c '^\[ok\]: ' || true)
  else
    r=$(run_unit "$redis_port" "$unit" "$work/redis.$name.log")
  fi
  s=$(run_unit "$serve_port" "$unit" "$work/locksim.$name.log")
  printf '%-14s %8d %8d\n' "$unit" "$r" "$s"
  total_redis=$((total_redis + r))
  total_serve=$((total_serve + s))
done
printf '%-14s %8d %8d\n' total "$total_redis" "$total_serve"
awk -v s="$total_serve" -v r="$total_redis" 'BEGIN { printf "redis_suite_pass_ratio: %.3f x\n", (r ? s / r : 0) }'
echo "logs: $work/{redis,locksim}.<unit>.log (the failures: grep -a 'err\]\|exception\]')"
