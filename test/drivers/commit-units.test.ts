import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPanel, parseSubmission } from '../../src/domain/submission/index.js';
import { storeOnce } from '../../src/ingest/idempotency.js';
import { registerErasureJobs } from '../../src/lifecycle/erasure-job.js';
import { compareLedger } from '../../src/lifecycle/ledger-check.js';
import { InlineReportRenderer } from '../../src/pipeline/report-renderer.js';
import { registerPipelineJobs } from '../../src/pipeline/steps.js';
import { JobKinds } from '../../src/queue/kinds.js';
import { Cleaner } from '../../src/queue/maintenance/cleaner.js';
import { Rescuer } from '../../src/queue/maintenance/rescuer.js';
import type { NewJob } from '../../src/queue/types.js';
import { Worker } from '../../src/queue/worker.js';
import type { Committer, CommitUnit } from '../../src/store/commit-batcher.js';
import type { Database } from '../../src/store/database.js';
import type { Driver, IngestRows, IngestWrite } from '../../src/store/driver.js';
import { newId } from '../../src/store/ids.js';
import { Store } from '../../src/store/index.js';
import { LedgerBook, LedgerKeys } from '../../src/store/ledger/index.js';
import { openPostgresDriver } from '../../src/store/postgres/driver.js';
import type { IngestCommand } from '../../src/store/repositories/ingest.js';
import { openSqliteDriver } from '../../src/store/sqlite/driver.js';
import { WebhookAdmin } from '../../src/webhooks/admin.js';
import { EventResend } from '../../src/webhooks/events.js';
import { registerWebhookJobs, SecretBox } from '../../src/webhooks/index.js';
import { ManualClock } from '../helpers/clock.js';
import { createTestDatabase } from '../helpers/database.js';
import { tempDataDir } from '../helpers/dirs.js';
import { waitUntil } from '../helpers/pipeline.js';
import { TestReceiver } from '../helpers/receiver.js';
import { exampleBody } from '../helpers/service.js';

/**
 * The contract of a commit unit (`CommitUnit`, store/commit-batcher.ts): the group commit may run
 * it twice, in separate transactions, the first attempt rolled back. Here every kind of unit the
 * code submits runs twice on purpose, the first attempt in a transaction of its own that is
 * rolled back, the second for real, and a store where that happens must end up exactly like a
 * store where each ran once: after each step, the same rows (ids, times and sealed values
 * aside) and the same answers. The test also checks that every place in `src/` that submits a
 * unit was reached, so a new kind of unit cannot go untested.
 *
 * Ingest is written by the driver, outside the committer: on SQLite a broken submission is sent
 * in the same event-loop turn, so the writer thread's batch fails and is written again one
 * savepoint per unit; on PostgreSQL a unit that fails after it is queued on the ingest's lane,
 * behind it, and checks that it saw the ingest's claim.
 */

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.parse('2026-11-25T10:00:00.000Z');
const KEY = 'commit-units-test-secrets-key-0123456789';
const SCHEDULE_MS = [0, 0, 0];
const ORIGIN = { actor: { type: 'operator' as const }, requestId: 'req-operator' };
const READER = {
  actor: { type: 'api_key' as const, keyId: '00000000-0000-4000-8000-000000000009' },
  requestId: 'req-read',
};
const silent = pino({ level: 'silent' });
const SRC = path.resolve(import.meta.dirname, '../../src');

class FirstAttemptRolledBack extends Error {}

/** Where a unit was submitted from: the first frame in `src/` below the committer. */
function callSite(stack: string | undefined): string | undefined {
  for (const line of (stack ?? '').split('\n').slice(1)) {
    const m = /\((.*?):(\d+):\d+\)$|at (.*?):(\d+):\d+$/.exec(line.trim());
    const file = m?.[1] ?? m?.[3];
    const row = m?.[2] ?? m?.[4];
    if (!file || !row || !file.startsWith(SRC) || file.endsWith('commit-batcher.ts')) continue;
    return `${path.relative(SRC, file)}:${row}`;
  }
  return undefined;
}

/** Every place in `src/` that submits a commit unit, as `file:line`. */
function submitSites(): string[] {
  const sites: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && !full.endsWith('commit-batcher.ts')) {
        for (const [i, line] of fs.readFileSync(full, 'utf8').split('\n').entries()) {
          if (/\b(batcher|committer)\.submit\(/.test(line))
            sites.push(`${path.relative(SRC, full)}:${i + 1}`);
        }
      }
    }
  };
  walk(SRC);
  return sites.sort();
}

