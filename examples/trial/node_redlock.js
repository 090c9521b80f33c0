'use strict';
// node-redlock (redlock@4.2.0) on three servers, on trial:
//
//   locksim trial --servers 3 -- node examples/trial/node_redlock.js
//
// Redlock's documented assumptions: the servers' clocks run at about the same rate, and
// a server that crashes comes back only after the longest lease (or with its data); the
// holder's work ends within the lock's validity. A default trial keeps to them
// (no restart, no clock jump; pauses below the lease).
const Redlock = require('redlock');
const trial = require('./locksim-trial');

const LEASE_MS = 5000;
const clients = trial.servers();
const redlock = new Redlock(clients, { driftFactor: 0.01, retryCount: -1, retryDelay: 20, retryJitter: 20 });
redlock.on('clientError', () => {});  // a server cut from us is expected: the quorum decides

(async () => {
  while (trial.running()) {
    let lock;
    try {
      lock = await redlock.lock('lock:orders', LEASE_MS);
    } catch (e) {
      continue;
    }
    await trial.criticalSection('orders', () => trial.sleep(50 + Math.random() * 50));
    try { await lock.unlock(); } catch (e) { /* a server missed the unlock: its key expires */ }
  }
})();
