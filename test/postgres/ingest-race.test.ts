import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type StoreOutcome, settleHeldKey, storeOnce } from '../../src/ingest/idempotency.js';
import type { Store } from '../../src/store/index.js';
import type { IngestCommand } from '../../src/store/repositories/ingest.js';
import { ingestCommand, openSecondStore, openTestStore } from '../helpers/store.js';

// Two stores on one database, each with its own pool: what two API processes are to PostgreSQL.
let a: Store;
let b: Store;
let tenantId: string;
let partnerId: string;

beforeEach(async () => {
  a = await openTestStore();
  b = openSecondStore(a);
  tenantId = (await a.system.accounts.createTenant('T')).tenantId;
  partnerId = (await a.system.accounts.createPartner(tenantId, 'P')).partnerId;
});
afterEach(async () => {
  await b.close();
  await a.close();
});

function command(overrides: Partial<IngestCommand> = {}): IngestCommand {
  return ingestCommand({ tenantId, partnerId }, { idempotencyKeyHash: 'k', requestHash: 'h', ...overrides });
}

async function count(table: 'submissions' | 'jobs' | 'idempotency_keys'): Promise<number> {
  const row = await a.driver.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function accepted(outcomes: StoreOutcome[]) {
  return outcomes.map((o) => {
    if (o.kind === 'refused') throw new Error(`unexpected refusal: ${o.refusal.reason}`);
    return o;
  });
}

/** Ingest's decision over the store of one process (`store`): what a request there is answered. */
function ingestOn(store: Store, overrides: Partial<IngestCommand> = {}): Promise<StoreOutcome> {
  return storeOnce(store.forTenant(tenantId).submissions, command(overrides), {});
}

describe('PostgreSQL ingest across connections', () => {
  it('creates exactly one submission for identical requests racing on two connections', async () => {
    const rounds = 20;
    for (let round = 0; round < rounds; round++) {
      const key = `race-${round}`;
      const outcomes = accepted(
        await Promise.all(
          Array.from({ length: 8 }, (_, i) => ingestOn(i % 2 === 0 ? a : b, { idempotencyKeyHash: key })),
        ),
      );
      expect(outcomes.filter((o) => o.kind === 'accepted')).toHaveLength(1);
      const winner = outcomes.find((o) => o.kind === 'accepted')!;
      for (const o of outcomes) {
        expect(o.submissionId).toBe(winner.submissionId);
        expect(o.jobId).toBe(winner.jobId);
        expect(o.receivedAt).toBe(winner.receivedAt);
      }
    }
    expect(await count('submissions')).toBe(rounds);
    expect(await count('jobs')).toBe(rounds);
    expect(await count('idempotency_keys')).toBe(rounds);
  });

  it('settles keys claimed in opposite orders by two processes: each key once, no request lost', async () => {
    const keys = Array.from({ length: 12 }, (_, i) => `order-${i}`);
    // The two processes receive the same keys in opposite orders, each batching them into one
    // transaction. Taken in arrival order, each batch would hold keys the other waits for (a
    // deadlock: PostgreSQL aborts one, and its requests fail); batches take keys in key order.
    const results = await Promise.allSettled([
      ...keys.map((k) => ingestOn(a, { idempotencyKeyHash: k })),
      ...[...keys].reverse().map((k) => ingestOn(b, { idempotencyKeyHash: k })),
    ]);
    expect(
      results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason)),
    ).toEqual([]);
    const outcomes = accepted(results.map((r) => (r as PromiseFulfilledResult<StoreOutcome>).value));
    expect(outcomes.filter((o) => o.kind === 'accepted')).toHaveLength(keys.length);
    expect(new Set(outcomes.map((o) => o.submissionId)).size).toBe(keys.length);
    expect(await count('submissions')).toBe(keys.length);
    expect(await count('jobs')).toBe(keys.length);
  });

  it('answers a mismatch when another process stored a different body under the key', async () => {
    const first = await a.system.ingest.ingest(command({ idempotencyKeyHash: 'm', requestHash: 'one' }));
    expect(first.kind).toBe('created');
    const second = await b.system.ingest.ingest(command({ idempotencyKeyHash: 'm', requestHash: 'two' }));
    if (second.kind !== 'taken' || second.held.erased) throw new Error(`unexpected: ${second.kind}`);
    // The comparison sees the stored original body, byte for byte.
    expect(second.held.originalBody).toBe('{}');
    expect(settleHeldKey(second.held, { other: 'body' }).kind).toBe('mismatch');
    const same = await storeOnce(
      b.forTenant(tenantId).submissions,
      command({ idempotencyKeyHash: 'm', requestHash: 'two' }),
      {},
    );
    expect(same.kind).toBe('replayed');
  });
});
