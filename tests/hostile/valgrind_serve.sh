#!/usr/bin/env bash
# The use-after-free of issue 33 under valgrind: MULTI, CLIENT KILL ID <own id> SKIPME no, SET,
# RPUSH, SUBSCRIBE x40, EXEC, then PUBLISH from another client, against
# `locksim serve` run by valgrind's memcheck. Passes if the server answers after it and
# valgrind reports no error.   tests/hostile/valgrind_serve.sh [LOCKSIM]
set -euo pipefail
LOCKSIM=$(realpath "${1:-build/cli/locksim}")
work=$(mktemp -d /tmp/locksim-valgrind.XXXXXX)
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
valgrind --error-exitcode=99 --leak-check=no --log-file="$work/valgrind.log" \
  "$LOCKSIM" serve --port 0 --time manual >"$work/out" 2>&1 &
server=$!
port=""
for _ in $(seq 1 600); do
  port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/out")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "the server did not start"; cat "$work/out"; exit 1; }
python3 - "$port" <<'PY'
import socket, sys, time
port = int(sys.argv[1])
def resp(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a.encode() if isinstance(a, str) else a
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out
def connect():
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    return s
def read_until_closed(s):
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            return data
        data += chunk
victim, other = connect(), connect()
victim.sendall(resp("CLIENT", "ID"))
own = victim.recv(64).strip()[1:].decode()
pipeline = resp("MULTI") + resp("CLIENT", "KILL", "ID", own, "SKIPME", "no") + resp("SET", "k", "v") + resp("RPUSH", "l", "a")
pipeline += b"".join(resp("SUBSCRIBE", "ch%d" % i) for i in range(40)) + resp("EXEC")
victim.sendall(pipeline)
read_until_closed(victim)
other.sendall(resp("PUBLISH", "ch7", "hello"))
reply = other.recv(64)
assert reply == b":0\r\n", reply
other.sendall(resp("GET", "k"))
reply = other.recv(64)
assert reply == b"$1\r\nv\r\n", reply
print("served after the sequence")
PY
kill -TERM "$server"
status=0
wait "$server" || status=$?
cat "$work/valgrind.log" | grep -E "ERROR SUMMARY|Invalid" || true
if [ "$status" = 99 ] || grep -q "Invalid read\|Invalid write" "$work/valgrind.log"; then
  echo "valgrind found errors"; cat "$work/valgrind.log"; exit 1
fi
grep -q "ERROR SUMMARY: 0 errors" "$work/valgrind.log"
echo "valgrind: clean"
