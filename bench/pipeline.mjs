// npm run bench:pipeline [-- --n 2000 --concurrency 64 --reports --rate R --stalls --warmup 20 --store sqlite|postgres --artifacts database|s3|files --workers N --telemetry off|metrics|tracing]
// Starts the real service, submits N valid bodies (as fast as ingest allows, or paced at R/s),
// and measures for each the time from acceptance to `completed`. Timestamps come from the
// database the service writes (received_at and the submission's updated_at when it
// completed), read over a separate connection, so the measurement puts no polling load on the
// API. Without --reports the bodies request only scores; with --reports they request json,
// html and pdf, and the per-renderer medians are printed as well.
// --workers 0 (the default) runs API and worker in one process; --workers N runs one
// `serve --role api` process and N `serve --role worker` processes on the same store.
// On Linux a `cpu:` line splits the CPU time of the measured part, per submission, between the
// service's processes, PostgreSQL's (when the server runs on this machine) and this load
// generator: on a small machine they share the cores, and the split says where they went.
// --artifacts s3 keeps the report bytes in an S3-compatible store (s3rver, in a process of its
// own, whose CPU is printed apart), and prints the S3 client's own CPU per PUT; every run prints
// how much the database grew per completed submission. --artifacts files keeps the embedded
// store's bytes in files under DATA_DIR (EMBEDDED_ARTIFACTS=files), whose growth is printed
// beside the database's; on Linux an `io:` line gives the service's write and read calls and bytes written per submission (/proc/PID/io).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  embeddedBytes,
  ioDelta,
  postgresCpuMs,
  postgresDeltaMs,
  processCpuMs,
  processIo,
  threadCpuMs,
  threadSplit,
} from './lib/cpu.mjs';
import { clientCpuPerPut, startBenchObjectStore } from './lib/object-store.mjs';
import { describeStalls, startStallProbe } from './lib/stall-probe.mjs';
import { openBenchStore } from './lib/store.mjs';
import { benchTelemetry } from './lib/telemetry.mjs';

const root = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '64' },
    reports: { type: 'boolean', default: false },
    // Offered load in submissions/s; unset = as fast as ingest allows. Latency is only
    // meaningful below capacity: above it the queue, and so the latency, grows with n.
    rate: { type: 'string' },
    // With --rate: for the seconds that held the slowest submissions, how long each of the
    // service's threads (and PostgreSQL) ran and waited for a core, beside the usual second.
    stalls: { type: 'boolean', default: false },
    // Submissions before the measured part, one at a time (or at --rate), waited for to complete.
    warmup: { type: 'string', default: '20' },
    port: { type: 'string', default: '18283' },
    store: { type: 'string', default: 'sqlite' },
    artifacts: { type: 'string', default: 'database' },
    workers: { type: 'string', default: '0' },
    // The service's metrics (each process scraped every second) or tracing (to a discarding sink).
    telemetry: { type: 'string', default: 'off' },
  },
});
const telemetry = await benchTelemetry(values.telemetry);
const workers = Number(values.workers);
const n = Number(values.n);
const rate = values.rate === undefined ? undefined : Number(values.rate);
const concurrency = Number(values.concurrency);
const port = Number(values.port);

const store = await openBenchStore(values.store, 'bench-pipeline');
if (!['database', 's3', 'files'].includes(values.artifacts))
  throw new Error('--artifacts must be database, s3 or files');
const embedded = values.artifacts === 'files' ? values.artifacts : undefined;
const objects = values.artifacts === 's3' ? await startBenchObjectStore() : undefined;
const env = {
  ...process.env,
  ...store.env,
  ...objects?.env,
  ...(embedded ? { EMBEDDED_ARTIFACTS: embedded } : {}),
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
  PORT: String(port),
  RATE_LIMIT_PER_MINUTE: '0',
};
const quick = JSON.parse(
  execFileSync(path.join(root, 'bin/healthspan-admin'), ['quickstart', '--name', 'bench'], {
    env,
    encoding: 'utf8',
  }),
);
const template = JSON.parse(fs.readFileSync(path.join(root, 'examples/submission.json'), 'utf8'));
template.partnerId = quick.partnerId;
template.options.requestedOutputs = values.reports ? ['score', 'json', 'html', 'pdf'] : ['score'];
const body = JSON.stringify(template);

