import { Writable } from 'node:stream';
import fc from 'fast-check';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { retryDelayMs } from '../../src/queue/backoff.js';
import { JobKinds } from '../../src/queue/kinds.js';
import { Rescuer } from '../../src/queue/maintenance/rescuer.js';
import { Maintenance } from '../../src/queue/maintenance/service.js';
import { type ClaimPacer, DoorSignal, doorPacer, PRESSURE_ARRIVALS } from '../../src/queue/pacing.js';
import { type ClaimedJob, type JobDefinition, PermanentJobError } from '../../src/queue/types.js';
import { Worker, type WorkerOptions } from '../../src/queue/worker.js';
import type { Store } from '../../src/store/index.js';
import { deferred, ManualClock, msOf, SkewedClock } from '../helpers/clock.js';
import { openTestStore } from '../helpers/store.js';

let store: Store;
let tenantId: string;
const workers: Worker[] = [];
/** Handlers a test left blocked are let go first, or stopping their worker would wait for them. */
const unblock: Array<() => void> = [];
const silent = pino({ level: 'silent' });

beforeEach(async () => {
  store = await openTestStore({ jobMaxAttempts: 3 });
  tenantId = (await store.system.accounts.createTenant('T')).tenantId;
});
afterEach(async () => {
  for (const release of unblock.splice(0)) release();
  await Promise.all(workers.splice(0).map((w) => w.stop(1000)));
  await store.close();
});

/** A worker running `definition`, with a rescuer beside it on the same clock (as a service runs). */
function startWorker(
  definition: JobDefinition,
  opts: Partial<WorkerOptions> & { rescueEveryMs?: number } = {},
): Worker {
  const { rescueEveryMs = 200, clock = systemClock, ...workerOpts } = opts;
  const kinds = new JobKinds().register('webhook.deliver', definition);
  const retry = { retryBaseMs: 40, retryCapMs: 1000 };
  const worker = new Worker({
    store: store.system,
    kinds,
    logger: silent,
    concurrency: 4,
    // Longer than any test runs, however loaded the machine: a lease expires only in the tests
    // about leases, which set a short one and move an injected clock past it.
    leaseMs: 600_000,
    heartbeatMs: 300,
    pollMs: 200,
    ...retry,
    ...workerOpts,
    clock,
  });
  const rescuer = new Rescuer({
    store: store.system,
    kinds,
    logger: silent,
    clock,
    retry,
    intervalMs: rescueEveryMs,
  });
  const maintenance = new Maintenance([rescuer], clock, silent);
  worker.onStopped(() => maintenance.stop());
  workers.push(worker);
  worker.start();
  maintenance.start();
  return worker;
}

async function enqueue(maxAttempts = 3): Promise<string> {
  const now = new Date();
  const id = await store.system.jobs.enqueue(
    store.driver.db,
    {
      type: 'webhook.deliver',
      tenantId,
      submissionId: null,
      correlationId: 'c',
      requestId: 'r',
      acceptedAt: now.toISOString(),
      slaDeadlineAt: null,
      maxAttempts,
    },
    now,
  );
  store.system.notifier.notify();
  return id;
}

/** A worker that claims the next job with a 300 ms lease and then vanishes. */
async function claimAsDeadWorker(): Promise<ClaimedJob | undefined> {
  const [claimed] = await store.system.jobs.claim(
    store.driver.db,
    'dead-worker',
    ['webhook.deliver'],
    1,
    300,
    new Date(),
  );
  return claimed;
}