/**
 * The driver's committer, with every unit run once more before: in a transaction of its own
 * that is then rolled back, whatever the attempt did or threw. It counts the attempts of each
 * unit and notes where it was submitted from.
 */
class RunsEveryUnitTwice implements Committer {
  readonly units: Array<{ site: string | undefined; attempts: number }> = [];
  private firstAttempts: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly real: Committer,
  ) {}

  async submit<T>(unit: CommitUnit<T>, options?: { urgent?: boolean; lockKey?: string }): Promise<T> {
    const record = { site: callSite(new Error().stack), attempts: 0 };
    this.units.push(record);
    const counted: CommitUnit<T> = (trx) => {
      record.attempts += 1;
      return unit(trx);
    };
    // One first attempt at a time: two of them would only wait for each other's locks.
    const first = this.firstAttempts.then(() =>
      this.db
        .transaction()
        .execute(async (trx) => {
          await counted(trx);
          throw new FirstAttemptRolledBack();
        })
        .catch(() => {}),
    );
    this.firstAttempts = first;
    await first;
    return this.real.submit(counted, options);
  }

  drain(): Promise<void> {
    return this.real.drain();
  }
}

interface Subject {
  store: Store;
  clock: ManualClock;
  close(): Promise<void>;
}

type DriverName = 'sqlite' | 'postgres';

async function openDriver(name: DriverName): Promise<{ driver: Driver; drop(): Promise<void> }> {
  if (name === 'sqlite') return { driver: openSqliteDriver(tempDataDir()), drop: async () => {} };
  const database = await createTestDatabase();
  return { driver: openPostgresDriver(database.url, 4, silent), drop: () => database.drop() };
}

/** Ingest written twice by the driver itself: see the file's comment. */
function ingestTwice(driver: Driver, seen: Set<string>): (rows: IngestRows) => Promise<IngestWrite> {
  return (rows) => {
    const written = driver.ingest(rows);
    if (driver.name === 'sqlite') {
      // Same turn, same batch: its unknown account fails the thread's first transaction.
      const broken: IngestRows = {
        claim: { ...rows.claim, key_hash: `${rows.claim.key_hash}:broken`, submission_id: newId() },
        submission: { ...rows.submission, id: newId(), tenant_id: '00000000-0000-4000-8000-000000000000' },
        job: { ...rows.job, id: newId() },
        audit: { ...rows.audit, id: newId() },
      };
      driver.ingest(broken).catch(() => {});
    } else {
      driver.committer
        .submit(
          async (trx) => {
            const claim = await trx
              .selectFrom('idempotency_keys')
              .select('submission_id')
              .where('partner_id', '=', String(rows.claim.partner_id))
              .where('key_hash', '=', String(rows.claim.key_hash))
              .executeTakeFirst();
            if (claim?.submission_id === rows.claim.submission_id) seen.add(claim.submission_id);
            throw new Error('this unit fails its batch');
          },
          { urgent: true, lockKey: `${rows.claim.partner_id}:${rows.claim.key_hash}` },
        )
        .catch(() => {});
    }
    return written;
  };
}

async function openSubject(
  name: DriverName,
  twice?: { committers: RunsEveryUnitTwice[]; ingested: Set<string> },
): Promise<Subject> {
  const { driver, drop } = await openDriver(name);
  let used = driver;
  if (twice) {
    const committer = new RunsEveryUnitTwice(driver.db, driver.committer);
    twice.committers.push(committer);
    const ingest = ingestTwice(driver, twice.ingested);
    used = new Proxy(driver, {
      get: (target, prop) =>
        prop === 'committer' ? committer : prop === 'ingest' ? ingest : Reflect.get(target, prop),
    });
  }
  const clock = new ManualClock();
  clock.set(T0);
  const store = new Store(
    used,
    { slaSeconds: 300, maxAttempts: 3 },
    {
      clock: clock.date,
      logger: silent,
      sealer: () => new SecretBox(KEY),
      // Each store its own ledger, as each database has.
      ledgers: new LedgerBook(
        { file: path.join(tempDataDir(), 'erasure-ledger.jsonl'), dataDir: tempDataDir(), embedded: true },
        new LedgerKeys(() => Buffer.from(KEY)),
      ),
    },
  );
  await store.migrate();
  return {
    store,
    clock,
    close: async () => {
      await store.close();
      await drop();
    },
  };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})/g;
