"""redis-py's own Lock, on trial.

    locksim trial -- python3 examples/trial/redis_py_lock.py              # passes
    locksim trial -- python3 examples/trial/redis_py_lock.py --lease 0.3 --work 0.5
                                                  # a lease shorter than the work: caught

The lock is redis-py's `Lock` (SET NX PX with a random token; release and extend by a
Lua script that checks the token). Its documented assumption: the work ends within the
lease (`timeout`), so a pause, a late reply or a slow step must stay below lease - work.
"""
import argparse
import random
import sys
import time

import redis

import locksim_trial as trial

parser = argparse.ArgumentParser()
parser.add_argument("--lease", type=float, default=5.0, help="the Lock's timeout, in seconds")
parser.add_argument("--work", type=float, default=0.1, help="the longest work inside the lock, in seconds")
parser.add_argument("--resource", default="orders")
args = parser.parse_args()

r = trial.servers(socket_timeout=1.0)[0]
lock = r.lock("lock:" + args.resource, timeout=args.lease, sleep=0.01, blocking_timeout=10, thread_local=False)

while trial.running():
    try:
        if not lock.acquire():
            continue
    except redis.RedisError as e:  # a lost or late reply: try again
        print(f"{trial.CLIENT}: acquire: {e!r}", flush=True)
        continue
    with trial.critical_section(args.resource):
        time.sleep(random.uniform(args.work / 2, args.work))
    try:
        lock.release()
    except redis.exceptions.LockNotOwnedError:
        print(f"{trial.CLIENT}: the lock had expired before release", flush=True)
    except redis.RedisError as e:
        print(f"{trial.CLIENT}: release: {e!r}", flush=True)
sys.exit(0)
