"""The few lines a Python client on trial needs (locksim trial -- python3 your_client.py).

`locksim trial` starts N copies of your program, each with LOCKSIM_CLIENT (its name)
and LOCKSIM_REDIS (the servers' redis:// URLs, comma-separated). Your program names
every Redis connection LOCKSIM_CLIENT (the per-client faults find it by that name),
marks each critical section with LOCKSIM.ENTER / LOCKSIM.EXIT, and loops until the
trial ends it with SIGTERM.

    import locksim_trial as trial
    r = trial.servers()[0]               # a redis.Redis named $LOCKSIM_CLIENT
    while trial.running():
        with your_lock(r):
            with trial.critical_section("orders"):
                do_the_work()
"""
import contextlib
import os
import signal

import redis

CLIENT = os.environ.get("LOCKSIM_CLIENT", "c1")
URLS = os.environ.get("LOCKSIM_REDIS", "redis://127.0.0.1:6379").split(",")

_stop = False


def _on_term(signum, frame):
    # Ends the program where it stands (a critical section still sends its EXIT on the
    # way out): a client blocked in an acquire need not wait for it.
    global _stop
    _stop = True
    raise SystemExit(0)


signal.signal(signal.SIGTERM, _on_term)


def running():
    """False once the trial has asked this client to end."""
    return not _stop


def servers(**kwargs):
    """One redis.Redis per server, each connection named $LOCKSIM_CLIENT."""
    return [redis.Redis.from_url(url, client_name=CLIENT, **kwargs) for url in URLS]


# The marks travel on a connection of their own, so that a fault aimed at the lock's
# commands (a lost reply, a cut) cannot eat them; LOCKSIM.* commands are never faulted.
_marks = redis.Redis.from_url(URLS[0], client_name=CLIENT, socket_timeout=5)


def _mark(*args):
    for attempt in range(3):
        try:
            return _marks.execute_command(*args)
        except redis.ConnectionError:  # the server restarted: reconnect and send it again
            if attempt == 2:
                raise


def enter(resource, token=None):
    _mark("LOCKSIM.ENTER", resource, *([] if token is None else [token]))


def exit(resource):
    _mark("LOCKSIM.EXIT", resource)


@contextlib.contextmanager
def critical_section(resource, token=None):
    """ENTER when the lock is yours, EXIT before you release it."""
    enter(resource, token)
    try:
        yield
    finally:
        exit(resource)


def write(resource, token, value):
    """A write to the fenced resource: False when it refused a stale token."""
    try:
        _mark("LOCKSIM.WRITE", resource, token, value)
        return True
    except redis.ResponseError as e:
        if str(e).startswith("STALE"):
            return False
        raise
