// npm run bench:ingest [-- --duration 10 --connections 32 --runs 3 --store sqlite|postgres --telemetry off|metrics|tracing --cpu-prof DIR --worker off|on|both]
// Starts the real service (embedded SQLite, every commit on disk before its 202, or PostgreSQL with
// --store postgres) and a bare node:http server,
// drives each from a separate load process (wrk) and prints requests/s, p50/p99 latency,
// peak RSS and the service/bare ratio. Numbers are medians over the runs. --telemetry turns the
// service's metrics (scraped every second) or tracing (to a discarding OTLP sink) on.
// --worker on runs the service as shipped (API, worker and render threads in one process, every
// body requesting json, html and pdf reports): the burst is measured as above, then the bench
// waits for the backlog to drain and prints its rate. --worker both alternates off and on (one
// run each, `--runs` times, each on a fresh store) and prints the on/off ratios (issue 32).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { processCpuMs, threadCpuMs, threadSplit } from './lib/cpu.mjs';
import { waitForDrain } from './lib/drain.mjs';
import { openBenchStore } from './lib/store.mjs';
import { benchTelemetry } from './lib/telemetry.mjs';

const root = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    runs: { type: 'string', default: '3' },
    store: { type: 'string', default: 'sqlite' },
    telemetry: { type: 'string', default: 'off' },
    // Writes the service's V8 CPU profile there (node --cpu-prof); summarise it with
    // `node bench/lib/profile-summary.mjs DIR/*.cpuprofile`.
    'cpu-prof': { type: 'string' },
    worker: { type: 'string', default: 'off' },
  },
});
if (!['off', 'on', 'both'].includes(values.worker)) {
  console.error(`--worker must be off, on or both, got ${values.worker}`);
  process.exit(1);
}
const telemetry = await benchTelemetry(values.telemetry);
const duration = Number(values.duration);
const connections = Number(values.connections);
const runs = Number(values.runs);

if (spawnSync('wrk', ['--version']).error) {
  console.error('bench:ingest needs wrk (Debian: apt-get install -y wrk)');
  process.exit(1);
}

const baseEnv = {
  ...process.env,
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
  // Keep the limiter in the request path but far above the offered load.
  RATE_LIMIT_PER_MINUTE: '100000000',
};

/**
 * A fresh store, a partner in it and the body to post. Worker off: the front door alone
 * (bench:pipeline measures ingest together with processing). Worker on: as shipped, with reports.
 */
async function setUp(worker) {
  const store = await openBenchStore(values.store, `bench-ingest-${worker}`);
  const env = { ...baseEnv, ...store.env, ...(worker === 'off' ? { WORKER_CONCURRENCY: '0' } : {}) };
  const quick = JSON.parse(
    execFileSync(path.join(root, 'bin/healthspan-admin'), ['quickstart', '--name', 'bench'], {
      env,
      encoding: 'utf8',
    }),
  );
  const body = JSON.parse(fs.readFileSync(path.join(root, 'examples/submission.json'), 'utf8'));
  body.partnerId = quick.partnerId;
  if (worker === 'on') body.options = { ...body.options, requestedOutputs: ['score', 'json', 'html', 'pdf'] };
  const bodyFile = path.join(store.env.DATA_DIR, 'body.json');
  fs.writeFileSync(bodyFile, JSON.stringify(body));
  return { store, env, quick, bodyFile };
}

function startProcess(env, args, extraEnv) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { ...env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.on('error', reject);
    resolve(child);
  });
}