const nodeArgs = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [];
async function serve(role, servePort) {
  return spawn(
    process.execPath,
    [...nodeArgs, path.join(root, 'bin/healthspan-admin'), 'serve', '--role', role],
    {
      env: { ...env, ...(await telemetry.env()), PORT: String(servePort) },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
}
async function ready(url) {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/ready`)).status === 200) return;
    } catch {}
    if (i > 200) throw new Error(`${url} did not start`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const processes = [await serve(workers === 0 ? 'all' : 'api', port)];
for (let w = 0; w < workers; w++) processes.push(await serve('worker', port + 1 + w));
const base = `http://127.0.0.1:${port}`;
for (const [i] of processes.entries()) await ready(`http://127.0.0.1:${port + i}`);

// node:http with keep-alive rather than fetch: the load generator shares the cores with what it
// measures, and fetch cost it about twice the CPU per request.
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const bodyBytes = Buffer.from(body);
function post(key) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}/v1/submissions`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': bodyBytes.length,
          'x-api-key': quick.apiKey,
          'idempotency-key': key,
          'x-correlation-id': 'bench',
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if (res.statusCode !== 202) reject(new Error(`POST answered ${res.statusCode}: ${text}`));
          else resolve(JSON.parse(text).submissionId);
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(bodyBytes);
  });
}
const pending = async () =>
  Number(
    (
      await store.query(
        "select count(*) n from submissions where status not in ('completed','failed','rejected')",
      )
    )[0].n,
  );
/** With --rate, waits until submission `i` of a run that began at `since` is due. */
async function due(since, i) {
  if (rate === undefined) return;
  const wait = since + (i * 1000) / rate - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}
// Warm-up outside the measurement: JIT, fonts, prepared statements.
const warmupStarted = performance.now();
for (let i = 0; i < Number(values.warmup); i++) {
  await due(warmupStarted, i);
  await post(`warm-${i}`);
}
while ((await pending()) > 0) await new Promise((r) => setTimeout(r, 20));

// CPU readings around the measured part (Linux /proc; PostgreSQL's only when it runs here).
const cpuAtStart = {
  service: processes.map((child) => processCpuMs(child.pid)),
  threads: processes.map((child) => threadCpuMs(child.pid)),
  postgres: store.kind === 'postgres' ? postgresCpuMs() : undefined,
  objects: objects ? processCpuMs(objects.pid) : undefined,
  io: processes.map((child) => processIo(child.pid)),
  load: process.cpuUsage(),
};
const sizeAtStart = {
  database: await store.size(),
  tables: await store.tableSizes(),
  objects: objects?.bytes(),
  embedded: embeddedBytes(store.env.DATA_DIR),
};

const stallProbe =
  values.stalls && rate !== undefined
    ? startStallProbe(
        processes.map((child) => child.pid),
        { withPostgres: store.kind === 'postgres' },
      )
    : undefined;
const ids = [];
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < n) {
      const i = next++;
      await due(started, i);
      ids.push(await post(`bench-${i}`));
    }
  }),
);
const ingestSeconds = (performance.now() - started) / 1000;
// Completion times come from the database, so polling less often loses no precision, while a
// `count(*)` every few milliseconds would load the database being measured.
while ((await pending()) > 0) await new Promise((r) => setTimeout(r, 250));
const wallSeconds = (performance.now() - started) / 1000;
stallProbe?.stop();
const serviceCpu = processes.map((child, i) => {
  const end = processCpuMs(child.pid);
  const start = cpuAtStart.service[i];
  return end === undefined || start === undefined ? undefined : end - start;
});
const threadSplits = processes.map((child, i) =>
  threadSplit(child.pid, cpuAtStart.threads[i], threadCpuMs(child.pid)),
);
// On a shared machine other databases' backends are other people's work: only this database's
// backends and the server's own processes (WAL, checkpoints) count, each printed.
const postgresSplit = cpuAtStart.postgres ? await postgresShares(cpuAtStart.postgres) : undefined;
const postgresCpu = postgresSplit ? postgresSplit.ours + postgresSplit.shared : undefined;
async function postgresShares(before) {
  const after = postgresCpuMs();
  const pids = await store.postgresPids();
  return {
    ours: postgresDeltaMs(before, after, pids.ours),
    shared: postgresDeltaMs(before, after, pids.shared),
    others:
      postgresDeltaMs(before, after) -
      postgresDeltaMs(before, after, new Set([...pids.ours, ...pids.shared])),
  };
}
const objectsCpu =
  objects && cpuAtStart.objects !== undefined ? processCpuMs(objects.pid) - cpuAtStart.objects : undefined;
const tablesAtEnd = await store.tableSizes();
const growth = {
  database: (await store.size()) - sizeAtStart.database,
  tables: Object.entries(tablesAtEnd)
    .map(([t, b]) => [t, b - (sizeAtStart.tables[t] ?? 0)])
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6),
  objects: objects ? objects.bytes() - sizeAtStart.objects : undefined,
  embedded: embedded ? embeddedBytes(store.env.DATA_DIR) - sizeAtStart.embedded : undefined,
};
const io = processes.map((child, i) => ioDelta(cpuAtStart.io[i], processIo(child.pid)));
const loadUsage = process.cpuUsage(cpuAtStart.load);
const loadCpu = (loadUsage.user + loadUsage.system) / 1000;

const rows = await store.query(
  `select received_at, updated_at, status from submissions where ${store.inIds('id')}`,
  [store.idsParam(ids)],
);
const ms = (v) => (v instanceof Date ? v.getTime() : Date.parse(v));
const latencies = rows.map((r) => ms(r.updated_at) - ms(r.received_at)).sort((a, b) => a - b);
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
const firstReceived = Math.min(...rows.map((r) => ms(r.received_at)));
/**
 * Where the slowest 1 % arrived: spread over most seconds of the run, the tail is queueing (a
 * busy moment here and there); packed into a few, something stalled the service then.
 */
function tailSpread() {
  const threshold = pct(99);
  const start = firstReceived;
  const second = (r) => Math.floor((ms(r.received_at) - start) / 1000);
  const bySecond = new Map();
  for (const r of rows) {
    if (ms(r.updated_at) - ms(r.received_at) < threshold) continue;
    bySecond.set(second(r), (bySecond.get(second(r)) ?? 0) + 1);
  }
  const slow = [...bySecond.values()].reduce((a, b) => a + b, 0);
  const seconds = Math.max(...rows.map(second)) + 1;
  const worst = [...bySecond.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3);
  const line = `the ${slow} slowest (>= p99) arrived in ${bySecond.size} of ${seconds} seconds from ${new Date(start).toISOString().slice(11, 19)} UTC; the worst seconds ${worst.map(([s, k]) => `${s}: ${k}`).join(', ')}`;
  if (!stallProbe || worst.length === 0) return line;
  // The worst second's submissions were held up in it or in the next one.
  const looked = [worst[0][0], worst[0][0] + 1, ...worst.slice(1).map(([s]) => s)];
  return [line, ...describeStalls(stallProbe.perSecond(start), [...new Set(looked)])].join('\n');
}
const lastCompleted = Math.max(...rows.map((r) => ms(r.updated_at)));
const completed = rows.filter((r) => r.status === 'completed').length;
const [jobs] = await store.query(
  `select max(attempts) a, sum(case when status != 'completed' then 1 else 0 end) "notDone" from jobs where ${store.inIds('submission_id')}`,
  [store.idsParam(ids)],
);
for (const child of processes) child.kill('SIGTERM');
await telemetry.stop();
await Promise.all(processes.map((child) => new Promise((r) => child.once('exit', r))));

console.log(
  `\nbench:pipeline  ${store.label}${objects ? ' + S3 (s3rver)' : ''}, ${workers === 0 ? 'API and worker in one process' : `1 API process + ${workers} worker process${workers > 1 ? 'es' : ''}`}, n=${n}, ${concurrency} concurrent posts, reports ${values.reports ? 'json+html+pdf' : 'off'}, ${os.cpus().length} cores`,
);
console.log(`ingest:      ${(n / ingestSeconds).toFixed(0)} submissions/s accepted`);
console.log(
  `completed:   ${completed}/${n}  (${(completed / ((lastCompleted - firstReceived) / 1000)).toFixed(0)} submissions/s, first acceptance to last completion; wall ${wallSeconds.toFixed(1)} s)`,
);
console.log(
  `end-to-end:  p50 ${pct(50)} ms   p95 ${pct(95)} ms   p99 ${pct(99)} ms   max ${latencies.at(-1)} ms`,
);
if (rate !== undefined) console.log(`tail:        ${tailSpread()}`);
console.log(`jobs:        max attempts ${jobs.a}, not completed ${Number(jobs.notDone)}`);
console.log(telemetry.summary());
if (serviceCpu.every((ms) => ms !== undefined)) {
  const per = (ms) => `${(ms / n).toFixed(2)} ms`;
  const service = serviceCpu.reduce((a, b) => a + b, 0);
  const parts = [
    `service ${per(service)}${processes.length > 1 ? ` (${serviceCpu.map(per).join(' + ')})` : ''}`,
    ...(postgresCpu !== undefined && postgresCpu > 0
      ? [
          `PostgreSQL ${per(postgresCpu)} (this database's backends ${per(postgresSplit.ours)}, the server's own processes ${per(postgresSplit.shared)}; other databases' ${per(postgresSplit.others)} left out)`,
        ]
      : []),
    ...(objectsCpu !== undefined ? [`S3 server ${per(objectsCpu)}`] : []),
    `load generator ${per(loadCpu)}`,
  ];
  if (postgresCpu !== undefined && postgresCpu > 0)
    console.log(`service+PG:  ${per(service + postgresCpu)} per submission (the S3 server left out)`);
  const total = service + (postgresCpu ?? 0) + (objectsCpu ?? 0) + loadCpu;
  console.log(
    `cpu:         ${parts.join(', ')} per submission; total ${per(total)} (${os.cpus().length} cores x 1000 ms / total = ${((os.cpus().length * 1000 * n) / total).toFixed(0)}/s if CPU-bound)`,
  );
  // By thread: the event loop, the busiest worker threads (render, SQLite writer), the rest.
  for (const [i, split] of threadSplits.entries()) {
    if (split.main === 0 && split.top.length === 0) continue;
    const role = processes.length === 1 ? 'service' : i === 0 ? 'api' : `worker ${i}`;
    console.log(
      `  ${role.padEnd(10)} event loop ${per(split.main)}, busiest threads ${split.top.map(per).join(' + ') || '-'}, other threads ${per(split.rest)}`,
    );
  }
}

