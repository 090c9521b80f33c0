// ioredis-mock, the embedded peer in Node, on bench_redis's workload: GET of a
// present key, and the lock's compare-and-delete script that finds its token.
// In-process like the model; timed in CPU seconds (process.cpuUsage), the
// median of 5 rounds. Prints "peer.ioredis_mock.<name>: <value> M/s" lines, or
// one "# ..." line saying why it cannot run. The script file is argv[2].
const fs = require('fs');

let Redis;
try {
  Redis = require('ioredis-mock');
} catch (e) {
  console.log('# ioredis-mock: not installed (./run.sh bench installs it: npm install --prefix build/node ioredis-mock@8.13.1)');
  process.exit(0);
}

const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

async function rate(operation, count) {
  const rounds = [];
  for (let r = 0; r < 5; r++) {
    const start = cpuSeconds();
    for (let i = 0; i < count; i++) await operation();
    rounds.push(count / (cpuSeconds() - start));
  }
  rounds.sort((a, b) => a - b);
  return rounds[2];
}

async function main() {
  const redis = new Redis();
  await redis.set('key', 'value');
  const get = await rate(() => redis.get('key'), 20000);
  console.log(`peer.ioredis_mock.get: ${(get / 1e6).toFixed(4)} M/s`);
  if (process.argv.length < 3) return;
  const script = fs.readFileSync(process.argv[2], 'utf8');
  const cad = await rate(async () => {
    await redis.set('lock', 'token');
    await redis.eval(script, 1, 'lock', 'token');
  }, 500);
  console.log(`peer.ioredis_mock.lua_compare_and_delete: ${(cad / 1e6).toFixed(4)} M/s`);
  redis.disconnect();
}

main().catch((e) => {
  console.log(`# ioredis-mock: ${e.message}`);
});
