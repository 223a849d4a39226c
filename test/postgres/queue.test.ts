import { sql } from 'kysely';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { JobKinds } from '../../src/queue/kinds.js';
import type { JobDefinition } from '../../src/queue/types.js';
import { Worker } from '../../src/queue/worker.js';
import type { Store } from '../../src/store/index.js';
import { LISTENER_APPLICATION_NAME } from '../../src/store/postgres/job-listener.js';
import { msOf } from '../helpers/clock.js';
import { waitUntil } from '../helpers/pipeline.js';
import { openSecondStore, openTestStore } from '../helpers/store.js';

let a: Store;
let b: Store;
let tenantId: string;
const workers: Worker[] = [];
const TYPES = ['webhook.deliver'];

beforeEach(async () => {
  a = await openTestStore({ jobMaxAttempts: 3 });
  b = openSecondStore(a);
  tenantId = (await a.system.accounts.createTenant('T')).tenantId;
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop(1000)));
  await b.close();
  await a.close();
});

function startWorker(
  store: Store,
  definition: JobDefinition,
  opts: { pollMs?: number; workerId?: string } = {},
) {
  const worker = new Worker({
    store: store.system,
    kinds: new JobKinds().register('webhook.deliver', definition),
    logger: pino({ level: 'silent' }),
    clock: systemClock,
    concurrency: 8,
    // No test here is about leases: one that cannot run out, however loaded the machine.
    leaseMs: 600_000,
    heartbeatMs: 1000,
    pollMs: opts.pollMs ?? 200,
    retryBaseMs: 40,
    retryCapMs: 1000,
    ...(opts.workerId ? { workerId: opts.workerId } : {}),
  });
  workers.push(worker);
  worker.start();
  return worker;
}

/** Enqueues through `store` without telling any in-process notifier. */
async function enqueue(store: Store): Promise<string> {
  const now = new Date();
  return store.system.jobs.enqueue(
    store.driver.db,
    {
      type: 'webhook.deliver',
      tenantId,
      submissionId: null,
      correlationId: 'c',
      requestId: 'r',
      acceptedAt: now.toISOString(),
      slaDeadlineAt: null,
      maxAttempts: 3,
    },
    now,
  );
}

async function status(id: string): Promise<string> {
  const row = await a.driver.db.selectFrom('jobs').select('status').where('id', '=', id).executeTakeFirst();
  return row?.status ?? 'missing';
}