/**
 * Differ from store to store by nature: random ids and keys, sealed values, measured times, and
 * an event's listen position (on PostgreSQL its transaction's id, which a rolled-back first
 * attempt moves on).
 */
const UNCOMPARED = new Set(['id', 'latency_ms', 'byte_size', 'sha256', 'listen_position']);

function normalise(value: unknown): unknown {
  if (value instanceof Date) return 'time';
  if (value instanceof Uint8Array) return 'bytes';
  if (typeof value === 'string') return value.replace(UUID, 'uuid').replace(TIME, 'time');
  if (typeof value === 'object' && value !== null) return normalise(JSON.stringify(value));
  return value;
}

const TABLES = [
  'tenants',
  'partners',
  'submissions',
  'jobs',
  'job_attempts',
  'idempotency_keys',
  'results',
  'artifacts',
  'artifact_contents',
  'webhook_endpoints',
  'webhook_secrets',
  'webhook_events',
  'webhook_attempts',
  'erasures',
  'audit_events',
] as const;

/** Every table's rows, each reduced to what does not differ by nature, sorted. */
async function snapshot(store: Store): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of TABLES) {
    const rows = (await store.driver.db.selectFrom(table).selectAll().execute()) as Array<
      Record<string, unknown>
    >;
    out[table] = rows
      .map((row) =>
        JSON.stringify(
          Object.keys(row)
            .sort()
            .filter((column) => !UNCOMPARED.has(column) && !column.endsWith('_sealed'))
            .map((column) => [column, normalise(row[column])]),
        ),
      )
      .sort();
  }
  return out;
}

/** A real submission (the example) for the account, under its idempotency key. */
function command(tenantId: string, partnerId: string, key: string, subject: string): IngestCommand {
  const body: Record<string, unknown> = {
    ...exampleBody(),
    partnerId,
    partnerSubjectId: subject,
    partnerSubmissionId: `ps-${key}`,
  };
  const parsed = parseSubmission(body, { now: new Date(T0) });
  if (!parsed.ok) throw new Error('the example does not parse');
  const panel = checkPanel(parsed.value);
  if (!panel.ok) throw new Error('the example fails the panel checks');
  const originalBody = JSON.stringify(body);
  return {
    tenantId,
    partnerId,
    idempotencyKeyHash: key,
    keyId: READER.actor.keyId,
    requestHash: `hash-${key}`,
    correlationId: `corr-${key}`,
    requestId: `req-${key}`,
    partnerSubmissionId: `ps-${key}`,
    partnerSubjectId: subject,
    originalBody,
    normalisedBody: JSON.stringify(panel.value),
    documentCount: 0,
    markerCount: (body.markers as unknown[]).length,
  };
}

/** A job kind whose attempts wait until their worker stops: for the release at shutdown. */
const WAITS = 'test.waits_for_stop';

function kindsFor(store: Store, clock: ManualClock, waits = false): JobKinds {
  const kinds = new JobKinds();
  registerPipelineJobs(kinds, {
    store: store.system,
    renderer: new InlineReportRenderer(),
    maxAttempts: 3,
    clock: clock.date,
    webhookScheduleMs: SCHEDULE_MS,
  });
  registerWebhookJobs(kinds, {
    store: store.system,
    box: new SecretBox(KEY),
    config: {
      scheduleMs: SCHEDULE_MS,
      timeoutMs: 10_000,
      allowInsecure: true,
      disableAfterMs: 5 * 86_400_000,
    },
    clock: clock.date,
  });
  registerErasureJobs(kinds, { store: store.system, clock: clock.date });
  if (waits) {
    kinds.register(WAITS, {
      run: (_job, ctx) =>
        new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('stopped')))),
    });
  }
  return kinds;
}

function workerFor(store: Store, clock: ManualClock, waits = false): Worker {
  return new Worker({
    store: store.system,
    kinds: kindsFor(store, clock, waits),
    logger: silent,
    clock: clock.date,
    concurrency: 4,
    leaseMs: 600_000,
    pollMs: 50,
    retryBaseMs: 0,
    retryCapMs: 0,
    workerId: 'worker',
  });
}

