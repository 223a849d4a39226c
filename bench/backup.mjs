// npm run bench:backup [-- --submissions 10000 --seconds 8 --clients 4]
// `healthspan backup create` on an embedded store holding --submissions completed submissions
// (reports included), while the service keeps answering: how long each copy method takes, and
// the service's p99 (reads and submissions, --clients at once) during the backup against the
// same traffic without one. docs/backup.md has the figures.
//
// The store is filled fast: a few submissions go through the real pipeline (json, html and pdf
// reports), then their rows (submission, result, artifacts and report bytes) are copied under new
// ids until there are --submissions of them, with the service stopped.
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';

const root = path.resolve(import.meta.dirname, '..');
const bin = path.join(root, 'bin/healthspan-admin');
const { values } = parseArgs({
  options: {
    submissions: { type: 'string', default: '10000' },
    seconds: { type: 'string', default: '8' },
    clients: { type: 'string', default: '4' },
    port: { type: 'string', default: '18311' },
  },
});
const total = Number(values.submissions);
const windowMs = Number(values.seconds) * 1000;
const clients = Number(values.clients);
const port = Number(values.port);
const base = `http://127.0.0.1:${port}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'healthspan-bench-backup-'));
const env = {
  ...process.env,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'error',
  HOST: '127.0.0.1',
  PORT: String(port),
  RATE_LIMIT_PER_MINUTE: '0',
};
const example = JSON.parse(fs.readFileSync(path.join(root, 'examples/submission.json'), 'utf8'));

function cli(args) {
  return JSON.parse(execFileSync(bin, args, { env, encoding: 'utf8' }));
}

async function startService() {
  const child = spawn(bin, ['serve'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/ready`)).status === 200) return child;
    } catch {}
    if (Date.now() > deadline) throw new Error('the service did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function stopService(child) {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

function submit(key, partnerId, outputs) {
  const body = { ...example, partnerId, options: { ...example.options, requestedOutputs: outputs } };
  return fetch(`${base}/v1/submissions`, {
    method: 'POST',
    headers: {
      'x-api-key': key,
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
      'x-correlation-id': 'bench-backup',
    },
    body: JSON.stringify(body),
  });
}

/** Sends a few through the pipeline and waits until each completed. */
async function seed(key, partnerId, count) {
  const ids = [];
  for (let i = 0; i < count; i++) {
    const res = await submit(key, partnerId, ['score', 'json', 'html', 'pdf']);
    const answer = await res.json();
    if (res.status !== 202) throw new Error(`a seed submission was refused: ${JSON.stringify(answer)}`);
    ids.push(answer.submissionId);
  }
  for (const id of ids) {
    for (;;) {
      const detail = await (
        await fetch(`${base}/v1/submissions/${id}`, { headers: { 'x-api-key': key } })
      ).json();
      if (detail.status === 'completed') break;
      if (detail.status === 'failed' || detail.error)
        throw new Error(`seed ${id}: ${JSON.stringify(detail)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return ids;
}

/** Copies the seeded submissions' rows under new ids until the store holds `total` completed ones. */
function fill(file, templates, count) {
  const db = new Database(file);
  const rowsOf = (table, column, ids) =>
    db
      .prepare(`select * from ${table} where ${column} in (select value from json_each(?))`)
      .all(JSON.stringify(ids));
  const insert = new Map();
  const put = (table, row) => {
    const columns = Object.keys(row);
    let stmt = insert.get(table);
    if (!stmt) {
      stmt = db.prepare(
        `insert into ${table} (${columns.join(',')}) values (${columns.map((c) => `@${c}`).join(',')})`,
      );
      insert.set(table, stmt);
    }
    stmt.run(row);
  };
  const subs = rowsOf('submissions', 'id', templates);
  const results = rowsOf('results', 'submission_id', templates);
  const artifacts = rowsOf(
    'artifacts',
    'result_id',
    results.map((r) => r.id),
  );
  const contents = rowsOf(
    'artifact_contents',
    'artifact_id',
    artifacts.map((a) => a.id),
  );
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const sub = subs[i % subs.length];
      const ids = new Map([[sub.id, randomUUID()]]);
      const swap = (row) =>
        Object.fromEntries(
          Object.entries(row).map(([k, v]) => [k, typeof v === 'string' && ids.has(v) ? ids.get(v) : v]),
        );
      put('submissions', { ...swap(sub), partner_submission_id: `bench-${i}` });
      for (const result of results.filter((r) => r.submission_id === sub.id)) {
        ids.set(result.id, randomUUID());
        put('results', swap(result));
        for (const artifact of artifacts.filter((a) => a.result_id === result.id)) {
          ids.set(artifact.id, randomUUID());
          put('artifacts', swap(artifact));
          for (const content of contents.filter((c) => c.artifact_id === artifact.id))
            put('artifact_contents', swap(content));
        }
      }
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

function p99(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
}

/** `clients` loops of a read and a submission until `until()` is false: when each started, and its ms. */
async function traffic(key, partnerId, readIds, until) {
  const latencies = [];
  let i = 0;
  const client = async () => {
    while (until()) {
      const started = performance.now();
      const res =
        i++ % 2 === 0
          ? await fetch(`${base}/v1/submissions/${readIds[i % readIds.length]}`, {
              headers: { 'x-api-key': key },
            })
          : await submit(key, partnerId, ['score']);
      await res.arrayBuffer();
      latencies.push({ at: started, ms: performance.now() - started });
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  return latencies;
}

/** A backup with `method` while traffic runs: its time, and the p99 while it ran. */
async function duringBackup(key, partnerId, readIds, method) {
  const target = path.join(dataDir, `bench-${method}.sqlite`);
  let running = true;
  const load = traffic(key, partnerId, readIds, () => running);
  await new Promise((r) => setTimeout(r, 500));
  const started = performance.now();
  const child = spawn(bin, ['backup', 'create', '--to', target, '--method', method], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c) => {
    out += c;
  });
  await new Promise((r) => child.once('exit', r));
  const ended = performance.now();
  running = false;
  // Only the requests that started while the backup ran.
  const latencies = (await load).filter((l) => l.at >= started && l.at < ended).map((l) => l.ms);
  const manifest = JSON.parse(out);
  const seconds = (ended - started) / 1000;
  return {
    seconds,
    copySeconds: manifest.seconds,
    sizeMb: manifest.sizeBytes / 1e6,
    p99: p99(latencies),
    requests: latencies.length,
  };
}

const quick = cli(['quickstart', '--name', 'bench-backup']);
let service = await startService();
let templates;
try {
  templates = await seed(quick.apiKey, quick.partnerId, 10);
} finally {
  await stopService(service);
}
fill(path.join(dataDir, 'healthspan.sqlite'), templates, total - templates.length);
service = await startService();
try {
  const readIds = templates;
  const deadline = performance.now() + windowMs;
  const baseline = (
    await traffic(quick.apiKey, quick.partnerId, readIds, () => performance.now() < deadline)
  ).map((l) => l.ms);
  console.log(
    `store: ${total} completed submissions, ${(fs.statSync(path.join(dataDir, 'healthspan.sqlite')).size / 1e6).toFixed(0)} MB`,
  );
  console.log(
    `without a backup: p99 ${p99(baseline).toFixed(1)} ms over ${baseline.length} requests (${clients} clients)`,
  );
  const idle = performance.now();
  const alone = cli(['backup', 'create', '--to', path.join(dataDir, 'bench-idle.sqlite')]);
  console.log(
    `backup with no traffic: ${((performance.now() - idle) / 1000).toFixed(2)} s (copy and check ${alone.seconds.toFixed(2)} s)`,
  );
  for (const method of ['online', 'vacuum']) {
    const r = await duringBackup(quick.apiKey, quick.partnerId, readIds, method);
    console.log(
      `backup --method ${method}: ${r.seconds.toFixed(2)} s (copy and check ${r.copySeconds.toFixed(2)} s, ${r.sizeMb.toFixed(0)} MB); p99 during it ${r.p99.toFixed(1)} ms over ${r.requests} requests`,
    );
  }
} finally {
  await stopService(service);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
