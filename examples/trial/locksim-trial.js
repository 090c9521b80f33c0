'use strict';
// The few lines a Node client on trial needs (locksim trial -- node your_client.js), on ioredis.
//
//   const trial = require('./locksim-trial');
//   const [redis] = trial.servers();                 // ioredis clients named $LOCKSIM_CLIENT
//   while (trial.running()) {
//     const lock = await yourLock.acquire();
//     await trial.criticalSection('orders', async () => { await doTheWork(); });
//     await lock.release();
//   }
//
// `locksim trial` gives each copy LOCKSIM_CLIENT (its name) and LOCKSIM_REDIS (the servers'
// redis:// URLs, comma-separated), and ends it with SIGTERM.
const Redis = require('ioredis');

const CLIENT = process.env.LOCKSIM_CLIENT || 'c1';
const URLS = (process.env.LOCKSIM_REDIS || 'redis://127.0.0.1:6379').split(',');

let stopping = false;
process.on('SIGTERM', () => { stopping = true; process.exit(0); });

function running() { return !stopping; }

// One ioredis client per server, each connection named $LOCKSIM_CLIENT (the per-client
// faults find it by that name). A command timeout, so that a lost reply is an error.
function servers(options = {}) {
  return URLS.map((url) => new Redis(url, { connectionName: CLIENT, commandTimeout: 1000, ...options }));
}

// The marks travel on a connection of their own: LOCKSIM.* commands are never faulted,
// but a connection stuck behind the lock's lost reply would hold them back.
const marks = new Redis(URLS[0], { connectionName: CLIENT });

async function enter(resource, token) {
  await marks.call('LOCKSIM.ENTER', resource, ...(token === undefined ? [] : [String(token)]));
}
async function exit(resource) { await marks.call('LOCKSIM.EXIT', resource); }

// ENTER once the lock is yours, EXIT before you release it.
async function criticalSection(resource, work, token) {
  await enter(resource, token);
  try { return await work(); } finally { await exit(resource); }
}

// A write to the fenced resource: false when it refused a stale token.
async function write(resource, token, value) {
  try {
    await marks.call('LOCKSIM.WRITE', resource, String(token), value);
    return true;
  } catch (e) {
    if (String(e.message).startsWith('STALE')) return false;
    throw e;
  }
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

module.exports = { CLIENT, URLS, servers, running, enter, exit, criticalSection, write, sleep };