const kib = (b) => `${(b / 1024 / completed).toFixed(1)} KiB`;
console.log(
  `growth:      database ${kib(growth.database)} per completed submission${growth.objects !== undefined ? `, object store ${kib(growth.objects)} (s3rver's files)` : ''}${growth.embedded !== undefined ? `, DATA_DIR/artifacts ${kib(growth.embedded)}` : ''}`,
);
console.log(`  by table   ${growth.tables.map(([t, b]) => `${t} ${kib(b)}`).join(', ')}`);
if (io.every((d) => d !== undefined)) {
  const sum = (k) => io.reduce((a, d) => a + d[k], 0);
  console.log(
    `io:          service ${(sum('syscw') / n).toFixed(1)} write and ${(sum('syscr') / n).toFixed(1)} read calls, ${(sum('write_bytes') / 1024 / n).toFixed(1)} KiB written to disk, ${(sum('wchar') / 1024 / n).toFixed(1)} KiB passed to write calls, per submission (/proc/PID/io)`,
  );
}
if (objects) {
  console.log(
    `S3 client:   ${(await clientCpuPerPut(objects.env)).toFixed(3)} ms CPU per 37 KiB PUT (S3ArtifactStore, this process, keep-alive)`,
  );
}

if (values.reports) {
  const { buildReport, renderArtifact } = await import('../dist/reports/index.js');
  const { scoreSubmission } = await import('../dist/domain/model/index.js');
  const { parseSubmission, checkPanel } = await import('../dist/domain/submission/index.js');
  const parsed = parseSubmission(template, { now: new Date() });
  const sub = checkPanel(parsed.value).value;
  const result = scoreSubmission(sub, { now: new Date() });
  const report = buildReport({
    resultId: '00000000-0000-4000-8000-000000000000',
    submissionId: '00000000-0000-4000-8000-000000000001',
    partnerSubmissionId: sub.partnerSubmissionId,
    partnerSubjectId: sub.partnerSubjectId,
    generatedAt: new Date().toISOString(),
    submission: sub,
    result,
  });
  const line = [];
  for (const type of ['json', 'html', 'pdf']) {
    const times = [];
    for (let i = 0; i < 60; i++) {
      const t = performance.now();
      await renderArtifact(type, report);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    line.push(`${type} ${times[30].toFixed(2)} ms`);
  }
  console.log(`renderers:   median ${line.join(', ')} (this process, after warm-up)`);
}
agent.destroy();
await store.close();
await objects?.close();
if (completed !== n) process.exitCode = 1;