async function waitFor(url) {
  for (let i = 0; i < 200; i++) {
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no answer from ${url}`);
}

function peakRssMb(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

function wrk(url, apiKey, bodyFile) {
  const out = execFileSync(
    'wrk',
    [
      '-t1',
      `-c${connections}`,
      `-d${duration}s`,
      '--latency',
      '-s',
      path.join(import.meta.dirname, 'ingest-load.lua'),
      url,
      '--',
      apiKey,
      bodyFile,
    ],
    { encoding: 'utf8' },
  );
  const line = out.split('\n').find((l) => l.startsWith('WRK_JSON '));
  const r = JSON.parse(line.slice('WRK_JSON '.length));
  return {
    rps: r.requests / (r.durationUs / 1e6),
    p50ms: r.p50Us / 1000,
    p99ms: r.p99Us / 1000,
    errors: r.errors,
    non2xx: r.non2xx,
    requests: r.requests,
  };
}

async function measure(name, args, port, urlPath, setup, { extraEnv = {}, runs: n = runs, afterBurst } = {}) {
  const { apiKey } = setup.quick;
  const child = await startProcess(setup.env, args, { PORT: String(port), ...extraEnv });
  try {
    await waitFor(`http://127.0.0.1:${port}/health`);
    // Warm-up: JIT, caches, SQLite pages.
    const warmup = wrk(`http://127.0.0.1:${port}${urlPath}`, apiKey, setup.bodyFile);
    const results = [];
    // The server's CPU per request over the measured runs: steadier than req/s on a machine whose
    // two cores it shares with the load generator (and PostgreSQL), so a change shows in it first.
    const cpuBefore = processCpuMs(child.pid);
    const threadsBefore = threadCpuMs(child.pid);
    for (let i = 0; i < n; i++)
      results.push(wrk(`http://127.0.0.1:${port}${urlPath}`, apiKey, setup.bodyFile));
    const cpuAfter = processCpuMs(child.pid);
    const threads = threadSplit(child.pid, threadsBefore, threadCpuMs(child.pid));
    const median = (k) => results.map((r) => r[k]).sort((a, b) => a - b)[Math.floor(results.length / 2)];
    const drain = afterBurst ? await afterBurst() : undefined;
    return {
      drain,
      name,
      rps: median('rps'),
      p50ms: median('p50ms'),
      p99ms: median('p99ms'),
      peakRssMb: peakRssMb(child.pid),
      non2xx: results.reduce((s, r) => s + r.non2xx, 0),
      errors: results.reduce((s, r) => s + r.errors, 0),
      requests: results.reduce((s, r) => s + r.requests, 0),
      threads,
      cpuMsPerRequest:
        cpuBefore === undefined || cpuAfter === undefined
          ? undefined
          : (cpuAfter - cpuBefore) / results.reduce((s, r) => s + r.requests, 0),
      // Everything sent, warm-up included, for the durability check below.
      sent: warmup.requests + results.reduce((s, r) => s + r.requests, 0),
      sentNon2xx: warmup.non2xx + results.reduce((s, r) => s + r.non2xx, 0),
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const fmt = (r) =>
  `${r.name.padEnd(26)} ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${r.p50ms.toFixed(2).padStart(6)} ms   p99 ${r.p99ms
    .toFixed(2)
    .padStart(
      6,
    )} ms   peak RSS ${r.peakRssMb.toFixed(0).padStart(4)} MB   non-2xx ${r.non2xx}   socket errors ${r.errors}${
    r.cpuMsPerRequest === undefined ? '' : `   cpu ${r.cpuMsPerRequest.toFixed(3)} ms/req`
  }`;
const fmtDrain = (d) =>
  `  drain: backlog ${d.backlog} after the burst, empty in ${d.seconds.toFixed(1)} s, ${d.perSecond.toFixed(0)} submissions/s completed${d.left > 0 ? `   NOT EMPTY: ${d.left} left` : ''}`;

/** One service measurement on a fresh store: the burst, and with the worker on the drain after it. */
async function measureService(worker, n) {
  const setup = await setUp(worker);
  try {
    const result = await measure(
      `healthspan (${setup.store.label}, worker ${worker})`,
      [
        ...(values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(values['cpu-prof'])}`] : []),
        path.join(root, 'dist/server.js'),
      ],
      18182,
      '/v1/submissions',
      setup,
      {
        extraEnv: await telemetry.env(),
        runs: n,
        afterBurst: worker === 'on' ? () => waitForDrain(setup.store) : undefined,
      },
    );
    // Every acknowledged submission must be in the database.
    result.stored = Number((await setup.store.query('select count(*) n from submissions'))[0].n);
    return result;
  } finally {
    await setup.store.close();
  }
}

function report(service) {
  console.log(fmt(service));
  if (service.drain) console.log(fmtDrain(service.drain));
  const n = service.requests;
  const per = (ms) => `${((1000 * ms) / n).toFixed(0)} µs`;
  console.log(
    `  by thread: event loop ${per(service.threads.main)}, busiest others ${service.threads.top.map(per).join(' + ')}, rest ${per(service.threads.rest)} per request`,
  );
  // wrk counts a request when its response arrives, so every counted 2xx is an acknowledged 202.
  const acknowledged = service.sent - service.sentNon2xx;
  console.log(`  acknowledged (202): ${acknowledged}   stored submissions: ${service.stored}`);
  if (service.stored < acknowledged) {
    console.error('FAIL: fewer submissions stored than acknowledged');
    process.exitCode = 1;
  }
  if (service.drain && service.drain.left > 0) process.exitCode = 1;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const bareSetup = await setUp('off');
const bare = await measure(
  'bare node:http',
  [path.join(import.meta.dirname, 'bare-server.mjs')],
  18181,
  '/',
  bareSetup,
);
await bareSetup.store.close();

const results = { off: [], on: [] };
if (values.worker === 'both') {
  // Alternated, so a neighbour's load on the shared machine falls on both alike.
  for (let i = 0; i < runs; i++) {
    results.off.push(await measureService('off', 1));
    results.on.push(await measureService('on', 1));
  }
} else {
  results[values.worker].push(await measureService(values.worker, runs));
}
await telemetry.stop();

console.log(
  `\nbench:ingest  ${connections} connections, ${duration}s x ${runs} runs (median), wrk -t1, ${os.cpus().length} cores, worker ${values.worker}`,
);
console.log(telemetry.summary());
console.log(fmt(bare));
for (const service of [...results.off, ...results.on]) report(service);
const off = results.off.length > 0 ? median(results.off.map((r) => r.rps)) : undefined;
if (off !== undefined)
  console.log(`ratio service/bare (worker off): ${(off / bare.rps).toFixed(3)}  (target >= 0.30)`);
if (values.worker === 'on') {
  console.log(`ratio service/bare (worker on): ${(results.on[0].rps / bare.rps).toFixed(3)}`);
}
if (values.worker === 'both') {
  const on = median(results.on.map((r) => r.rps));
  const p99 = (rs) => median(rs.map((r) => r.p99ms));
  const drainRate = median(results.on.map((r) => r.drain.perSecond));
  console.log(
    `worker on/off (medians of ${runs}): req/s ${(on / off).toFixed(3)} (target >= 0.85)   p99 ${(p99(results.on) / p99(results.off)).toFixed(2)} (target <= 2)   drain ${drainRate.toFixed(0)} submissions/s`,
  );
}