/** Runs a worker until every job but the waiting kind's has finished. */
async function runJobs(store: Store, clock: ManualClock): Promise<void> {
  const worker = workerFor(store, clock);
  worker.start();
  await waitUntil(
    async () => {
      const left = await store.driver.db
        .selectFrom('jobs')
        .select('id')
        .where('status', 'not in', ['completed', 'failed'])
        .where('type', '<>', WAITS)
        .execute();
      return left.length === 0;
    },
    60_000,
    'every job finished',
  );
  await worker.stop();
}

interface Context {
  s: Subject;
  tenantId: string;
  partnerId: string;
  admin: WebhookAdmin;
}

const receiver = new TestReceiver();
let url: string;

/** The scenario, step by step; each step's answer is compared, normalised, with one run's. */
/** The event of a submission both stores have, by its reference (event ids derive from random result ids). */
function eventOf(store: Store, partnerSubmissionId: string): Promise<{ id: string }> {
  return store.driver.db
    .selectFrom('webhook_events')
    .innerJoin('results', 'results.id', 'webhook_events.result_id')
    .innerJoin('submissions', 'submissions.id', 'results.submission_id')
    .select('webhook_events.id')
    .where('submissions.partner_submission_id', '=', partnerSubmissionId)
    .executeTakeFirstOrThrow();
}

