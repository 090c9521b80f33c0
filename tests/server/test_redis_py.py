#!/usr/bin/python3
"""redis-py (Debian's python3-redis) against `locksim serve`, run as a child process:
redis-py's own Lock in manual time and under an injected pause, plus the commands a
Python client sends. Usage: test_redis_py.py /path/to/locksim"""
import os
import subprocess
import sys
import time
import unittest

try:
    import redis
    from redis.exceptions import LockNotOwnedError
except ImportError:
    sys.exit("test_redis_py.py: the python3-redis package (Debian's redis-py) is not installed")

LOCKSIM = sys.argv.pop(1) if len(sys.argv) > 1 else "build/cli/locksim"


class ServeProcess:
    """`locksim serve --port 0` as a child under `timeout`; killed and reaped on close."""

    def __init__(self, *args):
        self.proc = subprocess.Popen(["timeout", "-k", "5", "120", LOCKSIM, "serve", "--port", "0", *args],
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if "listening on" not in line:
            self.close()
            raise RuntimeError("locksim serve did not start: " + repr(line))
        self.port = int(line.rsplit(":", 1)[1])

    def client(self, **kwargs):
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=10, **kwargs)

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        # Nothing left behind: neither `timeout` nor the server it ran.
        assert self.proc.poll() is not None
        try:
            os.kill(self.proc.pid, 0)
            raise AssertionError("process %d still exists" % self.proc.pid)
        except ProcessLookupError:
            pass
        left = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True).stdout
        assert left.strip() == "", "children left behind: " + left


class ManualTime(unittest.TestCase):
    def setUp(self):
        self.server = ServeProcess("--time", "manual")
        self.addCleanup(self.server.close)
        self.r = self.server.client()

    def advance(self, ms):
        return self.r.execute_command("LOCKSIM.ADVANCE", ms)

    def test_lock_expires_only_when_time_is_advanced(self):
        held = self.r.lock("resource", timeout=1)  # a 1 s lease
        self.assertTrue(held.acquire(blocking=False))
        time.sleep(1.2)  # real time passes; the server's clock does not
        rival = self.server.client().lock("resource", timeout=1)
        self.assertFalse(rival.acquire(blocking=False))
        self.assertTrue(held.owned())
        self.advance(1000)  # at its deadline a key still lives, as in Redis
        self.assertFalse(rival.acquire(blocking=False))
        self.advance(1)
        self.assertTrue(rival.acquire(blocking=False))
        self.assertFalse(held.owned())
        with self.assertRaises(LockNotOwnedError):
            held.release()
        rival.release()

    def test_extend_and_reacquire(self):
        lock = self.r.lock("res", timeout=2)
        self.assertTrue(lock.acquire(blocking=False))
        self.advance(1500)
        self.assertTrue(lock.extend(2))  # now 3.5 s from its start, 0.5 s used of the 2 s extension
        self.advance(2000)
        self.assertTrue(lock.locked())
        self.advance(1001)
        self.assertFalse(lock.locked())

    def test_commands_a_python_client_sends(self):
        r = self.r
        self.assertTrue(r.ping())
        self.assertTrue(r.set("k", "v", px=500))
        self.assertEqual(r.get("k"), b"v")
        self.assertEqual(r.pttl("k"), 500)
        pipe = r.pipeline(transaction=True)
        pipe.incr("n").incr("n").get("n")
        self.assertEqual(pipe.execute(), [1, 2, b"2"])
        self.assertTrue(r.client_setname("py"))
        self.assertIn(r.client_getname(), ("py", b"py"))
        self.assertIsInstance(r.client_id(), int)
        self.assertEqual(r.client_info()["name"], "py")
        self.assertEqual(r.hset("h", mapping={"a": "1"}), 1)
        self.assertEqual(r.hgetall("h"), {b"a": b"1"})


class WallTime(unittest.TestCase):
    def setUp(self):
        self.server = ServeProcess()
        self.addCleanup(self.server.close)

    def test_another_client_gets_the_lock_under_an_injected_pause(self):
        admin, a, b = self.server.client(), self.server.client(), self.server.client()
        held = a.lock("resource", timeout=0.5)
        self.assertTrue(held.acquire(blocking=False))
        rival = b.lock("resource", timeout=5)
        self.assertFalse(rival.acquire(blocking=False))
        admin.execute_command("LOCKSIM.PAUSE", 1000)  # every client stalls for 1 s, the lease runs out
        self.assertTrue(rival.acquire(blocking=True, blocking_timeout=5))
        with self.assertRaises(LockNotOwnedError):
            held.release()
        self.assertEqual(b.get("resource"), rival.local.token)


class RequirePass(unittest.TestCase):
    def setUp(self):
        self.server = ServeProcess("--requirepass", "pw")
        self.addCleanup(self.server.close)

    def test_auth_requirepass_and_dropped_connections(self):
        refused = (redis.exceptions.AuthenticationError, redis.exceptions.ResponseError)
        with self.assertRaisesRegex(refused, "Authentication required"):
            self.server.client().ping()
        with self.assertRaisesRegex(refused, "WRONGPASS"):
            self.server.client(password="wrong").ping()
        r = self.server.client(password="pw")
        self.assertTrue(r.ping())
        self.assertTrue(r.set("k", "v"))
        other = self.server.client(password="pw")
        self.assertTrue(other.ping())
        other_id = other.client_id()
        self.assertEqual(r.execute_command("LOCKSIM.DROP", other_id), 1)
        self.assertTrue(other.ping())  # redis-py reconnects a dropped pooled connection
        self.assertNotEqual(other.client_id(), other_id)


if __name__ == "__main__":
    unittest.main(verbosity=2)
