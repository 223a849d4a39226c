// npm run bench:chaos [-- --store sqlite|postgres --kills 20 --every 3 --rate 40]
// Crash test with numbers: one `serve --role api` process and one `serve --role worker`
// process on the same store, a local callback receiver (WEBHOOK_ALLOW_INSECURE), submissions
// offered at --rate per second while the worker is SIGKILLed every --every seconds, --kills
// times (a new one started each time). Then it waits for the backlog to drain and prints what
// was accepted, completed exactly once, delivered, delivered twice (and how late the second
// delivery came), and how long the drain after the last kill took.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openBenchStore } from './lib/store.mjs';

const root = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    kills: { type: 'string', default: '20' },
    every: { type: 'string', default: '3' },
    rate: { type: 'string', default: '40' },
    port: { type: 'string', default: '18293' },
  },
});
const kills = Number(values.kills);
const everyMs = Number(values.every) * 1000;
const rate = Number(values.rate);
const port = Number(values.port);
const bin = path.join(root, 'bin/healthspan-admin');

const store = await openBenchStore(values.store, 'bench-chaos');
const env = {
  ...process.env,
  ...store.env,
  LOG_LEVEL: 'error',
  HOST: '127.0.0.1',
  RATE_LIMIT_PER_MINUTE: '0',
  WEBHOOK_ALLOW_INSECURE: 'true',
};

// The receiver: answers 204 at once and notes when each event arrived.
const received = new Map();
const receiver = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const id = req.headers['x-healthspan-event-id'];
    const times = received.get(id) ?? [];
    times.push(Date.now());
    received.set(id, times);
    res.writeHead(204).end();
  });
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

execFileSync(bin, ['migrate'], { env });
const quick = JSON.parse(execFileSync(bin, ['quickstart', '--name', 'chaos'], { env, encoding: 'utf8' }));
execFileSync(bin, ['webhooks', 'set', '--partner', quick.partnerId, '--url', hookUrl], { env });

function serve(role, extra = {}) {
  return spawn(bin, ['serve', '--role', role], { env: { ...env, ...extra }, stdio: 'ignore' });
}
const api = serve('api', { PORT: String(port) });
const base = `http://127.0.0.1:${port}`;
for (;;) {
  try {
    if ((await fetch(`${base}/ready`)).ok) break;
  } catch {}
  await new Promise((r) => setTimeout(r, 100));
}
let worker = serve('worker', { PORT: String(port + 1) });

const body = JSON.parse(fs.readFileSync(path.join(root, 'examples/submission.json'), 'utf8'));
body.partnerId = quick.partnerId;
let accepted = 0;
let refused = 0;
let sent = 0;
let offering = true;
const offer = (async () => {
  const started = Date.now();
  const inFlight = new Set();
  while (offering) {
    const due = Math.floor(((Date.now() - started) / 1000) * rate);
    while (sent < due) {
      sent += 1;
      const n = sent;
      const p = fetch(`${base}/v1/submissions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': quick.apiKey,
          'idempotency-key': `chaos-${n}`,
          'x-correlation-id': `chaos-${n}`,
        },
        body: JSON.stringify({ ...body, partnerSubmissionId: `chaos-${n}` }),
      })
        .then(async (res) => {
          await res.arrayBuffer();
          if (res.status === 202) accepted += 1;
          else {
            refused += 1;
            if (refused === 1) console.error(`first refusal: ${res.status}`);
          }
        })
        .catch((error) => {
          refused += 1;
          if (refused === 1) console.error(`first refusal: ${error.message}`);
        })
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  await Promise.all(inFlight);
})();

for (let i = 0; i < kills; i += 1) {
  // Somewhere in the interval, so kills land at every point of a job's life.
  await new Promise((r) => setTimeout(r, everyMs * (0.5 + Math.random())));
  worker.kill('SIGKILL');
  await new Promise((r) => worker.once('exit', r));
  worker = serve('worker', { PORT: String(port + 1) });
}
const lastKillAt = Date.now();
offering = false;
await offer;

// Drain: every accepted submission completed and its event delivered.
const deadline = Date.now() + 10 * 60_000;
let completed = 0;
for (;;) {
  completed = Number(
    (await store.query(`select count(*) as n from submissions where status = 'completed'`))[0].n,
  );
  if (completed >= accepted && received.size >= accepted) break;
  if (Date.now() > deadline) break;
  await new Promise((r) => setTimeout(r, 250));
}
const drainS = (Date.now() - lastKillAt) / 1000;
const results = Number((await store.query('select count(*) as n from results'))[0].n);
const twice = [...received.values()].filter((t) => t.length > 1);
const lateness = twice.map((t) => (t[1] - t[0]) / 1000);

worker.kill('SIGTERM');
api.kill('SIGTERM');
await Promise.all(
  [worker, api].map((p) => new Promise((r) => (p.exitCode !== null ? r() : p.once('exit', r)))),
);
receiver.close();
await store.close();

const pct = (a, b) => (b === 0 ? 0 : (100 * a) / b).toFixed(2);
console.log(`bench:chaos store=${values.store} kills=${kills} every≈${values.every}s rate=${rate}/s`);
console.log(`submissions: offered ${sent}, accepted ${accepted}, refused ${refused}`);
console.log(
  `completed: ${completed} (results ${results}; exactly one per completed: ${results === completed})`,
);
console.log(
  `events delivered: ${received.size}, delivered twice or more: ${twice.length} (${pct(twice.length, received.size)} %)`,
);
console.log(
  `second delivery after the first: ${lateness.length ? `median ${lateness.sort((a, b) => a - b)[lateness.length >> 1].toFixed(1)} s, latest ${Math.max(...lateness).toFixed(1)} s` : 'none'}`,
);
console.log(`backlog drained ${drainS.toFixed(1)} s after the last kill`);
process.exit(0);