const steps: Array<[string, (c: Context) => Promise<unknown>]> = [
  [
    'ingest: three submissions created, a replay recorded and a mismatch refused',
    async ({ s, tenantId, partnerId }) => {
      // Through ingest's decision, as the door runs it: the replay's audit event is a unit of its own.
      const ledger = s.store.forTenant(tenantId).submissions;
      const once = (c: IngestCommand, body: unknown) => storeOnce(ledger, c, body);
      const bodyOf = (c: IngestCommand) => JSON.parse(c.originalBody) as unknown;
      const commands = ['a', 'b', 'c'].map((k) => command(tenantId, partnerId, `key-${k}`, `subject-${k}`));
      const created = await Promise.all(commands.map((c) => once(c, bodyOf(c))));
      const replayed = await once(commands[0]!, bodyOf(commands[0]!));
      const mismatch = await once({ ...commands[0]!, requestHash: 'other' }, { another: 'body' });
      return [...created, replayed, mismatch].map((o) => o.kind);
    },
  ],
  [
    'webhooks: a callback registered and its secret rotated',
    async ({ partnerId, admin }) => {
      const set = await admin.set(partnerId, url, {});
      const rotated = await admin.rotateSecret(partnerId, 60_000);
      return [set.url, set.mode, typeof set.signingSecret, rotated.activatesAt];
    },
  ],
  [
    'the worker: claims, completions of every step, a chained claim, a failed delivery attempt and its retry',
    async ({ s }) => {
      // The first delivery of one submission's event fails, whichever order they come in.
      let failed = false;
      receiver.replyTo = (body) => {
        if (failed || !body.toString().includes('"ps-key-a"')) return undefined;
        failed = true;
        return 503;
      };
      await runJobs(s.store, s.clock);
      receiver.replyTo = undefined;
      return failed;
    },
  ],
  [
    'reads audited and artifact bytes written back',
    async ({ s, tenantId }) => {
      const tenant = s.store.forTenant(tenantId);
      const db = s.store.driver.db;
      const a = await db
        .selectFrom('submissions')
        .select('id')
        .where('partner_submission_id', '=', 'ps-key-a')
        .executeTakeFirstOrThrow();
      const result = await db
        .selectFrom('results')
        .select('id')
        .where('submission_id', '=', a.id)
        .executeTakeFirstOrThrow();
      const pdf = await db
        .selectFrom('artifacts')
        .select('id')
        .where('submission_id', '=', a.id)
        .where('type', '=', 'pdf')
        .executeTakeFirstOrThrow();
      const read = await tenant.submissions.get(a.id, READER);
      await tenant.results.get(result.id, READER);
      await tenant.artifacts.downloaded(pdf.id, READER);
      await tenant.artifacts.restore(pdf.id, Buffer.from('restored'));
      return read?.status;
    },
  ],
  [
    'webhooks: a result redelivered, and delivered',
    async ({ s, admin }) => {
      const result = await s.store.driver.db
        .selectFrom('results')
        .innerJoin('submissions', 'submissions.id', 'results.submission_id')
        .select('results.id')
        .where('submissions.partner_submission_id', '=', 'ps-key-a')
        .executeTakeFirstOrThrow();
      const sent = await admin.redeliver(result.id);
      await runJobs(s.store, s.clock);
      return typeof sent.eventId;
    },
  ],
  [
    'webhooks: the endpoint shown, enabled, removed and registered again through the account',
    async ({ s, tenantId, partnerId, admin }) => {
      const shown = await admin.show(partnerId);
      const endpoint = s.store.forTenant(tenantId).webhookEndpoint;
      const enabled = await endpoint.enable(partnerId, READER, s.clock.date());
      const removed = await endpoint.remove(partnerId, READER, s.clock.date());
      const again = await admin.set(partnerId, url, {});
      return [shown.status, enabled, removed, again.url];
    },
  ],
  [
    'erasures: one of a subject with a submission, carried out, and one of a subject with none',
    async ({ s, tenantId }) => {
      const erasures = s.store.forTenant(tenantId).erasures;
      const some = await erasures.request('subject-b', READER);
      const none = await erasures.request('nobody', READER);
      await runJobs(s.store, s.clock);
      const done = await erasures.get(some.erasureId);
      // The ledger holds each entry once, and the database is at its end: no attempt left a gap.
      const ledger = await compareLedger(s.store.system.ledger);
      expect(ledger.kind).toBe('current');
      const entries = ledger.kind === 'broken' ? [] : ledger.entries;
      return [
        some.status,
        none.status,
        none.counts,
        done?.status,
        done?.counts,
        ledger.kind,
        entries.map((e) => e.kind),
      ];
    },
  ],
  [
    'events: one redelivered through the account, a failed window recovered, both read back',
    async ({ s, tenantId }) => {
      const tenant = s.store.forTenant(tenantId);
      const resend = new EventResend({
        clock: s.clock.date,
        scheduleMs: SCHEDULE_MS,
        attemptRetentionMs: 30 * DAY,
      });
      const event = await eventOf(s.store, 'ps-key-a');
      const sent = await resend.redeliver(tenant, event.id, READER);
      await runJobs(s.store, s.clock);
      await s.store.driver.db
        .updateTable('webhook_events')
        .set({ status: 'failed', failure_reason: 'attempts_exhausted' })
        .where('tenant_id', '=', tenantId)
        .execute();
      const started = await resend.recover(
        tenant,
        { since: new Date(s.clock.date().getTime() - DAY) },
        READER,
      );
      await runJobs(s.store, s.clock);
      const recovery = started.ok ? await tenant.recoveries.get(started.recoveryId, READER) : undefined;
      const page = await tenant.events.list({ limit: 10 }, READER);
      return [sent.ok, started.ok && started.eventCount, recovery?.byStatus, page.items.length];
    },
  ],
  [
    'listen: an answer reported twice under one delivery id, read back as one attempt',
    async ({ s, tenantId }) => {
      const tenant = s.store.forTenant(tenantId);
      const event = await eventOf(s.store, 'ps-key-a');
      const answer = {
        eventId: event.id,
        deliveryId: '2d0f8e9a-6a4b-4b8e-9d1c-3f5e7a9b1c2d',
        url: 'http://localhost:3000/webhooks',
        statusCode: 200,
        errorClass: null,
        latencyMs: 12,
        responseText: 'ok',
        startedAt: s.clock.date(),
      };
      const first = await tenant.listen.recordAnswer(answer);
      const again = await tenant.listen.recordAnswer(answer);
      const detail = await tenant.events.get(event.id, READER);
      return [first, again, detail?.attempts.filter((a) => a.kind === 'listen').length];
    },
  ],
  [
    'the worker at shutdown: a running job handed back',
    async ({ s, tenantId }) => {
      const { jobs, batcher } = s.store.system;
      const job: NewJob = {
        type: WAITS,
        tenantId,
        submissionId: null,
        correlationId: null,
        requestId: null,
        acceptedAt: s.clock.date().toISOString(),
        slaDeadlineAt: null,
        maxAttempts: 3,
      };
      await batcher.submit((trx) => jobs.enqueue(trx, job, s.clock.date()));
      const worker = workerFor(s.store, s.clock, true);
      worker.start();
      await waitUntil(
        async () =>
          (
            await s.store.driver.db
              .selectFrom('jobs')
              .select('status')
              .where('type', '=', WAITS)
              .executeTakeFirstOrThrow()
          ).status === 'running',
        30_000,
        'the job running',
      );
      await worker.stop(0);
      return 'stopped';
    },
  ],
  [
    'the rescuer: expired leases settled, one retried, one failed for good with its step’s writes',
    async ({ s, tenantId }) => {
      const { jobs, batcher } = s.store.system;
      const event = await s.store.driver.db
        .selectFrom('webhook_events')
        .innerJoin('results', 'results.id', 'webhook_events.result_id')
        .innerJoin('submissions', 'submissions.id', 'results.submission_id')
        .select('webhook_events.id')
        .where('submissions.partner_submission_id', '=', 'ps-key-c')
        .executeTakeFirstOrThrow();
      const delivery = (maxAttempts: number): NewJob => ({
        type: 'webhook.deliver',
        tenantId,
        submissionId: null,
        payload: { eventId: event.id },
        correlationId: null,
        requestId: null,
        acceptedAt: s.clock.date().toISOString(),
        slaDeadlineAt: null,
        maxAttempts,
      });
      await batcher.submit(async (trx) => {
        await jobs.enqueue(trx, delivery(1), s.clock.date());
        await jobs.enqueue(trx, delivery(3), s.clock.date());
      });
      await batcher.submit((trx) =>
        jobs.claim(trx, 'dead-worker', ['webhook.deliver'], 2, 1000, s.clock.date()),
      );
      s.clock.advance(2000);
      const rescuer = new Rescuer({
        store: s.store.system,
        kinds: kindsFor(s.store, s.clock),
        logger: silent,
        clock: s.clock.date,
      });
      return rescuer.runOnce();
    },
  ],
  [
    'the cleaner: finished jobs, expired keys and old audit events deleted, submissions past retention erased',
    async ({ s }) => {
      await runJobs(s.store, s.clock);
      s.clock.advance(8 * DAY);
      const cleaner = new Cleaner({
        store: s.store.system,
        clock: s.clock.date,
        batchSize: 2,
        retentionDays: 1,
        auditRetentionDays: 1,
        erasureBudgetMs: 60_000,
      });
      return cleaner.runOnce();
    },
  ],
];

