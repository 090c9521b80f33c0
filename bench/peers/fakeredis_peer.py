#!/usr/bin/python3
"""fakeredis, the embedded peer in Python, on bench_redis's workload: GET of a
present key, and the lock's compare-and-delete script that finds its token.
In-process and single-threaded like the model; timed in CPU seconds (the
median of 5 rounds). Prints "peer.fakeredis.<name>: <value> M/s" lines, or
one "# ..." line saying why it cannot run. The script comes from argv[1]."""
import statistics
import sys
import time

try:
    import fakeredis
except ImportError:
    print("# fakeredis: not installed (Debian: python3-fakeredis)")
    sys.exit(0)


def rate(operation, count):
    rounds = []
    for _ in range(5):
        start = time.process_time()
        for _ in range(count):
            operation()
        rounds.append(count / (time.process_time() - start))
    return statistics.median(rounds)


def main():
    script = open(sys.argv[1]).read() if len(sys.argv) > 1 else None
    server = fakeredis.FakeStrictRedis()
    server.set("key", "value")
    print(f"peer.fakeredis.get: {rate(lambda: server.get('key'), 20000) / 1e6:.4f} M/s")
    if script is None:
        return
    try:
        import lupa  # noqa: F401  fakeredis runs scripts with lupa
    except ImportError:
        print("# fakeredis: EVAL needs lupa (Debian: python3-lupa)")
        return

    def compare_and_delete():
        server.set("lock", "token")
        server.eval(script, 1, "lock", "token")

    # Each call sets the key first (a SET is cheap beside an EVAL): the script finds its token.
    print(f"peer.fakeredis.lua_compare_and_delete: {rate(compare_and_delete, 500) / 1e6:.4f} M/s")


main()
