import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { ModelResult } from '../../src/domain/model/types.js';
import { JobKinds } from '../../src/queue/kinds.js';
import { Worker } from '../../src/queue/worker.js';
import type { Store } from '../../src/store/index.js';
import { WebhookAdmin } from '../../src/webhooks/admin.js';
import { registerWebhookJobs, SecretBox } from '../../src/webhooks/index.js';
import { recordResultReady } from '../../src/webhooks/outbox.js';
import { ManualClock, msOf } from '../helpers/clock.js';
import { waitUntil } from '../helpers/pipeline.js';
import { TestReceiver } from '../helpers/receiver.js';
import { ingestCommand, openTestStore } from '../helpers/store.js';

/**
 * The delivery schedule (`WEBHOOK_RETRY_SCHEDULE`) on the real queue, store and sender, with the
 * worker's clock in the test's hands: every delay is checked to the millisecond, and nothing
 * waits for real time to pass.
 */

const UNEQUAL = '0s,1s,7s,2s';
const UNEQUAL_MS = [0, 1_000, 7_000, 2_000];

let store: Store;
const box = new SecretBox('schedule-test-webhook-secrets-key-0123456789');
const receiver = new TestReceiver();
const workers: Worker[] = [];

beforeEach(async () => {
  store = await openTestStore();
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop(1000)));
  await receiver.stop();
  await store.close();
});

function kindsFor(scheduleMs: number[], clock: () => Date): JobKinds {
  return registerWebhookJobs(new JobKinds(), {
    store: store.system,
    box,
    config: { scheduleMs, timeoutMs: 10_000, allowInsecure: true, disableAfterMs: 5 * 86_400_000 },
    clock,
  });
}

function definitionFor(scheduleMs: number[], clock: () => Date) {
  const def = kindsFor(scheduleMs, clock).get('webhook.deliver');
  if (!def) throw new Error('no webhook.deliver definition');
  return def;
}

