import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { Driver } from '../../src/store/driver.js';
import { Store } from '../../src/store/index.js';
import { MAINTENANCE_LOCK_KEYS } from '../../src/store/locks.js';
import { openPostgresDriver } from '../../src/store/postgres/driver.js';
import { operatorOrigin } from '../../src/store/repositories/accounts.js';
import {
  auditRow,
  firstJob,
  idempotencyRow,
  jobRow,
  pendingArtifactRow,
  resultRow,
  type SubmissionValues,
  submissionRow,
} from '../../src/store/rows.js';
import { openSqliteDriver } from '../../src/store/sqlite/driver.js';
import { createTestDatabase } from '../helpers/database.js';
import { tempDataDir } from '../helpers/dirs.js';

/**
 * The same cases against both drivers (River's `riverdrivertest`): what each driver writes reads
 * back column for column as `rows.ts` built it, and each operation whose SQL differs per database
 * behaves the same. A change to a job or submission column that one driver misses fails here,
 * without the full two-store run.
 */

interface Subject {
  driver: Driver;
  store: Store;
  close(): Promise<void>;
}

const silent = pino({ level: 'silent' });
const T0 = new Date('2026-11-25T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const subjects: Record<'sqlite' | 'postgres', () => Promise<Subject>> = {
  async sqlite() {
    const driver = openSqliteDriver(tempDataDir());
    const store = new Store(
      driver,
      { slaSeconds: 300, maxAttempts: 5 },
      { clock: systemClock, logger: silent },
    );
    return { driver, store, close: () => store.close() };
  },
  async postgres() {
    const database = await createTestDatabase();
    const driver = openPostgresDriver(database.url, 4, silent);
    const store = new Store(
      driver,
      { slaSeconds: 300, maxAttempts: 5 },
      { clock: systemClock, logger: silent },
    );
    return {
      driver,
      store,
      close: async () => {
        await store.close();
        await database.drop();
      },
    };
  },
};

