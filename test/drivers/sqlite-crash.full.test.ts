import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import readline from 'node:readline';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { Store } from '../../src/store/index.js';
import { sqliteFile } from '../../src/store/sqlite/driver.js';
import { tempDataDir } from '../helpers/dirs.js';
import { waitUntil } from '../helpers/pipeline.js';
import { cli, type ServiceProcess, serveProcess, stopProcess } from '../helpers/processes.js';
import { exampleBody } from '../helpers/service.js';
import { ingestCommand } from '../helpers/store.js';

/**
 * The SQLite store's durability argument (src/store/sqlite/README.md), with real processes on
 * real files: what a process killed at a given moment leaves behind, and how another process's
 * lock is waited for. The processes run the build (`npm run build` first).
 */

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures');

const children: ChildProcess[] = [];
const services: ServiceProcess[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await stopProcess(s);
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const s of stores.splice(0)) await s.close();
});

function openStore(dataDir: string): Store {
  const store = Store.open(
    { dataDir, databaseUrl: undefined, slaSeconds: 300, jobMaxAttempts: 5 },
    { clock: systemClock, logger: createLogger('silent') },
  );
  stores.push(store);
  return store;
}

/** A fixture as a child process, and the JSON lines it writes. */
function fixture(name: string, env: Record<string, string>): { child: ChildProcess; lines: object[] } {
  const child = spawn(process.execPath, [path.join(FIXTURES, name)], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines: object[] = [];
  readline
    .createInterface({ input: child.stdout! })
    .on('line', (line) => lines.push(JSON.parse(line) as object));
  return { child, lines };
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

interface Request {
  key: string;
  body: string;
  /** Set once a whole answer came back; never for a request the kill cut off. */
  status?: number;
  submissionId?: string;
}

describe('SQLite durability: nothing acknowledged is lost', () => {
  it('a process killed under load loses no acknowledged submission or read, and leaves no submission half-written', async () => {
    const dataDir = tempDataDir();
    const env = { DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '0' };
    const account = (await cli(env, ['quickstart'])) as { apiKey: string; partnerId: string };
    const api = await serveProcess('api', env);
    services.push(api);

    const requests: Request[] = [];
    const reads: string[] = [];
    const post = (r: Request, url = api.url) =>
      fetch(`${url}/v1/submissions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': account.apiKey,
          'idempotency-key': r.key,
          'x-correlation-id': r.key,
        },
        body: r.body,
      });
    let killed = false;
    // Each client submits, then reads what it was told was accepted: the ingest commits on the
    // writer thread, the read's audit event on the event loop's connection (which asks the
    // thread for checkpoints), so the kill finds the process at any of the moments.
    const client = async () => {
      while (!killed) {
        const key = randomUUID();
        const body = JSON.stringify({
          ...exampleBody(),
          partnerId: account.partnerId,
          partnerSubmissionId: key,
        });
        const r: Request = { key, body };
        requests.push(r);
        try {
          const res = await post(r);
          const json = (await res.json()) as { submissionId?: string };
          r.status = res.status;
          r.submissionId = json.submissionId;
          if (res.status !== 202 || !json.submissionId) continue;
          const requestId = `read-${key}`;
          const read = await fetch(`${api.url}/v1/submissions/${json.submissionId}`, {
            headers: { 'x-api-key': account.apiKey, 'x-request-id': requestId },
          });
          await read.arrayBuffer();
          if (read.status === 200) reads.push(requestId);
        } catch {
          // Cut off by the kill: neither answer came back.
        }
      }
    };
    const clients = Array.from({ length: 8 }, client);
    await waitUntil(
      async () => requests.filter((r) => r.status === 202).length >= 100 && reads.length >= 30,
      60_000,
      'acknowledged submissions and reads',
    );
    killed = true;
    api.child.kill('SIGKILL');
    await exited(api.child);
    await Promise.all(clients);

    const accepted = requests.filter((r) => r.status === 202);
    const ids = accepted.map((r) => r.submissionId!);
    const unanswered = requests.filter((r) => r.status === undefined);
    // Opening the file replays its log, as the next process does.
    const db = new SqliteDatabase(sqliteFile(dataDir));
    const count = (query: string, ...values: unknown[]) =>
      (db.prepare(`select count(*) as n from ${query}`).get(...values) as { n: number }).n;
    const among = (list: string[]) => JSON.stringify(list);
    const listed = 'in (select value from json_each(?))';
    try {
      // Every acknowledged submission with its job, its key and its audit event.
      expect(count(`submissions where id ${listed}`, among(ids))).toBe(ids.length);
      expect(count(`jobs where submission_id ${listed}`, among(ids))).toBe(ids.length);
      expect(count(`idempotency_keys where submission_id ${listed}`, among(ids))).toBe(ids.length);
      expect(
        count(`audit_events where action = 'submission.created' and resource_id ${listed}`, among(ids)),
      ).toBe(ids.length);
      // Every answered read with the audit event it committed before answering.
      expect(
        count(`audit_events where action = 'submission.read' and request_id ${listed}`, among(reads)),
      ).toBe(reads.length);
      // What the kill cut off is there whole or not at all: as many keys, jobs and events as
      // submissions.
      const submissions = count('submissions');
      expect(submissions).toBeGreaterThanOrEqual(ids.length);
      expect(submissions).toBeLessThanOrEqual(ids.length + unanswered.length);
      expect(count('idempotency_keys')).toBe(submissions);
      expect(count('jobs')).toBe(submissions);
      expect(count(`audit_events where action = 'submission.created'`)).toBe(submissions);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }

    // The next process: each request the kill cut off, sent again with its key, is accepted
    // (written now, or replayed if it had been committed), never refused as a mismatch.
    const again = await serveProcess('api', env);
    services.push(again);
    for (const r of unanswered) {
      const res = await post(r, again.url);
      expect(res.status, `request ${r.key}`).toBe(202);
      await res.arrayBuffer();
    }
    const replay = await post(accepted[0]!, again.url);
    expect(((await replay.json()) as { submissionId: string }).submissionId).toBe(accepted[0]!.submissionId);
  });

  it('a commit on the event loop’s connection is answered only after its fdatasync; a process killed between the two told no one, and the commit survives it', async () => {
    const dataDir = tempDataDir();
    const { child, lines } = fixture('held-log-flush.mjs', { DATA_DIR: dataDir });
    await waitUntil(
      async () => lines.some((l) => 'flushAskedFor' in l),
      30_000,
      'the flush of the committed write',
    );
    child.kill('SIGKILL');
    await exited(child);
    expect(lines.some((l) => 'answered' in l)).toBe(false);

    // A process crash keeps what was written to the log: the operating system holds it. Only a
    // power loss before the flush could take it, and then nobody had been told it was written.
    const db = new SqliteDatabase(sqliteFile(dataDir));
    try {
      const held = db
        .prepare(`select action from audit_events where request_id = 'committed-not-flushed'`)
        .all();
      expect(held).toEqual([{ action: 'submission.read' }]);
    } finally {
      db.close();
    }
  });
});

describe('SQLite write turns: another process’s lock', () => {
  it('is waited for on a timer by the event loop’s connection and in SQLite’s busy handler by the writer thread, the event loop running meanwhile', async () => {
    const dataDir = tempDataDir();
    const store = openStore(dataDir);
    await store.migrate();
    const tenantId = (await store.system.accounts.createTenant('T')).tenantId;
    const partnerId = (await store.system.accounts.createPartner(tenantId, 'P')).partnerId;
    const holder = fixture('holds-write-lock.mjs', { DATA_DIR: dataDir });
    await waitUntil(async () => holder.lines.some((l) => 'locked' in l), 30_000, 'the other process’s lock');

    const settled: string[] = [];
    const write = store.system.batcher
      .submit((trx) =>
        store.system.audit.record(
          trx,
          tenantId,
          { action: 'submission.read', resourceType: 'submission', resourceId: 'waited' },
          { actor: { type: 'operator' }, requestId: 'waited-for-the-lock' },
          new Date(),
        ),
      )
      .finally(() => settled.push('event loop'));
    const ingest = store.system.ingest
      .ingest(ingestCommand({ tenantId, partnerId }, { idempotencyKeyHash: 'waited' }))
      .finally(() => settled.push('writer thread'));
    // Timers keep firing while both wait: nothing waits on the event loop.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      await waitUntil(async () => ticks >= 20, 30_000, 'the event loop to run');
    } finally {
      clearInterval(timer);
    }
    expect(settled).toEqual([]);

    holder.child.stdin!.write('release\n');
    await write;
    expect((await ingest).kind).toBe('created');
    const written = await store.driver.db
      .selectFrom('audit_events')
      .select('action')
      .where('request_id', 'in', ['waited-for-the-lock', 'r'])
      .execute();
    expect(written.map((r) => r.action).sort()).toEqual(['submission.created', 'submission.read']);
  });
});
