import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Cleaner } from '../../src/queue/maintenance/cleaner.js';
import type { Store } from '../../src/store/index.js';
import { ManualClock } from '../helpers/clock.js';
import { ingestCommand, openTestStore } from '../helpers/store.js';

/** Retention by policy: the cleaner erases what is older than the account's period, on an injected clock. */

const DAY = 24 * 60 * 60 * 1000;
let store: Store;

beforeEach(async () => {
  store = await openTestStore();
});
afterEach(async () => {
  await store.close();
});

async function account(name: string) {
  const tenantId = (await store.system.accounts.createTenant(name)).tenantId;
  const partnerId = (await store.system.accounts.createPartner(tenantId, name)).partnerId;
  return { tenantId, partnerId };
}

async function ingest(a: { tenantId: string; partnerId: string }, key: string, at: Date): Promise<string> {
  const outcome = await store.system.ingest.ingest({
    ...ingestCommand(a, { idempotencyKeyHash: key, partnerSubjectId: `subject-${key}` }),
    receivedAt: at,
  });
  if (outcome.kind !== 'created') throw new Error(`not created: ${outcome.kind}`);
  return outcome.submissionId;
}

const submissionsOf = async (tenantId: string) =>
  (
    await store.driver.db.selectFrom('submissions').select('id').where('tenant_id', '=', tenantId).execute()
  ).map((r) => r.id);

describe('retention', () => {
  it('erases submissions past the service’s period or the account’s own, and keeps what is set to keep', async () => {
    const clock = new ManualClock();
    const byDefault = await account('default');
    const keeps = await account('keeps');
    const short = await account('short');
    await store.system.accounts.setRetention(keeps.tenantId, 0);
    await store.system.accounts.setRetention(short.tenantId, 2);
    const ids = {
      byDefault: await ingest(byDefault, 'd', clock.date()),
      keeps: await ingest(keeps, 'k', clock.date()),
      short: await ingest(short, 's', clock.date()),
    };
    const cleaner = new Cleaner({ store: store.system, clock: clock.date, retentionDays: 30 });

    clock.advance(2 * DAY - 1);
    expect((await cleaner.runOnce()).expiredSubmissions).toBe(0);
    clock.advance(2);
    expect((await cleaner.runOnce()).expiredSubmissions).toBe(1);
    expect(await submissionsOf(short.tenantId)).toEqual([]);
    expect(await submissionsOf(byDefault.tenantId)).toEqual([ids.byDefault]);
    // Its jobs went with it.
    const jobs = await store.driver.db
      .selectFrom('jobs')
      .select('id')
      .where('submission_id', '=', ids.short)
      .execute();
    expect(jobs).toEqual([]);

    clock.advance(28 * DAY);
    expect((await cleaner.runOnce()).expiredSubmissions).toBe(1);
    expect(await submissionsOf(byDefault.tenantId)).toEqual([]);
    expect(await submissionsOf(keeps.tenantId)).toEqual([ids.keeps]);

    const expired = await store.system.audit.list(short.tenantId, {
      limit: 10,
      action: 'submission.expired',
    });
    expect(expired.items).toEqual([
      expect.objectContaining({
        resourceId: ids.short,
        actor: { type: 'system' },
        resourceType: 'submission',
      }),
    ]);
  });

  it('keeps everything with the default period of 0, and erases in short transactions however much is due', async () => {
    const clock = new ManualClock();
    const a = await account('many');
    for (let i = 0; i < 12; i++) await ingest(a, `m${i}`, clock.date());
    clock.advance(365 * DAY);
    expect((await new Cleaner({ store: store.system, clock: clock.date }).runOnce()).expiredSubmissions).toBe(
      0,
    );
    expect(await submissionsOf(a.tenantId)).toHaveLength(12);

    // A budget of 0 ms: each transaction erases one submission and stops; the pass goes on until none is left.
    const transactions: number[] = [];
    const batcher = store.system.batcher;
    const counting = {
      ...store.system,
      batcher: {
        submit: <T>(work: Parameters<typeof batcher.submit<T>>[0]) => {
          transactions.push(1);
          return batcher.submit(work);
        },
        drain: () => batcher.drain(),
      },
    };
    const cleaner = new Cleaner({
      store: counting,
      clock: clock.date,
      retentionDays: 30,
      erasureBudgetMs: 0,
    });
    expect((await cleaner.runOnce()).expiredSubmissions).toBe(12);
    expect(await submissionsOf(a.tenantId)).toEqual([]);
    // Twelve erasing transactions (and one that found none left), then the bookkeeping batch.
    expect(transactions.length).toBeGreaterThanOrEqual(12);
  });

  it('deletes audit events past AUDIT_RETENTION_DAYS', async () => {
    const clock = new ManualClock();
    const a = await account('audited');
    await ingest(a, 'x', clock.date());
    expect((await store.system.audit.list(a.tenantId, { limit: 10 })).items).toHaveLength(1);
    const cleaner = new Cleaner({ store: store.system, clock: clock.date, auditRetentionDays: 10 });
    clock.advance(10 * DAY - 1);
    expect((await cleaner.runOnce()).auditEvents).toBe(0);
    clock.advance(2);
    expect((await cleaner.runOnce()).auditEvents).toBe(1);
    expect((await store.system.audit.list(a.tenantId, { limit: 10 })).items).toEqual([]);
  });
});
