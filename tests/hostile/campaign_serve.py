#!/usr/bin/env python3
"""Hostile RESP for `locksim serve` (tests/hostile/campaign.sh): each case sends
its bytes, reads what comes back for a while, and then a fresh connection must
get PONG within 2 s. Prints one `case NAME ok|BAD why` line each; exit 1 if any
is bad."""
import socket
import sys
import time

SOCK = sys.argv[1]
LIMIT = 2.0
bad = 0


def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(LIMIT)
    s.connect(SOCK)
    return s


def drain(s, seconds):
    s.settimeout(0.05)
    data = b""
    end = time.time() + seconds
    while time.time() < end and len(data) < 64 << 20:
        try:
            chunk = s.recv(1 << 16)
        except socket.timeout:
            continue
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    return data


def healthy():
    try:
        s = connect()
        t = time.time()
        s.sendall(b"*1\r\n$4\r\nPING\r\n")
        got = b""
        while not got.endswith(b"\r\n") and time.time() - t < LIMIT:
            got += s.recv(64)
        s.close()
        return got == b"+PONG\r\n", time.time() - t
    except OSError as e:
        return False, repr(e)


def case(name, payload, wait=0.3, expect=None):
    global bad
    why = []
    try:
        s = connect()
        try:
            if isinstance(payload, list):
                for p in payload:
                    s.sendall(p)
            else:
                s.sendall(payload)
        except OSError:
            pass  # the server may close on a protocol error, as Redis does
        got = drain(s, wait)
        s.close()
        if expect is not None and expect not in got:
            why.append("reply lacks %r (got %r)" % (expect, got[:80]))
    except OSError as e:
        why.append("connect: %r" % (e,))
    ok, t = healthy()
    if not ok:
        why.append("server unhealthy after: %r" % (t,))
    if why:
        bad += 1
        print("case %s BAD %s" % (name, "; ".join(why)))
    else:
        print("case %s ok" % name)


case("array length negative", b"*-5\r\n", expect=b"")
case("array length text", b"*abc\r\n", expect=b"-ERR Protocol error")
case("array length huge", b"*2147483648\r\n", expect=b"-ERR Protocol error")
case("array length 2^64", b"*18446744073709551616\r\n", expect=b"-ERR Protocol error")
case("bulk length negative", b"*1\r\n$-2\r\n", expect=b"-ERR Protocol error")
case("bulk length huge", b"*1\r\n$99999999999\r\n", expect=b"-ERR Protocol error")
case("bulk 512MB+1", b"*1\r\n$536870913\r\n", expect=b"-ERR Protocol error")
case("bulk short then close", b"*1\r\n$5\r\nab")
case("bulk wrong terminator", b"*1\r\n$2\r\nabXY*1\r\n$4\r\nPING\r\n", expect=b"+PONG")  # Redis skips the 2 bytes unchecked
case("nested array", b"*1\r\n*1\r\n$4\r\nPING\r\n", expect=b"-ERR Protocol error")
case("array of integers", b"*1\r\n:1\r\n", expect=b"-ERR Protocol error")
case("empty array", b"*0\r\n*1\r\n$4\r\nPING\r\n", expect=b"+PONG")
case("null array", b"*-1\r\n*1\r\n$4\r\nPING\r\n", expect=b"+PONG")
case("inline unbalanced quote", b'SET "a 1\r\n', expect=b"-ERR Protocol error")
case("inline 1MB no newline", b"A" * (1 << 20), wait=0.5)
case("inline 70MB no newline", [b"B" * (1 << 20)] * 70, wait=0.5)
case("bulk 64MB value", [b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$67108864\r\n"] + [b"v" * (1 << 20)] * 64 + [b"\r\n"],
     wait=1.0)
case("many args declared", b"*1048577\r\n", expect=b"")
# "k" may exist from the 64 MB case; DEL of a key never set answers :0.
case("100k args", b"*100001\r\n$3\r\nDEL\r\n" + b"$5\r\nnokey\r\n" * 100000, wait=1.0, expect=b":0")
case("pipeline 100k PING", b"PING\r\n" * 100000, wait=1.5, expect=b"+PONG")
case("binary garbage", bytes(range(256)) * 64)
case("CR only lines", b"\r\r\r\r\n\n\n*1\r\n$4\r\nPING\r\n", expect=b"+PONG")
case("HELLO 4", b"*2\r\n$5\r\nHELLO\r\n$1\r\n4\r\n", expect=b"-NOPROTO")
case("HELLO 3 then junk", b"*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n%1\r\n", wait=0.3)
case("SUBSCRIBE then commands", b"*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\nc\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n")
case("BLPOP 0 then close", b"*3\r\n$5\r\nBLPOP\r\n$1\r\nl\r\n$1\r\n0\r\n")
case("BLPOP huge timeout", b"*3\r\n$5\r\nBLPOP\r\n$1\r\nl\r\n$20\r\n99999999999999999999\r\n", expect=b"-ERR")
case("MULTI never EXEC", b"*1\r\n$5\r\nMULTI\r\n" + b"*2\r\n$4\r\nINCR\r\n$1\r\nc\r\n" * 20000, wait=0.5)
case("EVAL loop", b'EVAL "while true do end" 0\r\n', wait=1.5, expect=b"-")
case("EVAL deep pattern", b"EVAL \"return string.find('aaaa', string.rep('a*', 100000))\" 0\r\n", wait=1.0, expect=b"-")
case("SHUTDOWN", b"*1\r\n$8\r\nSHUTDOWN\r\n")
case("DEBUG SLEEP", b"*3\r\n$5\r\nDEBUG\r\n$5\r\nSLEEP\r\n$3\r\n100\r\n")
case("CLIENT KILL self", b"CLIENT KILL SKIPME no\r\n")
case("QUIT with pending", b"QUIT\r\nPING\r\nPING\r\n")

# Half-sent requests that stay open (slowloris) while others are served.
idle = []
for _ in range(50):
    s = connect()
    s.sendall(b"*2\r\n$3\r\nGET\r\n$100\r\nab")
    idle.append(s)
case("50 idle half-sent connections", b"*1\r\n$4\r\nPING\r\n", expect=b"+PONG")
for s in idle:
    s.close()

# More connections than --maxclients (200): the extra ones are refused, then all close.
conns = []
refused = 0
for _ in range(400):
    try:
        conns.append(connect())
    except OSError:
        refused += 1
for s in conns:
    s.close()
time.sleep(0.3)
case("400 connections then close", b"*1\r\n$4\r\nPING\r\n", expect=b"+PONG")

print("case summary %d bad" % bad)
sys.exit(1 if bad else 0)
