"""A deliberately broken lock that `locksim trial` must catch.

    locksim trial -- python3 examples/trial/broken_release.py

Acquire is right (SET key token NX PX lease). Release is not: a plain DEL with no check
that the key still holds our token, and sent again when its reply is late (a timeout
says nothing about whether the first one ran). When the first DEL did run, another
client may hold the lock by the time the second arrives: the second DEL frees the
other client's lock, and a third client enters beside it.
"""
import random
import sys
import time
import uuid

import redis

import locksim_trial as trial

LEASE_MS = 5000
r = trial.servers(socket_timeout=0.2)[0]

while trial.running():
    token = uuid.uuid4().hex
    try:
        if not r.set("lock:orders", token, nx=True, px=LEASE_MS):
            time.sleep(0.01)
            continue
    except redis.RedisError:
        continue
    with trial.critical_section("orders"):
        time.sleep(random.uniform(0.05, 0.1))
    for attempt in range(5):
        try:
            r.delete("lock:orders")  # BUG: no owner check
            break
        except redis.RedisError:  # late reply: send it again (BUG: it may have run)
            continue
sys.exit(0)