describe.each(['sqlite', 'postgres'] as const)('the %s driver', (name) => {
  let s: Subject;
  let tenantId: string;
  let partnerId: string;
  let values: SubmissionValues;

  beforeAll(async () => {
    s = await subjects[name]();
    expect(s.driver.name).toBe(name);
    await s.store.migrate();
    tenantId = (await s.store.system.accounts.createTenant('T')).tenantId;
    partnerId = (await s.store.system.accounts.createPartner(tenantId, 'P')).partnerId;
    values = {
      tenantId,
      partnerId,
      partnerSubmissionId: 'ps-1',
      partnerSubjectId: 'subject-1',
      correlationId: 'corr-1',
      requestId: 'req-1',
      originalBody: '{"a": 1}',
      normalisedBody: '{"a":1}',
      documentCount: 1,
      markerCount: 14,
    };
  });
  afterAll(async () => {
    await s?.close();
  });

  const row = (
    table: 'jobs' | 'submissions' | 'idempotency_keys' | 'results' | 'artifacts' | 'audit_events',
    where: string,
  ) =>
    s.driver.db
      .selectFrom(table)
      .selectAll()
      .where(sql.ref(table === 'idempotency_keys' ? 'submission_id' : 'id'), '=', where)
      .executeTakeFirstOrThrow();

  const created = (submissionId: string, now: Date) =>
    auditRow(
      tenantId,
      { action: 'submission.created', resourceType: 'submission', resourceId: submissionId },
      { actor: { type: 'api_key', keyId: uuid(9) }, requestId: 'req-1', correlationId: 'corr-1' },
      now,
    );
  const auditOf = (submissionId: string) =>
    s.driver.db.selectFrom('audit_events').selectAll().where('resource_id', '=', submissionId).execute();

  it('writes an accepted submission, its first job, its key and its audit event column for column, once per key', async () => {
    const submissionId = uuid(1);
    const jobId = uuid(2);
    const claim = idempotencyRow(
      { partnerId, keyHash: 'key-1', requestHash: 'hash-1', submissionId, jobId },
      86_400_000,
      T0,
    );
    const rows = {
      claim,
      submission: submissionRow(submissionId, values, T0, s.driver),
      job: jobRow(
        firstJob({ jobId, submissionId }, values, { slaSeconds: 300, maxAttempts: 5 }, T0),
        T0,
        null,
      ),
      audit: created(submissionId, T0),
    };
    expect(await s.driver.ingest(rows)).toEqual({ created: true });
    expect(await row('submissions', submissionId)).toEqual(rows.submission);
    expect(await row('jobs', jobId)).toEqual(rows.job);
    expect(await row('idempotency_keys', submissionId)).toEqual(claim);
    expect(await auditOf(submissionId)).toEqual([rows.audit]);

    // The same key again, within its 24 hours: nothing written; the claim it lost to, if read.
    const again = {
      claim: { ...claim, submission_id: uuid(3), job_id: uuid(4), created_at: at(1000).toISOString() },
      submission: submissionRow(uuid(3), values, at(1000), s.driver),
      job: jobRow(
        firstJob(
          { jobId: uuid(4), submissionId: uuid(3) },
          values,
          { slaSeconds: 300, maxAttempts: 5 },
          at(1000),
        ),
        at(1000),
        null,
      ),
      audit: created(uuid(3), at(1000)),
    };
    const lost = await s.driver.ingest(again);
    expect(lost.created).toBe(false);
    if (!lost.created && lost.prior) {
      expect(lost.prior).toMatchObject({ submission_id: submissionId, job_id: jobId, original_body: null });
      expect(Boolean(lost.prior.same_request)).toBe(true);
    }
    expect(
      await s.driver.db.selectFrom('submissions').select('id').where('id', '=', uuid(3)).executeTakeFirst(),
    ).toBeUndefined();
    expect(await auditOf(uuid(3))).toEqual([]);

    // After the key expired, a new claim takes it over.
    const later = at(86_400_000);
    const takeover = {
      claim: {
        ...again.claim,
        created_at: later.toISOString(),
        expires_at: at(2 * 86_400_000).toISOString(),
      },
      submission: submissionRow(uuid(3), values, later, s.driver),
      job: jobRow(
        firstJob(
          { jobId: uuid(4), submissionId: uuid(3) },
          values,
          { slaSeconds: 300, maxAttempts: 5 },
          later,
        ),
        later,
        null,
      ),
      audit: created(uuid(3), later),
    };
    expect(await s.driver.ingest(takeover)).toEqual({ created: true });
    expect(await row('submissions', uuid(3))).toEqual(takeover.submission);
    expect(await auditOf(uuid(3))).toEqual([takeover.audit]);
  });

  it('claims due jobs of the kinds asked for, oldest due first, and extends only leases still held', async () => {
    const job = (n: number, type: string, runAt: Date) =>
      jobRow(
        {
          id: uuid(100 + n),
          type,
          tenantId,
          submissionId: null,
          payload: { eventId: `event-${n}` },
          correlationId: null,
          requestId: null,
          acceptedAt: T0.toISOString(),
          slaDeadlineAt: null,
          maxAttempts: 3,
          runAt: runAt.toISOString(),
        },
        T0,
        null,
      );
    const jobs = [
      job(1, 'kind.a', at(2)),
      job(2, 'kind.a', at(1)),
      job(3, 'kind.b', at(0)),
      job(4, 'kind.a', at(60_000)),
    ];
    for (const j of jobs) {
      await s.store.system.jobs.enqueue(
        s.driver.db,
        {
          id: String(j.id),
          type: String(j.type),
          tenantId,
          submissionId: null,
          payload: JSON.parse(String(j.payload)) as Record<string, unknown>,
          correlationId: null,
          requestId: null,
          acceptedAt: T0.toISOString(),
          slaDeadlineAt: null,
          maxAttempts: 3,
          runAt: String(j.run_at),
        },
        T0,
      );
      expect(await row('jobs', String(j.id))).toEqual(j);
    }
    const claim = (limit: number, types: string[]) =>
      s.store.system.batcher.submit((trx) =>
        s.store.system.jobs.claim(trx, 'worker-1', types, limit, 30_000, at(10)),
      );
    const [first] = await claim(1, ['kind.a']);
    expect(first).toMatchObject({
      id: uuid(102),
      type: 'kind.a',
      attempt: 1,
      lockedBy: 'worker-1',
      payload: { eventId: 'event-2' },
    });
    expect(await row('jobs', uuid(102))).toMatchObject({
      status: 'running',
      attempts: 1,
      locked_by: 'worker-1',
      locked_until: at(30_010).toISOString(),
      started_at: at(10).toISOString(),
    });
    // The job due later and the other kind stay; the next due one of the kind is taken.
    expect((await claim(10, ['kind.a'])).map((j) => j.id)).toEqual([uuid(101)]);
    expect(await claim(10, ['kind.a'])).toEqual([]);

    const held = await s.driver.extendLeases(
      'worker-1',
      [uuid(101), uuid(102), uuid(103)],
      at(90_000).toISOString(),
    );
    expect(held.sort()).toEqual([uuid(101), uuid(102)]);
    expect(await row('jobs', uuid(101))).toMatchObject({ locked_until: at(90_000).toISOString() });
    expect(await s.driver.extendLeases('worker-2', [uuid(101)], at(99_000).toISOString())).toEqual([]);

    // A waiting job is found by a field of its payload.
    expect(await s.store.system.jobs.findWaiting(s.driver.db, 'kind.b', 'eventId', 'event-3')).toBe(
      uuid(103),
    );
    expect(
      await s.store.system.jobs.findWaiting(s.driver.db, 'kind.a', 'eventId', 'event-2'),
    ).toBeUndefined();
  });

  // Uses the submissions the first case accepted (uuid 1 and 3).
  it('completes a job its worker holds and writes its claimed successor and start status, or nothing once the lease is lost', async () => {
    const jobs = s.store.system.jobs;
    const submissionId = uuid(1);
    const newJob = (n: number, type: string) => ({
      id: uuid(300 + n),
      type,
      tenantId,
      submissionId,
      payload: { step: n },
      correlationId: 'corr-1',
      requestId: null,
      acceptedAt: T0.toISOString(),
      slaDeadlineAt: null,
      maxAttempts: 3,
    });
    const statusOf = async (id: string) => (await row('submissions', id)).status;
    await jobs.enqueue(s.driver.db, newJob(1, 'chain.first'), T0);
    const [first] = await s.store.system.batcher.submit((trx) =>
      jobs.claim(trx, 'worker-1', ['chain.first'], 1, 30_000, at(10)),
    );
    if (!first) throw new Error('the first job was not claimed');
    const before = await statusOf(submissionId);

    // Another worker's idea of the job (its lease ran out and was taken over) changes nothing.
    const stale = { ...first, lockedBy: 'worker-0' };
    const lease = { workerId: 'worker-1', leaseMs: 30_000 };
    const second = { ...newJob(2, 'chain.second'), startStatus: 'processing' };
    const lost = await s.store.system.batcher.submit((trx) =>
      jobs.completeAndChain(trx, stale, at(20), second, lease),
    );
    expect(lost).toBeUndefined();
    expect(await row('jobs', uuid(301))).toMatchObject({ status: 'running', locked_by: 'worker-1' });
    expect(
      await s.driver.db.selectFrom('jobs').select('id').where('id', '=', uuid(302)).executeTakeFirst(),
    ).toBeUndefined();
    expect(await statusOf(submissionId)).toBe(before);

    const next = await s.store.system.batcher.submit((trx) =>
      jobs.completeAndChain(trx, first, at(30), second, lease),
    );
    expect(next).toMatchObject({ id: uuid(302), type: 'chain.second', attempt: 1, lockedBy: 'worker-1' });
    expect(await row('jobs', uuid(301))).toMatchObject({
      status: 'completed',
      completed_at: at(30).toISOString(),
      locked_by: null,
      locked_until: null,
    });
    expect(await row('jobs', uuid(302))).toEqual(jobRow(newJob(2, 'chain.second'), at(30), lease));
    expect(await row('submissions', submissionId)).toMatchObject({
      status: 'processing',
      updated_at: at(30).toISOString(),
    });

    // Completed without a successor, with the submission's end status; not once the lease is lost.
    const [last] = await s.store.system.batcher.submit((trx) =>
      jobs.claim(trx, 'worker-1', ['chain.second'], 1, 30_000, at(40)),
    );
    expect(last).toBeUndefined(); // chained already running: not claimable again
    const ended = (owner: string) =>
      s.store.system.batcher.submit((trx) =>
        jobs.complete(trx, { ...(next as NonNullable<typeof next>), lockedBy: owner }, at(50), 'completed'),
      );
    expect(await ended('worker-0')).toBe(false);
    expect(await statusOf(submissionId)).toBe('processing');
    expect(await ended('worker-1')).toBe(true);
    expect(await row('jobs', uuid(302))).toMatchObject({
      status: 'completed',
      completed_at: at(50).toISOString(),
    });
    expect(await row('submissions', submissionId)).toMatchObject({
      status: 'completed',
      updated_at: at(50).toISOString(),
    });

    // A claim's start statuses: one statement for every submission that takes the same one.
    await s.store.system.batcher.submit((trx) =>
      jobs.setStatuses(trx, new Map([['validating', [uuid(1), uuid(3)]]]), at(60)),
    );
    for (const id of [uuid(1), uuid(3)]) {
      expect(await row('submissions', id)).toMatchObject({
        status: 'validating',
        updated_at: at(60).toISOString(),
      });
    }
  });

  it('writes a result with its pending artifacts once, and stores artifacts with their bytes', async () => {
    const submissionId = uuid(1);
    const result = resultRow(
      { id: uuid(200), tenantId, submissionId, bundleJson: '{"outcomes":[]}' },
      T0,
      s.driver,
    );
    const artifacts = ['json', 'pdf'].map((type) => pendingArtifactRow(result, type));
    expect(await s.driver.createResult(s.driver.db, result, artifacts)).toBe(true);
    expect(await row('results', uuid(200))).toEqual(result);
    for (const a of artifacts) expect(await row('artifacts', String(a.id))).toEqual(a);
    // A re-run writes nothing.
    const rerun = resultRow({ id: uuid(201), tenantId, submissionId, bundleJson: '{}' }, at(5), s.driver);
    expect(await s.driver.createResult(s.driver.db, rerun, [pendingArtifactRow(rerun, 'html')])).toBe(false);
    expect(
      await s.driver.db.selectFrom('artifacts').select('id').where('result_id', '=', uuid(201)).execute(),
    ).toEqual([]);

    const available = artifacts.map((a, i) => ({
      artifactId: String(a.id),
      body: Buffer.from(`bytes of ${i}`),
      byteSize: 10 + i,
      contentType: `type/${i}`,
      fileName: `file-${i}`,
      sha256: `sha-${i}`,
    }));
    await s.driver.storeArtifacts(s.driver.db, uuid(200), available, at(7).toISOString(), true);
    for (const a of available) {
      expect(await s.store.system.artifacts.get(a.artifactId)).toEqual(a.body);
      expect(await row('artifacts', a.artifactId)).toMatchObject({
        availability: 'available',
        byte_size: a.byteSize,
        content_type: a.contentType,
        file_name: a.fileName,
        sha256: a.sha256,
        generated_at: at(7).toISOString(),
      });
    }
    expect(await row('results', uuid(200))).toMatchObject({ updated_at: at(7).toISOString() });
  });

  it('stores booleans its own way and reads them back as booleans', async () => {
    const tenant = await s.store.system.accounts.setTenantActive(tenantId, false, operatorOrigin('test'));
    expect(tenant.active).toBe(false);
    expect((await s.store.system.accounts.getTenant(tenantId))?.active).toBe(false);
    await s.store.system.accounts.setTenantActive(tenantId, true, operatorOrigin('test'));
    expect((await s.store.system.accounts.getTenant(tenantId))?.active).toBe(true);
  });

  it('gives one maintenance lock to one transaction at a time', async () => {
    const key = MAINTENANCE_LOCK_KEYS.cleaner;
    if (name === 'sqlite') {
      // One writer connection: passes are serialised by the connection itself.
      expect(await s.driver.db.transaction().execute((trx) => s.driver.tryExclusive(trx, key))).toBe(true);
      return;
    }
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    let taken!: () => void;
    const holding = new Promise<void>((r) => {
      taken = r;
    });
    const first = s.driver.db.transaction().execute(async (trx) => {
      expect(await s.driver.tryExclusive(trx, key)).toBe(true);
      taken();
      await released;
    });
    await holding;
    expect(await s.driver.db.transaction().execute((trx) => s.driver.tryExclusive(trx, key))).toBe(false);
    release();
    await first;
    expect(await s.driver.db.transaction().execute((trx) => s.driver.tryExclusive(trx, key))).toBe(true);
  });

  it('runs work under the migration lock and answers consistent reads', async () => {
    expect(await s.driver.withMigrationLock(async () => 'migrated')).toBe('migrated');
    expect(
      await s.driver.readConsistent(async (db) =>
        Number(
          (
            await db
              .selectFrom('tenants')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        ),
      ),
    ).toBe(1);
  });
});
