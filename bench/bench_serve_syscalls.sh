#!/bin/sh
# System calls per request of `locksim serve` and of redis-server under the same
# redis-benchmark load (50 clients; GET, SET, INCR, LPUSH and EVALSHA of the locks'
# compare-and-delete script; -P 1 and -P 16), counted by the kernel's syscall
# tracepoints through `perf stat -p` (no ptrace: the servers run at full speed, unlike
# under strace). Per server and test: all system calls per request, then reads, writes,
# reads that found nothing (EAGAIN), epoll_wait and epoll_ctl per request. The counts do
# not depend on the machine's load the way CPU time does, so they call a close race.
#   bench/bench_serve_syscalls.sh path/to/locksim [requests, default 50000]
# Needs perf with tracepoint access (perf_event_paranoid <= 2 for one's own processes,
# or root). goal.serve_syscalls_per_request: serve's total <= redis-server's in every
# test.
set -eu
locksim=${1:?usage: bench_serve_syscalls.sh path/to/locksim [requests]}
requests=${2:-50000}
command -v perf >/dev/null || { echo "bench_serve_syscalls: needs perf" >&2; exit 1; }
command -v redis-server >/dev/null || { echo "bench_serve_syscalls: needs redis-server" >&2; exit 1; }
work=$(mktemp -d)
pids=""
cleanup() {
  for p in $pids; do kill "$p" 2>/dev/null || true; done
  for p in $pids; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
args() { echo "--port $1 --bind 127.0.0.1 --save '' --appendonly no --loglevel warning --logfile /dev/null"; }

serve_port=$(free_port)
eval "exec $locksim serve $(args "$serve_port")" &
serve_pid=$!
pids="$pids $serve_pid"
redis_port=$(free_port)
eval "exec redis-server $(args "$redis_port")" &
redis_pid=$!
pids="$pids $redis_pid"
for port in "$serve_port" "$redis_port"; do
  i=0
  until redis-cli -p "$port" ping >/dev/null 2>&1; do
    i=$((i + 1)); [ "$i" -lt 500 ] || { echo "bench_serve_syscalls: a server did not start" >&2; exit 1; }
    sleep 0.01
  done
done
script='if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end'
sha=$(redis-cli -p "$redis_port" script load "$script")
[ "$(redis-cli -p "$serve_port" script load "$script")" = "$sha" ] || { echo "bench_serve_syscalls: SCRIPT LOAD differs" >&2; exit 1; }

# Counts of one server's system calls during one redis-benchmark run, per request:
# total read write eagain epoll_wait epoll_ctl (read/write: any of read, recvfrom, readv,
# recvmsg / write, sendto, writev, sendmsg).
count() {  # pid port depth test...
  pid=$1 port=$2 depth=$3
  shift 3
  perf stat -x, -o "$work/stat" -p "$pid" \
    -e raw_syscalls:sys_enter \
    -e syscalls:sys_enter_read -e syscalls:sys_enter_recvfrom -e syscalls:sys_enter_readv -e syscalls:sys_enter_recvmsg \
    -e syscalls:sys_enter_write -e syscalls:sys_enter_sendto -e syscalls:sys_enter_writev -e syscalls:sys_enter_sendmsg \
    -e syscalls:sys_exit_read --filter 'ret == -11' -e syscalls:sys_exit_recvfrom --filter 'ret == -11' \
    -e syscalls:sys_enter_epoll_wait -e syscalls:sys_enter_epoll_pwait -e syscalls:sys_enter_epoll_pwait2 \
    -e syscalls:sys_enter_epoll_ctl \
    -- redis-benchmark -h 127.0.0.1 -p "$port" -n "$requests" -P "$depth" -q "$@" >/dev/null 2>&1
  # (Counters perf could not open read "<not counted>": no figure rather than a zero.)
  if grep -q '^<not' "$work/stat"; then
    echo "bench_serve_syscalls: perf could not count the syscall tracepoints (perf_event_paranoid, permissions)" >&2
    exit 1
  fi
  awk -F, -v n="$requests" '
    /raw_syscalls:sys_enter/ {t += $1}
    /sys_enter_(read|recvfrom|readv|recvmsg),/ {r += $1}
    /sys_enter_(write|sendto|writev|sendmsg),/ {w += $1}
    /sys_exit_(read|recvfrom),/ {e += $1}
    /sys_enter_epoll_(wait|pwait|pwait2),/ {p += $1}
    /sys_enter_epoll_ctl,/ {c += $1}
    END {printf "%.3f %.3f %.3f %.3f %.3f %.3f\n", t/n, r/n, w/n, e/n, p/n, c/n}' "$work/stat"
}

met=yes
worst=""
for depth in 1 16; do
  for test in get set incr lpush evalsha; do
    if [ "$test" = evalsha ]; then set -- EVALSHA "$sha" 1 "key:__rand_int__" token; else set -- -t "$test"; fi
    ours=$(count "$serve_pid" "$serve_port" "$depth" "$@")
    theirs=$(count "$redis_pid" "$redis_port" "$depth" "$@")
    id="${test}_p$depth"
    set -- $ours
    echo "serve_syscalls.$id: $1 per request (read $2, write $3, EAGAIN $4, epoll_wait $5, epoll_ctl $6)"
    o=$1
    set -- $theirs
    echo "redis_syscalls.$id: $1 per request (read $2, write $3, EAGAIN $4, epoll_wait $5, epoll_ctl $6)"
    if awk -v a="$o" -v b="$1" 'BEGIN {exit !(a > b)}'; then met=no; worst="$worst $id"; fi
  done
done
if [ "$met" = yes ]; then
  echo "goal.serve_syscalls_per_request: serve <= redis-server in every test: met"
else
  echo "goal.serve_syscalls_per_request: serve <= redis-server in every test: NOT met (over in$worst)"
fi
