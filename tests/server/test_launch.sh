#!/usr/bin/env bash
# `locksim serve` launched as a test fixture launches redis-server: its arguments and
# config file, the redis-server name (a symlink), SHUTDOWN, the ready line and file,
# daemonize and pidfile, and bad input (exit 2). Every server is checked gone at the end.
# Usage: test_launch.sh /path/to/locksim
set -euo pipefail
locksim=$(realpath "${1:-build/cli/locksim}")
command -v redis-cli >/dev/null || { echo "redis-cli not found: install redis-tools" >&2; exit 1; }
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [[ -s $work/daemon.pid ]] && kill "$(cat "$work/daemon.pid")" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_ready() {  # wait_ready <log file>: until the ready line
  for _ in $(seq 200); do grep -q "Ready to accept connections" "$1" 2>/dev/null && return 0; sleep 0.05; done
  fail "no ready line in $1: $(cat "$1" 2>/dev/null)"; return 1
}
gone() {  # gone <pid>: the process exits within 5 s
  for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.05; done
  return 1
}

# 1. redis-server's usual fixture arguments; SHUTDOWN NOSAVE ends it with status 0.
port=$(free_port)
timeout -k 5 60 "$locksim" serve --port "$port" --save '' --appendonly no --bind 127.0.0.1 >"$work/1.log" 2>&1 &
pid=$!; pids+=("$pid")
wait_ready "$work/1.log"
grep -q "^locksim serve: ready port=$port unix=- pid=" "$work/1.log" || fail "ready line: $(cat "$work/1.log")"
grep -q "ignored" "$work/1.log" && fail "save '' and appendonly no need no note: $(cat "$work/1.log")"
[[ $(redis-cli -p "$port" PING) == PONG ]] || fail "PING"
redis-cli -p "$port" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
if gone "$pid"; then
  status=0; wait "$pid" || status=$?
  ((status == 0)) || fail "SHUTDOWN: exit status $status"
else
  fail "still running after SHUTDOWN"
fi

# 2. A config file first, then directives; Redis's directives without meaning are noted.
port=$(free_port)
cat >"$work/redis.conf" <<CONF
# a fixture's config
port $port
requirepass "s3cret"
save 900 1
appendonly yes
loglevel notice
CONF
timeout -k 5 60 "$locksim" serve "$work/redis.conf" --unixsocket "$work/s.sock" --ready-file "$work/ready.json" \
  >"$work/2.log" 2>&1 &
pid=$!; pids+=("$pid")
wait_ready "$work/2.log"
grep -q "ignored: save 900 1" "$work/2.log" || fail "no note for save 900 1: $(cat "$work/2.log")"
grep -q "ignored: appendonly yes" "$work/2.log" || fail "no note for appendonly yes"
python3 - "$work/ready.json" "$port" "$work/s.sock" <<'PY' || fail "ready file: $(cat "$work/ready.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["port"] == int(sys.argv[2]) and r["unix"] == sys.argv[3] and r["pid"] > 0, r
PY
[[ $(redis-cli -p "$port" GET x 2>&1) == *NOAUTH* ]] || fail "requirepass from the file"
[[ $(redis-cli -s "$work/s.sock" -a s3cret --no-auth-warning PING) == PONG ]] || fail "unixsocket + AUTH"
redis-cli -p "$port" -a s3cret --no-auth-warning SHUTDOWN >/dev/null 2>&1 || true
gone "$pid" || fail "config-file server still running after SHUTDOWN"
[[ -e $work/ready.json ]] && fail "the ready file was left behind"

# 3. Under the name redis-server: port 0 is no TCP at all, as redis-server's.
ln -s "$locksim" "$work/redis-server"
"$work/redis-server" --version | grep -q "^Redis server v=7.0.15" || fail "redis-server --version"
timeout -k 5 60 "$work/redis-server" --port 0 --unixsocket "$work/r.sock" >"$work/3.log" 2>&1 &
pid=$!; pids+=("$pid")
wait_ready "$work/3.log"
grep -q "listening on 127" "$work/3.log" && fail "redis-server --port 0 listened on TCP"
[[ $(redis-cli -s "$work/r.sock" PING) == PONG ]] || fail "redis-server shim PING over unix"
redis-cli -s "$work/r.sock" SHUTDOWN SAVE >/dev/null 2>&1 || true
gone "$pid" || fail "redis-server shim still running after SHUTDOWN SAVE"

# 4. daemonize + pidfile + logfile: the launcher returns once the server listens.
port=$(free_port)
"$work/redis-server" --port "$port" --daemonize yes --pidfile "$work/daemon.pid" --logfile "$work/daemon.log" \
  || fail "daemonize: launcher status $?"
[[ $(redis-cli -p "$port" PING) == PONG ]] || fail "daemon PING right after the launcher returned"
dpid=$(cat "$work/daemon.pid")
kill -0 "$dpid" || fail "pidfile names no live process"
grep -q "Ready to accept connections" "$work/daemon.log" || fail "no ready line in the log file"
redis-cli -p "$port" SHUTDOWN >/dev/null 2>&1 || true
gone "$dpid" || fail "daemon still running after SHUTDOWN"
[[ -e $work/daemon.pid ]] && fail "the pid file was left behind"

# 5. Bad input: a clear error and exit 2, never a server.
for args in "--prot 6380" "--port 70000" "--daemonize maybe" "$work/missing.conf" "--port 1 stray"; do
  status=0
  # shellcheck disable=SC2086
  timeout 10 "$locksim" serve $args >"$work/bad.out" 2>&1 || status=$?
  ((status == 2)) || fail "serve $args: status $status, want 2 ($(cat "$work/bad.out"))"
  grep -q "error" "$work/bad.out" || fail "serve $args: no error message"
done

echo "launch checks: $failures failure(s)"
((failures == 0))
