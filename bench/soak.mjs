// npm run bench:soak [-- --minutes 30 --rate 100 --store sqlite|postgres --heap-at 5,29 --env K=V,... --node-args="..."]
// The whole service as shipped (`serve --role all`: API, worker and render threads in one
// process) with reports requested, offered submissions at a steady rate by an open-loop load
// process (bench/lib/soak-load.mjs). Once a minute it prints the service's RSS, heap used,
// external and array-buffer memory (its own process.memoryUsage(), written by
// bench/lib/memory-probe.mjs), completions/s, p50/p99 acceptance latency, the backlog, the
// store's size on disk and the machine's iowait and steal over the minute (a latency spike that
// coincides with the disk or the hypervisor is the machine's, not the service's); at the
// end, RSS at minute 5 and at the end, their ratio (target: within 10 %) and the peak.
// --heap-at writes heap snapshots at those minutes into DATA_DIR/../soak-heap (kept).
// --env sets service variables for an experiment (e.g. MALLOC_ARENA_MAX=2), --node-args its node flags.
import { execFileSync, fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { machineShares, machineTicks, processCpuMs } from './lib/cpu.mjs';
import { openBenchStore } from './lib/store.mjs';

const root = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    rate: { type: 'string', default: '100' },
    store: { type: 'string', default: 'sqlite' },
    port: { type: 'string', default: '18383' },
    'heap-at': { type: 'string', default: '' },
    env: { type: 'string', default: '' },
    // Node flags for the service, space-separated (e.g. "--max-semi-space-size=4").
    'node-args': { type: 'string', default: '' },
  },
});
const minutes = Number(values.minutes);
const rate = Number(values.rate);
const heapAt = new Set(values['heap-at'].split(',').filter(Boolean).map(Number));
const extraEnv = Object.fromEntries(
  values.env
    .split(',')
    .filter(Boolean)
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);

const store = await openBenchStore(values.store, 'bench-soak');
const memoryFile = path.join(store.env.DATA_DIR, 'memory.jsonl');
const heapDir = path.join(os.tmpdir(), `healthspan-soak-heap-${Date.now()}`);
if (heapAt.size > 0) fs.mkdirSync(heapDir, { recursive: true });
const env = {
  ...process.env,
  ...store.env,
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
  PORT: values.port,
  RATE_LIMIT_PER_MINUTE: '0',
  SOAK_MEMORY_FILE: memoryFile,
  SOAK_HEAP_DIR: heapDir,
};
const quick = JSON.parse(
  execFileSync(path.join(root, 'bin/healthspan-admin'), ['quickstart', '--name', 'soak'], {
    env,
    encoding: 'utf8',
  }),
);
const template = JSON.parse(fs.readFileSync(path.join(root, 'examples/submission.json'), 'utf8'));
template.partnerId = quick.partnerId;
template.options.requestedOutputs = ['score', 'json', 'html', 'pdf'];

