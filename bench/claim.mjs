// npm run bench:claim [-- --backlog 3000 --rounds 2000]
// The SQLite claim statement on a backlog of due jobs, timed alone (each run inside
// `BEGIN IMMEDIATE` … `ROLLBACK`, so every round claims the same oldest job): the shipped form
// (`LIMIT` written into the SQL) against the same statement with a bound `LIMIT ?`, the two
// interleaved round by round, medians printed. A statement-level microbenchmark: it says what
// one claim costs the event loop, not what a submission costs.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';

const root = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: { backlog: { type: 'string', default: '3000' }, rounds: { type: 'string', default: '2000' } },
});
const dist = (p) => import(path.join(root, 'dist', p));
const { openSqliteDriver } = await dist('store/sqlite/driver.js');
const { Store } = await dist('store/index.js');
const { systemClock } = await dist('clock.js');
const rows = await dist('store/rows.js');
const st = await dist('store/statements.js');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'healthspan-bench-claim-'));
const driver = openSqliteDriver(dir);
const store = new Store(driver, { slaSeconds: 300, maxAttempts: 5 }, { clock: systemClock });
await store.migrate();
const tenantId = (await store.system.accounts.createTenant('T')).tenantId;
const partnerId = (await store.system.accounts.createPartner(tenantId, 'P')).partnerId;
const body = fs.readFileSync(path.join(root, 'examples/submission.json'), 'utf8');
const sub = {
  ...{ tenantId, partnerId, partnerSubmissionId: 'ps', partnerSubjectId: 'subject' },
  ...{ correlationId: 'c', requestId: 'r', originalBody: body, normalisedBody: body },
  ...{ documentCount: 1, markerCount: 14 },
};
const origin = { actor: { type: 'api_key', keyId: randomUUID() }, requestId: 'r', correlationId: 'c' };
const accepted = [];
for (let i = 0; i < Number(values.backlog); i++) {
  const now = new Date();
  const [submissionId, jobId] = [randomUUID(), randomUUID()];
  const claim = { partnerId, keyHash: randomUUID(), requestHash: 'h', submissionId, jobId };
  const job = rows.firstJob({ jobId, submissionId }, sub, { slaSeconds: 300, maxAttempts: 5 }, now);
  const entry = { action: 'submission.created', resourceType: 'submission', resourceId: submissionId };
  accepted.push(
    driver.ingest({
      claim: rows.idempotencyRow(claim, 86_400_000, now),
      submission: rows.submissionRow(submissionId, sub, now, driver),
      job: rows.jobRow(job, now, null),
      audit: rows.auditRow(tenantId, entry, origin, now),
    }),
  );
}
await Promise.all(accepted);
await store.close();

const kinds = ['pipeline.ingest_validate', 'pipeline.score', 'pipeline.render_reports', 'webhook.deliver'];
const now = new Date().toISOString();
const named = { now, running: 'running', workerId: 'bench', lockedUntil: now, limit: 1 };
kinds.forEach((k, i) => {
  named[`type${i}`] = k;
});
const { Kysely, SqliteDialect } = await import('kysely');
const db = new Database(
  path.join(
    dir,
    fs.readdirSync(dir).find((f) => f.endsWith('.sqlite')),
  ),
);
const builder = new Kysely({ dialect: new SqliteDialect({ database: db }) });
const claimSql = (limit) =>
  builder
    .updateTable('jobs')
    .from(st.dueJobs(builder, kinds.length, limit).as('due'))
    .set(st.LEASE)
    .whereRef('jobs.id', '=', 'due.id')
    .returning(st.CLAIM_RETURNING)
    .compile();
const prepare = (compiled) => {
  const args = compiled.parameters.map((p) => (String(p).startsWith('\u0000slot:') ? named[p.slice(6)] : p));
  return { stmt: db.prepare(compiled.sql), args, times: [] };
};
const variants = {
  'LIMIT 1 (shipped)': prepare(claimSql(1)),
  'LIMIT ? (bound)': prepare(claimSql(undefined)),
};
for (let i = 0; i < Number(values.rounds); i++) {
  for (const v of Object.values(variants)) {
    db.exec('begin immediate');
    const t0 = performance.now();
    const claimed = v.stmt.all(v.args);
    v.times.push(performance.now() - t0);
    db.exec('rollback');
    if (claimed.length !== 1) throw new Error(`a claim took ${claimed.length} jobs`);
  }
}
console.log(`bench:claim  SQLite, one job claimed from ${values.backlog} due, ${values.rounds} rounds each`);
for (const [name, v] of Object.entries(variants)) {
  v.times.sort((a, b) => a - b);
  const at = (q) => (v.times[Math.floor(q * (v.times.length - 1))] * 1000).toFixed(0).padStart(5);
  console.log(`${name.padEnd(20)} median ${at(0.5)} µs   p10 ${at(0.1)} µs   p90 ${at(0.9)} µs`);
}
await builder.destroy();
fs.rmSync(dir, { recursive: true, force: true });
