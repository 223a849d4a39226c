import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { logContext } from '../../src/context.js';
import { JobKinds } from '../../src/queue/kinds.js';
import { Cleaner } from '../../src/queue/maintenance/cleaner.js';
import { Rescuer } from '../../src/queue/maintenance/rescuer.js';
import { Maintenance, type MaintenanceService } from '../../src/queue/maintenance/service.js';
import type { ClaimedJob, JobDefinition, NewJob } from '../../src/queue/types.js';
import type { Store } from '../../src/store/index.js';
import { ManualClock } from '../helpers/clock.js';
import { waitUntil } from '../helpers/pipeline.js';
import { ingestCommand, openTestStore } from '../helpers/store.js';

/** The maintenance services on the store under test, each pass run by hand on an injected clock. */

const DAY = 24 * 60 * 60 * 1000;
let store: Store;
let tenantId: string;
let partnerId: string;

beforeEach(async () => {
  store = await openTestStore({ jobMaxAttempts: 2 });
  tenantId = (await store.system.accounts.createTenant('T')).tenantId;
  partnerId = (await store.system.accounts.createPartner(tenantId, 'P')).partnerId;
});
afterEach(async () => {
  await store.close();
});

function newJob(clock: ManualClock, maxAttempts = 2): NewJob {
  return {
    type: 'kind.test',
    tenantId,
    submissionId: null,
    correlationId: 'c',
    requestId: 'r',
    acceptedAt: clock.date().toISOString(),
    slaDeadlineAt: null,
    maxAttempts,
  };
}

/** A logger whose lines the test reads. */
function capturedLogger() {
  const lines: string[] = [];
  // With the service's mixin: a line carries the ids of the work it is written in.
  const logger = pino(
    { level: 'info', mixin: logContext },
    new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    }),
  );
  return { lines, logger };
}

const jobStatuses = async () =>
  (await store.driver.db.selectFrom('jobs').select('status').orderBy('id').execute()).map((r) => r.status);

/** Enqueues a job and claims it as `worker` on `clock` with a lease of `leaseMs`. */
async function claimed(
  clock: ManualClock,
  worker: string,
  leaseMs: number,
  maxAttempts = 2,
): Promise<ClaimedJob> {
  const { jobs, batcher } = store.system;
  await batcher.submit((trx) => jobs.enqueue(trx, newJob(clock, maxAttempts), clock.date()));
  const [job] = await batcher.submit((trx) =>
    jobs.claim(trx, worker, ['kind.test'], 1, leaseMs, clock.date()),
  );
  if (!job) throw new Error('nothing claimed');
  return job;
}

describe('the cleaner', () => {
  it('deletes finished jobs with their attempts and long-expired keys after their ages, in batches', async () => {
    const clock = new ManualClock();
    const { jobs, batcher } = store.system;
    // Three completed, one failed, one still running, one waiting: each with its attempt rows.
    const finished: ClaimedJob[] = [];
    for (let i = 0; i < 4; i++) finished.push(await claimed(clock, 'w', 60_000));
    await batcher.submit(async (trx) => {
      for (const job of finished.slice(0, 3)) await jobs.complete(trx, job, clock.date());
      await jobs.fail(trx, finished[3]!, 'failed for good', clock.date());
    });
    const running = await claimed(clock, 'w', 60 * DAY);
    await batcher.submit((trx) => jobs.enqueue(trx, newJob(clock), clock.date()));
    // Two submissions' idempotency keys (each expires a day after its claim).
    for (const key of ['k1', 'k2']) {
      await store.system.ingest.ingest({
        ...ingestCommand({ tenantId, partnerId }, { idempotencyKeyHash: key }),
        receivedAt: clock.date(),
      });
    }
    const before = await store.system.maintenance.counts();
    expect(before).toMatchObject({ jobs: 8, idempotencyKeys: 2 });

    const cleaner = new Cleaner({ store: store.system, clock: clock.date, batchSize: 2 });
    // Not yet: seven days minus a millisecond after they finished, a day after the keys expired.
    clock.advance(7 * DAY - 1);
    expect(await cleaner.runOnce()).toEqual({
      jobs: 0,
      jobAttempts: 0,
      idempotencyKeys: 2,
      auditEvents: 0,
      webhookAttempts: 0,
      expiredSubmissions: 0,
      orphanObjects: 0,
      leftReportFiles: 0,
    });
    expect(await store.system.maintenance.counts()).toMatchObject({ jobs: 8, idempotencyKeys: 0 });

    clock.advance(2);
    // Batches of two: the four finished jobs in two batches (and a third that finds none).
    expect(await cleaner.runOnce()).toEqual({
      jobs: 4,
      jobAttempts: 4,
      idempotencyKeys: 0,
      auditEvents: 0,
      webhookAttempts: 0,
      expiredSubmissions: 0,
      orphanObjects: 0,
      leftReportFiles: 0,
    });
    expect((await jobStatuses()).sort()).toEqual(['pending', 'pending', 'pending', 'running']);
    const left = await store.system.maintenance.counts();
    // The running job, the waiting one and the two submissions' first jobs (pending) stay.
    expect(left.jobs).toBe(4);
    expect(left.jobAttempts).toBe(before.jobAttempts - 4);
    expect(await store.system.jobs.attempts(running.id)).toHaveLength(1);
    for (const job of finished) expect(await store.system.jobs.attempts(job.id)).toEqual([]);
    expect(await cleaner.runOnce()).toEqual({
      jobs: 0,
      jobAttempts: 0,
      idempotencyKeys: 0,
      auditEvents: 0,
      webhookAttempts: 0,
      expiredSubmissions: 0,
      orphanObjects: 0,
      leftReportFiles: 0,
    });
  });

  it('leaves keys that expired less than a day ago, which replays no longer use but an operator may look at', async () => {
    const clock = new ManualClock();
    await store.system.ingest.ingest({ ...ingestCommand({ tenantId, partnerId }), receivedAt: clock.date() });
    const cleaner = new Cleaner({
      store: store.system,
      clock: clock.date,
      idempotencyRetentionMs: 3_600_000,
    });
    clock.advance(DAY + 3_600_000 - 1);
    expect((await cleaner.runOnce()).idempotencyKeys).toBe(0);
    clock.advance(2);
    expect((await cleaner.runOnce()).idempotencyKeys).toBe(1);
  });
});

