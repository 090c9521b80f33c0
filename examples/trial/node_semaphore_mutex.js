'use strict';
// redis-semaphore's Mutex (redis-semaphore@5.8.0) with refresh, on trial:
//
//   locksim trial -- node examples/trial/node_semaphore_mutex.js
//
// The Mutex refreshes its lease every refreshInterval; when a refresh fails it calls
// onLockLost, and the holder must stop using the lock: here it leaves its critical
// section at once (the work is cut short). Its assumption: the holder notices a lost
// lock before a new holder enters (a pause longer than the lease breaks that).
const { Mutex } = require('redis-semaphore');
const trial = require('./locksim-trial');

const [redis] = trial.servers();

(async () => {
  while (trial.running()) {
    let lost = false;
    const mutex = new Mutex(redis, 'orders', {
      lockTimeout: 3000,
      refreshInterval: 1000,
      acquireTimeout: 10000,
      retryInterval: 10,
      onLockLost: () => { lost = true; },
    });
    try {
      await mutex.acquire();
    } catch (e) {
      continue;
    }
    await trial.criticalSection('orders', async () => {
      // Work in short steps, and stop the moment the lock is known lost.
      const steps = 2 + Math.floor(Math.random() * 3);
      for (let i = 0; i < steps && !lost; ++i) await trial.sleep(25);
    });
    try { await mutex.release(); } catch (e) { /* lost or unreachable: its key expires */ }
  }
})();
