import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewJob } from '../../src/jobs/types.js';
import type { Store } from '../../src/store/index.js';
import { ServiceMetrics } from '../../src/telemetry/metrics.js';
import { ManualClock } from '../helpers/clock.js';
import { openTestStore } from '../helpers/store.js';

/**
 * The queue gauges read the real job table (both stores) with one statement per scrape: counts
 * by type and state, and how long the oldest due job of each type has waited, by the service's
 * clock.
 */
describe('queue gauges', () => {
  let store: Store;
  const clock = new ManualClock();
  let metrics: ServiceMetrics;
  let reads = 0;

  beforeAll(async () => {
    store = await openTestStore();
    const { tenantId } = await store.system.accounts.createTenant('Gauges');
    // Test-mode work shares the queue and is counted under its own mode.
    const sandboxId = await store.system.accounts.sandboxTenant(tenantId, { create: true });
    const t0 = clock.date();
    const job = (type: string, runAt?: Date, mode: 'live' | 'test' = 'live'): NewJob => ({
      type,
      tenantId: mode === 'test' ? sandboxId : tenantId,
      submissionId: null,
      correlationId: null,
      requestId: null,
      acceptedAt: t0.toISOString(),
      slaDeadlineAt: null,
      maxAttempts: 3,
      ...(runAt ? { runAt: runAt.toISOString() } : {}),
    });
    const lease = { workerId: 'gauge-test', leaseMs: 60_000 };
    const { jobs, batcher } = store.system;
    await batcher.submit(async (trx) => {
      await jobs.enqueue(trx, job('pipeline.score'), t0);
      await jobs.enqueueClaimed(trx, job('pipeline.score'), t0, lease);
      await jobs.enqueue(trx, job('webhook.deliver', new Date(t0.getTime() + 60_000)), t0);
      const retrying = await jobs.enqueueClaimed(trx, job('webhook.deliver'), t0, lease);
      await jobs.retryLater(trx, retrying, new Date(t0.getTime() + 5_000), 'try again', t0);
      const failed = await jobs.enqueueClaimed(trx, job('pipeline.render_reports'), t0, lease);
      await jobs.fail(trx, failed, 'gave up', t0);
      const done = await jobs.enqueueClaimed(trx, job('pipeline.render_reports'), t0, lease);
      await jobs.complete(trx, done, t0);
      const testFailed = await jobs.enqueueClaimed(trx, job('pipeline.score', undefined, 'test'), t0, lease);
      await jobs.fail(trx, testFailed, 'simulated', t0);
      await jobs.enqueue(trx, job('pipeline.score', undefined, 'test'), t0);
    });
    clock.advance(30_000);
    metrics = new ServiceMetrics({
      queue: () => {
        reads++;
        return store.system.jobs.queueCounts(clock.date());
      },
      ready: async () => true,
      now: clock.date,
      jobTypes: ['pipeline.ingest_validate', 'pipeline.score', 'pipeline.render_reports', 'webhook.deliver'],
      info: { version: 'test', role: 'all', store: store.driver.name },
    });
  });

  afterAll(async () => {
    metrics?.close();
    await store?.close();
  });

  async function values(name: string): Promise<Map<string, number>> {
    const metric = await metrics.registry.getSingleMetric(name)?.get();
    return new Map(
      (metric?.values ?? []).map((v) => [Object.values(v.labels).join(' '), v.value] as [string, number]),
    );
  }

  it('counts each type in each state, zero included, finished jobs aside', async () => {
    const jobs = await values('healthspan_jobs');
    expect(jobs.get('live pipeline.score pending')).toBe(1);
    expect(jobs.get('live pipeline.score running')).toBe(1);
    expect(jobs.get('live webhook.deliver pending')).toBe(1);
    expect(jobs.get('live webhook.deliver retrying')).toBe(1);
    expect(jobs.get('live pipeline.render_reports failed')).toBe(1);
    expect(jobs.get('live pipeline.ingest_validate pending')).toBe(0);
    expect(jobs.get('live pipeline.render_reports running')).toBe(0);
    expect(jobs.get('live pipeline.score failed')).toBe(0);
    expect(jobs.get('test pipeline.score failed')).toBe(1);
    expect(jobs.get('test pipeline.score pending')).toBe(1);
    expect(jobs.get('test webhook.deliver pending')).toBe(0);
    // Held jobs (a deactivated account's) are counted apart: test/queue/held-jobs.full.test.ts.
    expect(jobs.get('live pipeline.score held')).toBe(0);
    // Every mode, type and state, zero included.
    expect(jobs.size).toBe(2 * 4 * 5);
    expect([...jobs.values()].reduce((a, b) => a + b, 0)).toBe(7);
  });

  it('ages the oldest due job by the clock; a job due later does not count', async () => {
    const age = await values('healthspan_job_queue_age_seconds');
    // Both modes' due jobs: test work waits for the same workers.
    expect(age.get('pipeline.score')).toBe(30);
    // Due 5 s after it was retried; the other is due in 30 s, so not waiting yet.
    expect(age.get('webhook.deliver')).toBe(25);
    expect(age.get('pipeline.render_reports')).toBe(0);
  });

  it('reads the queue once for both gauges and for scrapes within a second', async () => {
    const before = reads;
    await metrics.exposition();
    await metrics.exposition();
    expect(reads - before).toBeLessThanOrEqual(1);
  });
});