describe('the rescuer', () => {
  it('retries a job whose lease ran out at once, in its place in line, and fails it after its last attempt', async () => {
    const clock = new ManualClock();
    const failed: string[] = [];
    const definition: JobDefinition = {
      run: async () => async () => {},
      onFailed: async (_trx, job, summary) => {
        failed.push(`${job.id}: ${summary}`);
      },
    };
    const kinds = new JobKinds().register('kind.test', definition);
    const { lines, logger } = capturedLogger();
    const rescuer = new Rescuer({ store: store.system, kinds, clock: clock.date, logger });
    const job = await claimed(clock, 'dead-worker', 300);

    expect(await rescuer.runOnce()).toEqual({ rescued: 0 });
    clock.advance(301);
    expect(await rescuer.runOnce()).toEqual({ rescued: 1 });
    const row = await store.driver.db
      .selectFrom('jobs')
      .selectAll()
      .where('id', '=', job.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'retrying', attempts: 1, locked_by: null });
    // Due since it was accepted: ahead of anything queued after it.
    expect(Date.parse(String(row.run_at))).toBe(Date.parse(job.acceptedAt));
    expect(lines.join('')).toContain('rescued a job whose lease expired');
    expect(JSON.parse(lines[0]!)).toMatchObject({
      jobId: job.id,
      tenantId,
      correlationId: 'c',
      requestId: 'r',
    });

    // Its second (last) attempt dies too: it fails for good, with its step's final writes.
    const [again] = await store.system.batcher.submit((trx) =>
      store.system.jobs.claim(trx, 'dead-worker-2', ['kind.test'], 1, 300, clock.date()),
    );
    expect(again?.attempt).toBe(2);
    clock.advance(301);
    expect(await rescuer.runOnce()).toEqual({ rescued: 1 });
    expect(
      await store.driver.db
        .selectFrom('jobs')
        .select('status')
        .where('id', '=', job.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({
      status: 'failed',
    });
    expect(failed).toEqual([
      `${job.id}: The worker processing this step stopped before finishing; it will be retried.`,
    ]);
    const attempts = await store.system.jobs.attempts(job.id);
    expect(attempts.map((a) => [a.attempt, a.worker_id, a.outcome])).toEqual([
      [1, 'dead-worker', 'retrying'],
      [2, 'dead-worker-2', 'failed'],
    ]);
  });
});

describe('the maintenance runner', () => {
  it('runs each service at start and on its interval, logs what a pass did, and survives a failing pass', async () => {
    const { lines, logger } = capturedLogger();
    let passes = 0;
    const counting: MaintenanceService = {
      name: 'counting',
      intervalMs: 20,
      runOnce: async () => {
        passes += 1;
        return { cleaned: passes === 1 ? 3 : 0 };
      },
    };
    const failing: MaintenanceService = {
      name: 'failing',
      intervalMs: 20,
      runOnce: async () => {
        throw new Error('the database went away');
      },
    };
    const maintenance = new Maintenance([counting, failing], systemClock, logger);
    maintenance.start();
    await waitUntil(async () => passes >= 3, 10_000, 'three passes');
    await maintenance.stop();
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    // Only the pass that did something is logged, with its counts.
    expect(parsed.filter((l) => l.msg === 'maintenance pass')).toEqual([
      expect.objectContaining({ maintenance: 'counting', cleaned: 3 }),
    ]);
    expect(parsed.some((l) => l.maintenance === 'failing' && l.level === 50)).toBe(true);
    const after = passes;
    await new Promise((r) => setImmediate(r));
    expect(passes).toBe(after);
  });
});