async function job(id: string) {
  return store.driver.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

async function waitFor<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('backoff', () => {
  it('grows exponentially, is capped, and never exceeds its step', () => {
    expect(retryDelayMs(1, 1000, 60_000, () => 0)).toBe(500);
    expect(retryDelayMs(1, 1000, 60_000, () => 1)).toBe(1000);
    expect(retryDelayMs(3, 1000, 60_000, () => 1)).toBe(4000);
    expect(retryDelayMs(20, 1000, 60_000, () => 1)).toBe(60_000);
    for (let i = 0; i < 100; i++) {
      const d = retryDelayMs(4, 100, 10_000);
      expect(d).toBeGreaterThanOrEqual(400);
      expect(d).toBeLessThanOrEqual(800);
    }
  });

  it('never exceeds its cap, even with the most jitter and attempt numbers far beyond any schedule', () => {
    // 2 ** 1100 is Infinity, and base × 2 ** 1023 overflows too: the cap must still hold.
    for (const attempt of [30, 31, 52, 53, 64, 1023, 1024, 1100, 1e6, Number.MAX_SAFE_INTEGER]) {
      expect(
        retryDelayMs(attempt, 1000, 300_000, () => 1),
        `attempt ${attempt}`,
      ).toBe(300_000);
      expect(
        retryDelayMs(attempt, 1000, 300_000, () => 0.999999),
        `attempt ${attempt}`,
      ).toBe(300_000);
      expect(
        retryDelayMs(attempt, 1000, 300_000, () => 0),
        `attempt ${attempt}`,
      ).toBe(150_000);
    }
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 1, max: 60_000 }),
        fc.integer({ min: 1, max: 3_600_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (attempt, baseMs, capMs, r) => {
          const d = retryDelayMs(attempt, baseMs, capMs, () => r);
          const step = Math.min(capMs, baseMs * 2 ** (attempt - 1));
          expect(Number.isSafeInteger(d)).toBe(true);
          expect(d).toBeLessThanOrEqual(capMs);
          expect(d).toBeLessThanOrEqual(Math.round(step));
          // Half fixed: never below half the step, so never zero.
          expect(d).toBeGreaterThanOrEqual(Math.floor(step / 2));
          expect(d).toBeGreaterThan(0);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('Worker', () => {
  it('runs an enqueued job at once (no polling delay) and records its completion', async () => {
    const seen: ClaimedJob[] = [];
    startWorker(
      {
        run: async (j) => {
          seen.push(j);
          return async () => {};
        },
      },
      { pollMs: 3_600_000 },
    );
    // The poll is an hour away and waitFor gives up after 10 s: only the wake-up can finish it.
    const id = await enqueue();
    const row = await waitFor(async () => {
      const r = await job(id);
      return r.status === 'completed' && r;
    });
    expect(row.attempts).toBe(1);
    expect(row.completed_at).not.toBeNull();
    expect(seen.map((j) => j.id)).toEqual([id]);
  });

  it('claims jobs that arrived while it was full as soon as a slot frees, without its poll', async () => {
    // A drained worker no longer claims each time one of its jobs ends; one told of new work
    // while every slot was busy still must, and at once (the poll is an hour away).
    const gates = [deferred(), deferred()];
    const ran: string[] = [];
    startWorker(
      {
        run: async (j) => {
          ran.push(j.id);
          await gates[ran.length - 1]?.promise;
          return async () => {};
        },
      },
      { pollMs: 3_600_000, concurrency: 1 },
    );
    unblock.push(...gates.map((g) => () => g.resolve()));
    const first = await enqueue();
    await waitFor(async () => ran.length === 1);
    const second = await enqueue();
    const third = await enqueue();
    gates[0]!.resolve();
    await waitFor(async () => ran.length === 2);
    gates[1]!.resolve();
    for (const id of [first, second, third]) {
      await waitFor(async () => (await job(id)).status === 'completed');
    }
    expect(ran[0]).toBe(first);
    expect([...ran.slice(1)].sort()).toEqual([second, third].sort());
  });

  it('retries a throwing step with growing delays, then fails it with failedAt and a plain summary', async () => {
    const attemptsAt: number[] = [];
    startWorker({
      run: async () => {
        attemptsAt.push(Date.now());
        throw new Error('boom: internal detail that must not leak');
      },
      summarize: () => 'Delivering the notification failed.',
    });
    const id = await enqueue(3);
    const row = await waitFor(async () => {
      const r = await job(id);
      return r.status === 'failed' && r;
    });
    expect(row.attempts).toBe(3);
    expect(row.failed_at).not.toBeNull();
    expect(row.error_summary).toBe('Delivering the notification failed.');
    expect(attemptsAt).toHaveLength(3);
    // base 40 ms: the first retry waits 20–40 ms, the second 40–80 ms.
    expect(attemptsAt[1]! - attemptsAt[0]!).toBeGreaterThanOrEqual(20);
    expect(attemptsAt[2]! - attemptsAt[1]!).toBeGreaterThanOrEqual(40);
    const log = await store.system.jobs.attempts(id);
    expect(log.map((a) => [a.attempt, a.outcome])).toEqual([
      [1, 'retrying'],
      [2, 'retrying'],
      [3, 'failed'],
    ]);
    expect(log.every((a) => a.finished_at !== null)).toBe(true);
  });

  it('fails a permanent error at once', async () => {
    let runs = 0;
    startWorker({
      run: async () => {
        runs += 1;
        throw new PermanentJobError('The callback address is not allowed.');
      },
    });
    const id = await enqueue(5);
    const row = await waitFor(async () => {
      const r = await job(id);
      return r.status === 'failed' && r;
    });
    expect(runs).toBe(1);
    expect(row.error_summary).toBe('The callback address is not allowed.');
  });

  it('rescues a job whose worker died (lease expired) and counts the lost attempt', async () => {
    const id = await enqueue(3);
    // A worker that claims and then vanishes: its lease runs out.
    const claimed = await claimAsDeadWorker();
    expect(claimed?.id).toBe(id);
    const runs: string[] = [];
    startWorker({
      run: async (j) => {
        runs.push(j.lockedBy);
        return async () => {};
      },
    });
    const row = await waitFor(async () => {
      const r = await job(id);
      return r.status === 'completed' && r;
    });
    expect(row.attempts).toBe(2);
    expect(runs).toHaveLength(1);
    expect(runs[0]).not.toBe('dead-worker');
    const log = await store.system.jobs.attempts(id);
    expect(log.map((a) => [a.attempt, a.worker_id === 'dead-worker', a.outcome])).toEqual([
      [1, true, 'retrying'],
      [2, false, 'completed'],
    ]);
  });

  it('runs a rescued job again at once, ahead of jobs queued after it, whatever its retry schedule', async () => {
    const rescued = await enqueue(3);
    const claimed = await claimAsDeadWorker();
    expect(claimed?.id).toBe(rescued);
    const later = [await enqueue(3), await enqueue(3), await enqueue(3)];
    const first = deferred();
    unblock.push(first.resolve);
    const order: string[] = [];
    startWorker(
      {
        run: async (j) => {
          order.push(j.id);
          // The first job holds the only slot until the dead worker's job has been rescued.
          if (j.id === later[0]) await first.promise;
          return async () => {};
        },
        // A step with a long retry schedule (a callback's is minutes): a rescue must not wait for it.
        retryDelayMs: () => 600_000,
      },
      { concurrency: 1 },
    );
    await waitFor(async () => (await job(rescued)).status === 'retrying');
    first.resolve();
    await waitFor(async () => {
      const rows = await Promise.all([rescued, ...later].map(job));
      return rows.every((r) => r.status === 'completed');
    });
    expect(order).toEqual([later[0], rescued, later[1], later[2]]);
    expect((await job(rescued)).attempts).toBe(2);
  });

  it('never runs one job on two workers at once, and runs every job exactly once', async () => {
    const active = new Set<string>();
    const runsPerJob = new Map<string, number>();
    let overlap = false;
    const definition: JobDefinition = {
      run: async (j) => {
        if (active.has(j.id)) overlap = true;
        active.add(j.id);
        runsPerJob.set(j.id, (runsPerJob.get(j.id) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 10));
        active.delete(j.id);
        return async () => {};
      },
    };
    startWorker(definition, { workerId: 'a', concurrency: 8 });
    startWorker(definition, { workerId: 'b', concurrency: 8 });
    const ids = await Promise.all(Array.from({ length: 100 }, () => enqueue()));
    await waitFor(async () => {
      const rows = await store.driver.db.selectFrom('jobs').select('status').execute();
      return rows.every((r) => r.status === 'completed');
    });
    expect(overlap).toBe(false);
    expect(ids.every((id) => runsPerJob.get(id) === 1)).toBe(true);
    // The attempts log agrees: one attempt per job, by one worker, completed.
    for (const id of ids) {
      const log = await store.system.jobs.attempts(id);
      expect(log.map((a) => [a.attempt, a.outcome])).toEqual([[1, 'completed']]);
      expect(['a', 'b']).toContain(log[0]!.worker_id);
    }
  });

  it('keeps only the pacer’s few jobs in flight while the door is busy, and all once it is quiet', async () => {
    let now = 0;
    const door = new DoorSignal(() => now);
    const paced = doorPacer(door, { busyConcurrency: 2, quietMs: 10 });
    let asked = 0;
    const pacer: ClaimPacer = {
      concurrency: (full) => {
        asked++;
        return paced.concurrency(full);
      },
      recheckMs: paced.recheckMs,
    };
    const gate = deferred<void>();
    unblock.push(() => gate.resolve());
    let active = 0;
    let mostActive = 0;
    // Under pressure from the start (a burst's arrivals in one instant): the worker's first claim
    // may run after the enqueues below.
    for (let i = 0; i < PRESSURE_ARRIVALS; i++) door.arrived();
    startWorker(
      {
        run: async () => {
          active++;
          mostActive = Math.max(mostActive, active);
          await gate.promise;
          active--;
          return async () => {};
        },
      },
      { concurrency: 8, pacer },
    );
    const ids = await Promise.all(Array.from({ length: 8 }, () => enqueue()));
    await waitFor(async () => active === 2);
    // The worker has looked again several times (its rechecks, its poll) with the door still busy.
    const seen = asked;
    await waitFor(async () => asked >= seen + 5);
    expect(mostActive).toBe(2);
    // No more arrivals and the door stays quiet: the rest are claimed without a new job.
    now += 1_000;
    await waitFor(async () => active === 8);
    gate.resolve();
    await waitFor(async () => {
      const rows = await Promise.all(ids.map(job));
      return rows.every((r) => r.status === 'completed');
    });
  });

  it('keeps a long job alive with its heartbeat beyond the lease', async () => {
    // The worker's clock moves only when the test moves it: each step is shorter than the lease
    // and waits for a heartbeat to extend it, so the lease runs out only if the heartbeat does
    // not work, never because the machine was slow.
    const clock = new ManualClock();
    const id = await enqueue();
    const finish = deferred();
    unblock.push(() => finish.resolve());
    let runs = 0;
    const worker = startWorker(
      {
        run: async () => {
          runs += 1;
          await finish.promise;
          return async () => {};
        },
      },
      { clock: clock.date, leaseMs: 500, heartbeatMs: 20, rescueEveryMs: 20 },
    );
    await waitFor(async () => (await job(id)).status === 'running');
    for (let elapsed = 0; elapsed < 2_500; elapsed += 400) {
      clock.advance(400);
      const leaseEnd = clock.ms() + 500;
      const row = await waitFor(async () => {
        const r = await job(id);
        return msOf(r.locked_until) === leaseEnd && r;
      });
      expect(row).toMatchObject({ status: 'running', attempts: 1, locked_by: worker.workerId });
    }
    // Five times the lease has passed on the worker's clock, with the job still running.
    finish.resolve();
    const row = await waitFor(async () => {
      const r = await job(id);
      return r.status === 'completed' && r;
    });
    expect(row.attempts).toBe(1);
    expect(runs).toBe(1);
    const log = await store.system.jobs.attempts(id);
    expect(log.map((a) => [a.attempt, a.worker_id, a.outcome])).toEqual([[1, worker.workerId, 'completed']]);
  });

  it('refuses the commit of a stalled worker whose job was rescued and completed by another', async () => {
    const id = await enqueue(3);
    // What each completion writes: a stand-in for a result (a row in the same transaction as the
    // job's completion), so a second one would show.
    const resultOf =
      (who: string) => async (trx: Parameters<Awaited<ReturnType<JobDefinition['run']>>>[0]) => {
        const now = new Date().toISOString();
        await trx
          .insertInto('tenants')
          .values({
            id: crypto.randomUUID(),
            name: `result by ${who}`,
            active: 1,
            created_at: now,
            updated_at: now,
          })
          .execute();
      };
    const results = async () =>
      (
        await store.driver.db
          .selectFrom('tenants')
          .select('name')
          .where('name', 'like', 'result by %')
          .execute()
      ).map((r) => r.name);

    // Worker A claims the job and stalls inside its handler (it is not killed, and does not
    // watch its abort signal). Its timers stall with it: no heartbeat, no poll, no rescue.
    const stalledLog: string[] = [];
    const stalled = deferred();
    const resume = deferred();
    unblock.push(() => resume.resolve());
    const a = startWorker(
      {
        run: async () => {
          stalled.resolve();
          await resume.promise;
          return resultOf('stalled worker');
        },
      },
      {
        workerId: 'stalled',
        // Its one slot is taken by the stalled handler: it claims nothing else meanwhile.
        concurrency: 1,
        leaseMs: 60_000,
        heartbeatMs: 3_600_000,
        pollMs: 3_600_000,
        rescueEveryMs: 3_600_000,
        logger: pino(
          { level: 'warn' },
          new Writable({
            write(chunk, _enc, cb) {
              stalledLog.push(String(chunk));
              cb();
            },
          }),
        ),
      },
    );
    await stalled.promise;
    expect(await job(id)).toMatchObject({ status: 'running', attempts: 1, locked_by: 'stalled' });

    // Worker B lives two minutes later (an injected clock): A's 60 s lease has run out for it.
    // It rescues the job, counting A's attempt, runs it again and completes it.
    const later = new SkewedClock();
    later.advance(120_000);
    startWorker(
      { run: async () => resultOf('rescuer') },
      { workerId: 'rescuer', clock: later.date, rescueEveryMs: 50, pollMs: 50 },
    );
    const done = await waitFor(async () => {
      const r = await job(id);
      return r.status === 'completed' && r;
    });
    expect(done).toMatchObject({ attempts: 2, locked_by: null });
    expect(await results()).toEqual(['result by rescuer']);

    // A wakes up and tries to commit its (stale) completion: the fence on the lease owner refuses
    // it, so its writes roll back with it and the job stays as B left it.
    resume.resolve();
    await waitFor(async () => stalledLog.join('').includes('lease lost; another worker owns this job now'));
    await a.stop(30_000);
    expect(await job(id)).toEqual(done);
    expect(await results()).toEqual(['result by rescuer']);
    const log = await store.system.jobs.attempts(id);
    expect(log.map((x) => [x.attempt, x.worker_id, x.outcome])).toEqual([
      [1, 'stalled', 'retrying'],
      [2, 'rescuer', 'completed'],
    ]);
    expect(log.every((x) => x.finished_at !== null)).toBe(true);
  });

  it('waits at shutdown for the next step a job started as it completed', async () => {
    let nextFinished = false;
    let stopped: Promise<void> | undefined;
    const kinds = new JobKinds()
      .register('webhook.deliver', {
        run: async (job) => async (_trx, completion) => {
          await completion.enqueue({
            type: 'test.next',
            tenantId: job.tenantId,
            submissionId: null,
            correlationId: null,
            requestId: null,
            acceptedAt: job.acceptedAt,
            slaDeadlineAt: null,
            maxAttempts: 3,
          });
          // The shutdown begins while this job commits, after it claimed its successor.
          stopped ??= worker.stop(30_000);
        },
      })
      .register('test.next', {
        run: async () => {
          // A step that takes a while: the job that started it is done long before. Not a wait
          // for anything; a loaded machine only makes it longer, which changes no outcome.
          await new Promise((r) => setTimeout(r, 50));
          nextFinished = true;
          return async () => {};
        },
      });
    const worker = new Worker({
      store: store.system,
      kinds,
      logger: silent,
      clock: systemClock,
      leaseMs: 600_000,
    });
    workers.push(worker);
    worker.start();
    await enqueue();
    await waitFor(async () => stopped !== undefined);
    await stopped;
    // Stopped means stopped: nothing of this worker runs on against a store about to close.
    expect(nextFinished).toBe(true);
    const next = await store.driver.db
      .selectFrom('jobs')
      .select(['status', 'locked_by'])
      .where('type', '=', 'test.next')
      .executeTakeFirstOrThrow();
    expect(next).toEqual({ status: 'completed', locked_by: null });
  });

  it('hands what a completing job gives its successor to the attempt it chained, and to no later one', async () => {
    const handed: Array<[number, unknown]> = [];
    const given = { loaded: 'in memory' };
    const kinds = new JobKinds()
      .register('webhook.deliver', {
        run: async (job) => async (_trx, completion) => {
          const next = {
            type: 'test.next',
            tenantId: job.tenantId,
            submissionId: null,
            correlationId: null,
            requestId: null,
            acceptedAt: job.acceptedAt,
            slaDeadlineAt: null,
            maxAttempts: 3,
          };
          await completion.enqueue(next, given);
        },
      })
      .register('test.next', {
        run: async (job, ctx) => {
          handed.push([job.attempt, ctx.handOver]);
          // The first attempt fails: the retry is claimed from the queue, a cold start.
          if (job.attempt === 1) throw new Error('first attempt fails');
          return async () => {};
        },
      });
    const worker = new Worker({
      store: store.system,
      kinds,
      logger: silent,
      clock: systemClock,
      leaseMs: 600_000,
      pollMs: 100,
      retryBaseMs: 20,
      retryCapMs: 100,
    });
    workers.push(worker);
    worker.start();
    await enqueue();
    await waitFor(async () => {
      const next = await store.driver.db
        .selectFrom('jobs')
        .select('status')
        .where('type', '=', 'test.next')
        .executeTakeFirst();
      return next?.status === 'completed';
    });
    expect(handed).toEqual([
      [1, given],
      [2, undefined],
    ]);
  });

  it('hands running jobs back at shutdown without counting the attempt', async () => {
    let entered = false;
    const worker = startWorker({
      run: async (_j, ctx) => {
        entered = true;
        await new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => reject(new Error('aborted')));
        });
        return async () => {};
      },
    });
    const id = await enqueue();
    await waitFor(async () => entered);
    await worker.stop(100);
    const row = await job(id);
    expect(row.status).toBe('pending');
    expect(row.attempts).toBe(0);
    expect(row.locked_by).toBeNull();
    const log = await store.system.jobs.attempts(id);
    expect(log.map((a) => [a.attempt, a.outcome])).toEqual([[1, 'released']]);
  });
});