describe('webhook retry schedule', () => {
  it('reads an unequal WEBHOOK_RETRY_SCHEDULE in order', () => {
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: UNEQUAL }).webhookRetryScheduleMs).toEqual(UNEQUAL_MS);
  });

  it('waits the entry after each failed attempt, and the last entry for attempts beyond the schedule', () => {
    const def = definitionFor(UNEQUAL_MS, () => new Date());
    // Entry 0 is the delay before the first attempt; after attempt n comes entry n.
    expect([1, 2, 3].map((n) => def.retryDelayMs!(n))).toEqual([1_000, 7_000, 2_000]);
    for (const n of [4, 5, 8, 100, 1e6, Number.MAX_SAFE_INTEGER])
      expect(def.retryDelayMs!(n), `${n}`).toBe(2_000);
    // The default schedule: its last entry (10 h) is the most any delivery ever waits.
    const defaults = loadConfig({}).webhookRetryScheduleMs;
    const defaultDef = definitionFor(defaults, () => new Date());
    for (const n of [defaults.length - 1, defaults.length, 50, 1e9]) {
      expect(defaultDef.retryDelayMs!(n)).toBe(10 * 3_600_000);
    }
    expect(Math.max(...defaults)).toBe(10 * 3_600_000);
    // One entry: every retry waits that entry.
    const single = definitionFor([5_000], () => new Date());
    expect([1, 2, 3].map((n) => single.retryDelayMs!(n))).toEqual([5_000, 5_000, 5_000]);
  });

  it('makes each attempt exactly its scheduled delay after the previous one failed (0s,1s,7s,2s)', async () => {
    const clock = new ManualClock();
    const url = await receiver.start();
    receiver.replies = [503, 503, 503];
    receiver.fallback = 204;

    // A partner with a callback, a result, and its result.ready event with its delivery job.
    const tenantId = (await store.system.accounts.createTenant('T')).tenantId;
    const partnerId = (await store.system.accounts.createPartner(tenantId, 'P')).partnerId;
    const admin = new WebhookAdmin(store.system, box, {
      allowInsecure: true,
      scheduleMs: UNEQUAL_MS,
      clock: clock.date,
      tenants: store,
    });
    await admin.set(partnerId, url, {});
    const ingested = await store.system.ingest.ingest(ingestCommand({ tenantId, partnerId }));
    if (ingested.kind !== 'created') throw new Error('the submission was not created');
    const submissionId = ingested.submissionId;
    const acceptedAt = clock.ms();
    const eventId = await store.system.batcher.submit(async (trx) => {
      const bundle = { outcomes: [] } as unknown as ModelResult;
      await store.system.results.createOnce(
        trx,
        { tenantId, submissionId, bundle, artifactTypes: [] },
        clock.date(),
      );
      return recordResultReady(
        store.system,
        trx,
        {
          submissionId,
          now: clock.date(),
          ids: { correlationId: null, requestId: null },
          policy: { scheduleMs: UNEQUAL_MS },
        },
        (job) => store.system.jobs.enqueue(trx, job, clock.date()),
      );
    });
    expect(eventId).toEqual(expect.any(String));
    const delivery = async () =>
      store.driver.db
        .selectFrom('jobs')
        .selectAll()
        .where('type', '=', 'webhook.deliver')
        .executeTakeFirstOrThrow();
    /** The delivery jobs a worker could claim at `ms`, asked in a transaction that is rolled back. */
    const dueAt = async (ms: number): Promise<number> => {
      let due = 0;
      await store.driver.db
        .transaction()
        .execute(async (trx) => {
          due = (await store.system.jobs.claim(trx, 'probe', ['webhook.deliver'], 10, 60_000, new Date(ms)))
            .length;
          throw new RolledBack();
        })
        .catch((e: unknown) => {
          if (!(e instanceof RolledBack)) throw e;
        });
      return due;
    };

    const first = await delivery();
    expect(first.max_attempts).toBe(4);
    expect(msOf(first.run_at) - acceptedAt).toBe(0);

    const worker = new Worker({
      store: store.system,
      kinds: kindsFor(UNEQUAL_MS, clock.date),
      logger: pino({ level: 'silent' }),
      concurrency: 2,
      leaseMs: 600_000,
      heartbeatMs: 1_000,
      pollMs: 50,
      retryBaseMs: 1,
      retryCapMs: 1,
      clock: clock.date,
    });
    workers.push(worker);
    worker.start();

    const delays: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const row = await waitUntil(
        async () => {
          const r = await delivery();
          return r.status === 'retrying' && r.attempts === attempt && r;
        },
        20_000,
        `attempt ${attempt} to fail`,
      );
      // The worker's clock has not moved since the attempt began: it failed at clock.ms().
      const failedAt = clock.ms();
      const runAt = msOf(row.run_at);
      delays.push(runAt - failedAt);
      // Not due a millisecond early; due on time.
      expect(await dueAt(runAt - 1)).toBe(0);
      expect(await dueAt(runAt)).toBe(1);
      clock.set(runAt);
      store.system.notifier.notify();
    }
    expect(delays).toEqual(UNEQUAL_MS.slice(1));

    const done = await waitUntil(
      async () => {
        const r = await delivery();
        return r.status === 'completed' && r;
      },
      20_000,
      'the fourth attempt',
    );
    expect(done.attempts).toBe(4);
    expect(receiver.deliveries).toHaveLength(4);
    expect(new Set(receiver.deliveries.map((d) => d.headers['x-healthspan-event-id']))).toEqual(
      new Set([eventId]),
    );
    // The attempt log, stamped by the same clock: 0 s, then 1 s, 7 s and 2 s apart.
    const attempts = await store.driver.db
      .selectFrom('webhook_attempts')
      .select(['attempt', 'started_at', 'status_code', 'outcome'])
      .orderBy('attempt')
      .execute();
    expect(
      attempts.map((a) => [a.attempt, msOf(a.started_at) - acceptedAt, a.status_code, a.outcome]),
    ).toEqual([
      [1, 0, 503, 'failed'],
      [2, 1_000, 503, 'failed'],
      [3, 8_000, 503, 'failed'],
      [4, 10_000, 204, 'delivered'],
    ]);
    expect((await store.system.webhooks.event(store.driver.db, eventId!))?.status).toBe('delivered');
  });
});

class RolledBack extends Error {}