beforeAll(async () => {
  url = await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
});

describe.each(['sqlite', 'postgres'] as const)('every kind of commit unit on %s', (name) => {
  const twice = { committers: [] as RunsEveryUnitTwice[], ingested: new Set<string>() };
  const contexts: Context[] = [];

  beforeAll(async () => {
    for (const s of [await openSubject(name), await openSubject(name, twice)]) {
      const tenantId = (await s.store.system.accounts.createTenant('T')).tenantId;
      const partnerId = (await s.store.system.accounts.createPartner(tenantId, 'P')).partnerId;
      const admin = new WebhookAdmin(s.store.system, new SecretBox(KEY), {
        allowInsecure: true,
        scheduleMs: SCHEDULE_MS,
        clock: s.clock.date,
        origin: ORIGIN,
        tenants: s.store,
      });
      contexts.push({ s, tenantId, partnerId, admin });
    }
  });
  afterAll(async () => {
    for (const c of contexts) await c.s.close();
  });

  it.each(steps)(
    'run twice, the first attempt rolled back, leaves what one run leaves: %s',
    async (_, step) => {
      const [once, twiceRun] = contexts as [Context, Context];
      const answerOnce = normalise(await step(once));
      const answerTwice = normalise(await step(twiceRun));
      expect(answerTwice).toEqual(answerOnce);
      expect(await snapshot(twiceRun.s.store)).toEqual(await snapshot(once.s.store));
    },
  );

  it('ran every unit twice, from every place in src/ that submits one', () => {
    const units = twice.committers.flatMap((c) => c.units);
    expect(units.length).toBeGreaterThan(0);
    expect(units.filter((u) => u.attempts !== 2)).toEqual([]);
    const reached = new Set(units.map((u) => u.site));
    // PostgreSQL's ingest is its driver's own unit: reached when its failing neighbour saw it.
    const driverIngest = submitSites().filter((site) => site.startsWith('store/postgres/'));
    if (name === 'postgres' && twice.ingested.size === 3) for (const site of driverIngest) reached.add(site);
    const expected = submitSites().filter(
      (site) => name === 'postgres' || !site.startsWith('store/postgres/'),
    );
    expect(expected.filter((site) => !reached.has(site))).toEqual([]);
  });
});
