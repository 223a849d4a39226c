// npm run bench:round-trips [-- --n 200 --reports]
// Counts the PostgreSQL statements (each a network round trip) and transactions one submission
// costs, from its POST to its completion, with API and worker in this process: pg's client is
// wrapped before the service starts, so every query any part of the service sends is counted.
// A count, not a timing: the same on a busy machine as on an idle one (the door's pacing is off,
// see below). Prints the total per
// submission and the statements by kind, most frequent first.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openBenchStore } from './lib/store.mjs';

const root = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '200' },
    reports: { type: 'boolean', default: false },
    port: { type: 'string', default: '18391' },
  },
});
const n = Number(values.n);

const POLL = "select count(*) n from submissions where status not in ('completed','failed','rejected')";
// Every statement the service sends, by its first words (enough to tell them apart).
const byKind = new Map();
let counting = false;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (...args) {
  const first = args[0];
  const text = typeof first === 'string' ? first : (first?.text ?? '');
  // This script's own polls for completion are not the service's.
  if (counting && !text.startsWith(POLL)) {
    const kind = text.replace(/\s+/g, ' ').trim().slice(0, 90);
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  }
  return query.apply(this, args);
};

const store = await openBenchStore('postgres', 'bench-round-trips');
Object.assign(process.env, store.env, {
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
  PORT: values.port,
  RATE_LIMIT_PER_MINUTE: '0',
  // The door's pacing queues a successor instead of chaining it while submissions arrive in a
  // burst, which this bench's arrivals are or are not depending on the machine's speed: off,
  // the count depends on the code alone. (`WORKER_BUSY_CONCURRENCY=1 npm run bench:round-trips`
  // counts with it.)
  WORKER_BUSY_CONCURRENCY: process.env.WORKER_BUSY_CONCURRENCY ?? '0',
});
const quick = JSON.parse(
  execFileSync(path.join(root, 'bin/healthspan-admin'), ['quickstart', '--name', 'bench'], {
    encoding: 'utf8',
  }),
);
const { loadConfig } = await import(path.join(root, 'dist/config.js'));
const { startService } = await import(path.join(root, 'dist/service.js'));
const { createLogger } = await import(path.join(root, 'dist/logger.js'));
const { systemClock } = await import(path.join(root, 'dist/clock.js'));
const config = loadConfig();
const service = await startService(config, { logger: createLogger('warn'), clock: systemClock });

const template = JSON.parse(fs.readFileSync(path.join(root, 'examples/submission.json'), 'utf8'));
template.partnerId = quick.partnerId;
template.options.requestedOutputs = values.reports ? ['score', 'json', 'html', 'pdf'] : ['score'];
const body = Buffer.from(JSON.stringify(template));
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
function post(key) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `http://127.0.0.1:${values.port}/v1/submissions`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': body.length,
          'x-api-key': quick.apiKey,
          'idempotency-key': key,
          'x-correlation-id': 'bench',
        },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 202 ? resolve() : reject(new Error(`POST ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
const pending = async () => Number((await store.query(POLL))[0].n);

// Warm-up: prepared statements, caches.
for (let i = 0; i < 10; i++) await post(`warm-${i}`);
while ((await pending()) > 0) await new Promise((r) => setTimeout(r, 50));
// Idle polls and maintenance passes run whatever the load: the count covers the work alone as
// nearly as a running service allows (a second or so of them at the end).
counting = true;
let next = 0;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (next < n) await post(`rt-${next++}`);
  }),
);
while ((await pending()) > 0) await new Promise((r) => setTimeout(r, 20));
counting = false;
await service.stop();
agent.destroy();
await store.close();

const total = [...byKind.values()].reduce((a, b) => a + b, 0);
const transactions = byKind.get('BEGIN') ?? byKind.get('begin') ?? 0;
console.log(
  `\nbench:round-trips  PostgreSQL, n=${n}, reports ${values.reports ? 'json+html+pdf' : 'off'}, API and worker in one process`,
);
console.log(
  `per submission: ${(total / n).toFixed(2)} statements (round trips), of them ${(transactions / n).toFixed(2)} transactions begun`,
);
for (const [kind, count] of [...byKind].sort((a, b) => b[1] - a[1])) {
  console.log(`${(count / n).toFixed(2).padStart(7)}  ${kind}`);
}
