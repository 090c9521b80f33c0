#!/usr/bin/env bash
# redis-cli against `locksim serve` started as a child process (manual time): commands,
# RESP3, pipe mode, the LOCKSIM.* commands; the server is checked gone at the end.
# Usage: test_redis_cli.sh /path/to/locksim
set -euo pipefail
locksim=${1:-build/cli/locksim}
command -v redis-cli >/dev/null || { echo "redis-cli not found: install redis-tools" >&2; exit 1; }
work=$(mktemp -d)
timeout -k 5 60 "$locksim" serve --port 0 --time manual --unix "$work/s.sock" >"$work/out" &
server=$!
cleanup() {
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 100); do grep -q "listening on 127" "$work/out" 2>/dev/null && break; sleep 0.05; done
port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$work/out")
[[ -n $port ]] || { echo "locksim serve did not print its port" >&2; exit 1; }

failures=0
expect() {  # expect "<output>" redis-cli args...
  local want=$1; shift
  local got
  got=$(redis-cli -p "$port" "$@" 2>&1) || true
  if [[ "$got" != "$want" ]]; then
    echo "FAIL: redis-cli $*"; echo "  want: $want"; echo "  got:  $got"; failures=$((failures + 1))
  fi
}
expect "OK" SET lock me PX 1000
expect "me" GET lock
expect "1000" PTTL lock
redis-cli -p "$port" LOCKSIM.ADVANCE 1001 >/dev/null
expect "" GET lock
expect "(nil)" --no-raw GET lock
expect "(integer) 1" --no-raw INCR n
expect "PONG" -s "$work/s.sock" PING
expect "(empty hash)" --no-raw -3 HGETALL nothing
redis-cli -p "$port" HSET h f v >/dev/null
expect '1# "f" => "v"' --no-raw -3 HGETALL h
expect "1" EVAL "return redis.call('incr', KEYS[1])" 1 counter
printf 'SET a 1\r\nINCR a\r\nGET a\r\n' | redis-cli -p "$port" --pipe >"$work/pipe" 2>&1 || true
if ! grep -q "errors: 0, replies: 3" "$work/pipe"; then
  echo "FAIL: --pipe: $(cat "$work/pipe")"; failures=$((failures + 1))
fi

kill "$server"
wait "$server" 2>/dev/null || true
if kill -0 "$server" 2>/dev/null; then
  echo "FAIL: locksim serve still running after SIGTERM"; failures=$((failures + 1))
fi
[[ -S "$work/s.sock" ]] && { echo "FAIL: the Unix socket file was left behind"; failures=$((failures + 1)); }
echo "redis-cli checks: $failures failure(s)"
((failures == 0))