/** Backends of this database waiting for a lock another backend holds. */
async function lockWaiters(): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from pg_stat_activity
    where datname = current_database() and cardinality(pg_blocking_pids(pid)) > 0`.execute(b.driver.db);
  return rows[0]!.n;
}

/** Backends of this database that are job listeners. */
async function listeners(): Promise<number[]> {
  const { rows } = await sql<{ pid: number }>`
    select pid from pg_stat_activity
    where datname = current_database() and application_name = ${LISTENER_APPLICATION_NAME}`.execute(
    a.driver.db,
  );
  return rows.map((r) => r.pid);
}

const noop: JobDefinition = { run: async () => async () => {} };

/**
 * What a store's worker is doing, seen from outside: the wake-ups its notifier delivered and
 * the claims it made. It lets a test wait until the worker is idle after a given wake-up (a
 * claim it started after that wake-up has finished and none is running), so that the next job
 * can only be found through the next wake-up. The claims are the real ones, only counted.
 */
function watchWorker(store: Store) {
  const seen = { wakes: 0, claims: [] as Array<{ afterWake: number; done: boolean }> };
  const claim = store.system.jobs.claim.bind(store.system.jobs);
  store.system.jobs.claim = async (...args: Parameters<typeof claim>) => {
    const entry = { afterWake: seen.wakes, done: false };
    seen.claims.push(entry);
    try {
      return await claim(...args);
    } finally {
      entry.done = true;
    }
  };
  // Subscribed after the worker: the worker's wake-up runs first, and its claim starts later.
  store.system.notifier.subscribe(() => {
    seen.wakes += 1;
  });
  return {
    get wakes() {
      return seen.wakes;
    },
    /** Idle after wake-up number `n` (1-based) and everything before it. */
    idleAfterWake(n: number): boolean {
      return (
        seen.wakes >= n &&
        seen.claims.some((c) => c.afterWake >= n && c.done) &&
        seen.claims.every((c) => c.done)
      );
    },
  };
}

describe('PostgreSQL job queue across processes', () => {
  it('wakes an idle worker in another process through LISTEN/NOTIFY', async () => {
    startWorker(b, noop, { pollMs: 3_600_000 });
    const worker = watchWorker(b);
    // The listener wakes the worker once it listens; the claim that wake-up starts finds nothing.
    // After that the poll is an hour away: only a notification can make it claim again.
    await waitUntil(
      async () => worker.idleAfterWake(1),
      20_000,
      'the listener to listen, and the worker to idle',
    );
    expect(await listeners()).toHaveLength(1);
    const wakesBefore = worker.wakes;
    const id = await enqueue(a);
    await waitUntil(async () => (await status(id)) === 'completed', 20_000, 'the notified worker');
    expect(worker.wakes).toBeGreaterThan(wakesBefore);
  });

  it('listens again after its connection is killed, and is woken on the new one', async () => {
    startWorker(b, noop, { pollMs: 3_600_000 });
    const worker = watchWorker(b);
    await waitUntil(
      async () => worker.idleAfterWake(1),
      20_000,
      'the listener to listen, and the worker to idle',
    );
    const [first] = await listeners();
    expect(first).toEqual(expect.any(Number));
    const wakesBefore = worker.wakes;
    await sql`select pg_terminate_backend(${first})`.execute(a.driver.db);
    // The new connection listens, then wakes the worker once (notifications sent meanwhile are
    // lost); once that wake-up's claim has finished, only a notification can wake it.
    await waitUntil(
      async () => worker.idleAfterWake(wakesBefore + 1),
      20_000,
      'the new listener to listen, and the worker to idle',
    );
    const now = await listeners();
    expect(now).toHaveLength(1);
    expect(now[0]).not.toBe(first);
    const wakesAfterReconnect = worker.wakes;
    const id = await enqueue(a);
    await waitUntil(async () => (await status(id)) === 'completed', 20_000, 'the notified worker');
    expect(worker.wakes).toBeGreaterThan(wakesAfterReconnect);
  });

  it('skips jobs another transaction is claiming instead of waiting for them (SKIP LOCKED)', async () => {
    const ids = await Promise.all(Array.from({ length: 10 }, () => enqueue(a)));
    const now = new Date();
    await a.driver.db.transaction().execute(async (trx) => {
      const mine = await a.system.jobs.claim(trx, 'worker-a', TYPES, 4, 5000, now);
      expect(mine).toHaveLength(4);
      // While worker-a's claim is uncommitted, worker-b (another connection) takes the rest at
      // once. Without SKIP LOCKED this would wait for worker-a, which waits for it: the test hangs.
      const theirs = await b.system.jobs.claim(b.driver.db, 'worker-b', TYPES, 10, 5000, now);
      expect(theirs).toHaveLength(6);
      const all = [...mine, ...theirs].map((j) => j.id).sort();
      expect(all).toEqual([...ids].sort());
    });
  });

  it('extends leases without waiting for a job another transaction is finishing (no heartbeat deadlock)', async () => {
    await Promise.all([enqueue(a), enqueue(a)]);
    const now = new Date();
    const [x, y] = await a.system.jobs.claim(a.driver.db, 'worker-a', TYPES, 2, 5000, now);
    const leaseOf = async (id: string) =>
      (
        await a.driver.db
          .selectFrom('jobs')
          .select('locked_until')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).locked_until;
    const before = await leaseOf(y!.id);
    const later = new Date(now.getTime() + 1000);
    await b.driver.db.transaction().execute(async (trx) => {
      // Another connection is completing x and holds its row lock until it commits, as a group
      // commit does. A heartbeat that waited for that lock could close a cycle with it (the
      // transaction next locks a row the heartbeat holds): a deadlock PostgreSQL breaks by
      // aborting one. The heartbeat skips x instead and still extends y.
      await b.system.jobs.complete(trx, x!, later);
      // The heartbeat either returns, or waits for a lock: a wait shows in pg_stat_activity (it
      // would last until this transaction ends, which waits for the heartbeat), so the test
      // looks for it rather than giving the heartbeat a fixed time to answer.
      let answered = false;
      const heartbeat = a.system.jobs.heartbeat('worker-a', [x!.id, y!.id], 60_000, later).finally(() => {
        answered = true;
      });
      const blocked = (async () => {
        while (!answered) {
          if ((await lockWaiters()) > 0) return 'waited for a lock' as const;
          await new Promise((r) => setTimeout(r, 10));
        }
        return 'answered' as const;
      })();
      const lost = await Promise.race([heartbeat, blocked]);
      expect(lost).toEqual([]);
      expect(await blocked).toBe('answered');
    });
    expect(msOf(await leaseOf(y!.id))).toBeGreaterThan(msOf(before));
    expect(await status(x!.id)).toBe('completed');
    // Once committed elsewhere, x is no longer held: the next beat reports it lost.
    expect(await a.system.jobs.heartbeat('worker-a', [x!.id, y!.id], 60_000, later)).toEqual([x!.id]);
  });

  it('runs every job exactly once with workers in two processes, never one job on both at once', async () => {
    const active = new Set<string>();
    const runs = new Map<string, string[]>();
    let overlap = false;
    const definition = (name: string): JobDefinition => ({
      run: async (j) => {
        if (active.has(j.id)) overlap = true;
        active.add(j.id);
        runs.set(j.id, [...(runs.get(j.id) ?? []), name]);
        await new Promise((r) => setTimeout(r, 2 + Math.random() * 8));
        active.delete(j.id);
        return async () => {};
      },
    });
    startWorker(a, definition('a'), { workerId: 'a' });
    startWorker(b, definition('b'), { workerId: 'b' });
    const ids = await Promise.all(Array.from({ length: 200 }, (_, i) => enqueue(i % 2 === 0 ? a : b)));
    await waitUntil(async () => {
      const rows = await a.driver.db.selectFrom('jobs').select('status').execute();
      return rows.every((r) => r.status === 'completed');
    }, 20_000);
    expect(overlap).toBe(false);
    expect(ids.every((id) => runs.get(id)?.length === 1)).toBe(true);
    // Both processes took part.
    const by = new Set([...runs.values()].flat());
    expect(by).toEqual(new Set(['a', 'b']));
  });
});
