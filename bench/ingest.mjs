// npm run bench:ingest [-- --duration 10 --connections 32 --runs 3 --store sqlite|postgres --telemetry off|metrics|tracing --cpu-prof DIR]
// Starts the real service (embedded SQLite, every commit on disk before its 202, or PostgreSQL with
// --store postgres) and a bare node:http server,
// drives each from a separate load process (wrk) and prints requests/s, p50/p99 latency,
// peak RSS and the service/bare ratio. Numbers are medians over the runs. --telemetry turns the
// service's metrics (scraped every second) or tracing (to a discarding OTLP sink) on.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { processCpuMs, threadCpuMs, threadSplit } from './lib/cpu.mjs';
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
  },
});
const telemetry = await benchTelemetry(values.telemetry);
const duration = Number(values.duration);
const connections = Number(values.connections);
const runs = Number(values.runs);

if (spawnSync('wrk', ['--version']).error) {
  console.error('bench:ingest needs wrk (Debian: apt-get install -y wrk)');
  process.exit(1);
}

const store = await openBenchStore(values.store, 'bench-ingest');
const env = {
  ...process.env,
  ...store.env,
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
  // Keep the limiter in the request path but far above the offered load.
  RATE_LIMIT_PER_MINUTE: '100000000',
  // The front door alone: bench:pipeline measures ingest together with processing.
  WORKER_CONCURRENCY: '0',
};

const quick = JSON.parse(
  execFileSync(path.join(root, 'bin/healthspan'), ['quickstart', '--name', 'bench'], {
    env,
    encoding: 'utf8',
  }),
);
const body = JSON.parse(fs.readFileSync(path.join(root, 'examples/submission.json'), 'utf8'));
body.partnerId = quick.partnerId;
const bodyFile = path.join(store.env.DATA_DIR, 'body.json');
fs.writeFileSync(bodyFile, JSON.stringify(body));

function startProcess(args, extraEnv) {
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

function wrk(url, apiKey) {
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

async function measure(name, args, port, urlPath, apiKey, extraEnv = {}) {
  const child = await startProcess(args, { PORT: String(port), ...extraEnv });
  try {
    await waitFor(`http://127.0.0.1:${port}/health`);
    // Warm-up: JIT, caches, SQLite pages.
    const warmup = wrk(`http://127.0.0.1:${port}${urlPath}`, apiKey, 2);
    const results = [];
    // The server's CPU per request over the measured runs: steadier than req/s on a machine whose
    // two cores it shares with the load generator (and PostgreSQL), so a change shows in it first.
    const cpuBefore = processCpuMs(child.pid);
    const threadsBefore = threadCpuMs(child.pid);
    for (let i = 0; i < runs; i++) results.push(wrk(`http://127.0.0.1:${port}${urlPath}`, apiKey));
    const cpuAfter = processCpuMs(child.pid);
    const threads = threadSplit(child.pid, threadsBefore, threadCpuMs(child.pid));
    const median = (k) => results.map((r) => r[k]).sort((a, b) => a - b)[Math.floor(results.length / 2)];
    return {
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

const bare = await measure(
  'bare node:http',
  [path.join(import.meta.dirname, 'bare-server.mjs')],
  18181,
  '/',
  quick.apiKey,
);
const service = await measure(
  `healthspan (${store.label})`,
  [
    ...(values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(values['cpu-prof'])}`] : []),
    path.join(root, 'dist/server.js'),
  ],
  18182,
  '/v1/submissions',
  quick.apiKey,
  await telemetry.env(),
);
await telemetry.stop();

// Every acknowledged submission must be in the database.
const stored = Number((await store.query('select count(*) n from submissions'))[0].n);

const fmt = (r) =>
  `${r.name.padEnd(26)} ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${r.p50ms.toFixed(2).padStart(6)} ms   p99 ${r.p99ms
    .toFixed(2)
    .padStart(
      6,
    )} ms   peak RSS ${r.peakRssMb.toFixed(0).padStart(4)} MB   non-2xx ${r.non2xx}   socket errors ${r.errors}${
    r.cpuMsPerRequest === undefined ? '' : `   cpu ${r.cpuMsPerRequest.toFixed(3)} ms/req`
  }`;
console.log(
  `\nbench:ingest  ${connections} connections, ${duration}s x ${runs} runs (median), wrk -t1, ${os.cpus().length} cores`,
);
console.log(telemetry.summary());
console.log(fmt(bare));
console.log(fmt(service));
{
  const n = service.requests;
  const per = (ms) => `${((1000 * ms) / n).toFixed(0)} µs`;
  console.log(
    `  by thread: event loop ${per(service.threads.main)}, busiest others ${service.threads.top.map(per).join(' + ')}, rest ${per(service.threads.rest)} per request`,
  );
}
console.log(`ratio service/bare: ${(service.rps / bare.rps).toFixed(3)}  (target >= 0.30)`);
// wrk counts a request when its response arrives, so every counted 2xx is an acknowledged 202.
const acknowledged = service.sent - service.sentNon2xx;
console.log(`acknowledged (202): ${acknowledged}   stored submissions: ${stored}`);
if (stored < acknowledged) {
  console.error('FAIL: fewer submissions stored than acknowledged');
  process.exitCode = 1;
}
await store.close();