const service = spawn(
  process.execPath,
  [
    '--import',
    path.join(import.meta.dirname, 'lib/memory-probe.mjs'),
    path.join(root, 'bin/healthspan-admin'),
    'serve',
    '--role',
    'all',
  ],
  { env: { ...env, ...extraEnv }, stdio: ['ignore', 'inherit', 'inherit'] },
);
const base = `http://127.0.0.1:${values.port}`;
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${base}/ready`)).status === 200) break;
  } catch {}
  if (i > 400) throw new Error('the service did not start');
  await new Promise((r) => setTimeout(r, 50));
}

function status(pid) {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1] ?? 0) / 1024;
  return { rssMb: kb('VmRSS'), peakMb: kb('VmHWM'), threads: kb('Threads') * 1024 };
}
/** Each thread's latest memoryUsage(): the event loop's (threadId 0) and the others' heaps summed. */
function lastMemory() {
  let lines;
  try {
    lines = fs.readFileSync(memoryFile, 'utf8').trimEnd().split('\n');
  } catch {
    return {};
  }
  const byThread = new Map();
  const since = Date.now() - 15_000;
  for (const line of lines.slice(-200)) {
    const m = JSON.parse(line);
    if (m.t >= since) byThread.set(m.threadId, m);
  }
  const main = byThread.get(0) ?? {};
  const others = [...byThread.values()].filter((m) => m.threadId !== 0);
  return { ...main, threadsHeapTotal: others.reduce((s, m) => s + m.heapTotal, 0) };
}
/** The store's size: SQLite's files in DATA_DIR (the log included), or PostgreSQL's database. */
async function storeSizeMb() {
  if (store.kind === 'postgres') {
    const [row] = await store.query('select pg_database_size(current_database()) b');
    return Number(row.b) / 1048576;
  }
  let bytes = 0;
  for (const name of fs.readdirSync(store.env.DATA_DIR)) {
    const stat = fs.statSync(path.join(store.env.DATA_DIR, name));
    if (stat.isFile()) bytes += stat.size;
  }
  return bytes / 1048576;
}
const count = async (where) =>
  Number((await store.query(`select count(*) n from submissions where ${where}`))[0].n);

const load = fork(
  path.join(import.meta.dirname, 'lib/soak-load.mjs'),
  [base, String(rate), String(minutes), JSON.stringify(template)],
  { env: { ...process.env, SOAK_API_KEY: quick.apiKey }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
);
let minute = { sent: 0, ok: 0, failed: 0, latencies: [] };
let failedTotal = 0;
load.on('message', (w) => {
  minute.sent += w.sent;
  minute.ok += w.ok;
  minute.failed += w.failed;
  failedTotal += w.failed;
  for (const l of w.latencies) minute.latencies.push(l);
});
const loadDone = new Promise((r) => load.once('exit', r));

const mb = (bytes) => (bytes / 1048576).toFixed(0).padStart(5);
const pct = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
console.log(
  `\nbench:soak  ${store.label}, the service as shipped (API + worker + render threads), reports json+html+pdf, ${rate}/s offered for ${minutes} min, ${os.cpus().length} cores`,
);
console.log(
  'min   RSS MB  heap MB  ext MB  arrbuf MB  threads heap MB  done/s  accept p50 ms  p99 ms  backlog  cpu %  store MB  iowait %  steal %',
);
const rows = [];
let completedBefore = await count("status = 'completed'");
let cpuBefore = processCpuMs(service.pid);
let ticksBefore = machineTicks();
const started = Date.now();
for (let m = 1; m <= minutes; m++) {
  await new Promise((r) => setTimeout(r, started + m * 60_000 - Date.now()));
  if (heapAt.has(m)) service.kill('SIGUSR2');
  const completed = await count("status = 'completed'");
  const backlog = await count("status not in ('completed','failed','rejected')");
  const cpu = processCpuMs(service.pid);
  const s = status(service.pid);
  const mem = lastMemory();
  const ticks = machineTicks();
  const machine = machineShares(ticksBefore, ticks);
  const storeMb = await storeSizeMb();
  const lat = minute.latencies.sort((a, b) => a - b);
  const row = {
    m,
    rssMb: s.rssMb,
    peakMb: s.peakMb,
    heapUsed: mem.heapUsed,
    external: mem.external,
    arrayBuffers: mem.arrayBuffers,
    threadsHeap: mem.threadsHeapTotal,
    donePerS: (completed - completedBefore) / 60,
    p50: pct(lat, 50),
    p99: pct(lat, 99),
    backlog,
    cpuPct: cpu === undefined || cpuBefore === undefined ? Number.NaN : (cpu - cpuBefore) / 600,
    storeMb,
    ...machine,
  };
  rows.push(row);
  console.log(
    `${String(m).padStart(3)}  ${row.rssMb.toFixed(0).padStart(7)}  ${mb(row.heapUsed)}    ${mb(row.external)}  ${mb(row.arrayBuffers)}            ${mb(row.threadsHeap)}  ${row.donePerS.toFixed(0).padStart(6)}  ${row.p50.toFixed(1).padStart(13)}  ${row.p99.toFixed(1).padStart(6)}  ${String(backlog).padStart(7)}  ${row.cpuPct.toFixed(0).padStart(5)}  ${row.storeMb.toFixed(0).padStart(8)}  ${row.iowaitPct.toFixed(1).padStart(8)}  ${row.stealPct.toFixed(1).padStart(7)}`,
  );
  completedBefore = completed;
  cpuBefore = cpu;
  ticksBefore = ticks;
  minute = { sent: 0, ok: 0, failed: 0, latencies: [] };
}
await loadDone;
const final = status(service.pid);
const atFive = rows.find((r) => r.m === Math.min(5, minutes));
const end = rows.at(-1);
console.log(
  `RSS: minute ${atFive.m} ${atFive.rssMb.toFixed(0)} MB, end ${end.rssMb.toFixed(0)} MB, end/minute-${atFive.m} ${(end.rssMb / atFive.rssMb).toFixed(3)} (target <= 1.10), peak ${final.peakMb.toFixed(0)} MB; threads ${final.threads}; failed posts ${failedTotal}`,
);
if (heapAt.size > 0) console.log(`heap snapshots: ${heapDir}`);
service.kill('SIGTERM');
await new Promise((r) => service.once('exit', r));
await store.close();
