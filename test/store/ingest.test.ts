import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { type IngestCommand, IngestWriter } from '../../src/store/repositories/ingest.js';
import { ingestCommand, openTestStore } from '../helpers/store.js';

let store: Store;
let partnerId: string;
let tenantId: string;

beforeEach(async () => {
  store = await openTestStore({ jobMaxAttempts: 5 });
  const tenant = await store.system.accounts.createTenant('T');
  tenantId = tenant.tenantId;
  partnerId = (await store.system.accounts.createPartner(tenantId, 'P')).partnerId;
});
afterEach(async () => {
  await store.close();
});

function command(overrides: Partial<IngestCommand> = {}): IngestCommand {
  return ingestCommand(
    { tenantId, partnerId },
    { idempotencyKeyHash: 'k1', requestHash: 'h1', ...overrides },
  );
}

async function count(table: 'submissions' | 'jobs' | 'idempotency_keys'): Promise<number> {
  const row = await store.driver.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('IngestWriter', () => {
  it('commits many commands of one event-loop turn together, each with its submission and job', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        store.system.ingest.ingest(command({ idempotencyKeyHash: `k${i}` })),
      ),
    );
    expect(outcomes.every((o) => o.kind === 'created')).toBe(true);
    expect(await count('submissions')).toBe(50);
    expect(await count('jobs')).toBe(50);
  });

  it('resolves duplicates inside one batch to the first submission', async () => {
    const [a, b, c] = await Promise.all([
      store.system.ingest.ingest(command()),
      store.system.ingest.ingest(command()),
      store.system.ingest.ingest(command({ requestHash: 'other' })),
    ]);
    expect(a!.kind).toBe('created');
    expect(b!.kind).toBe('replayed');
    expect(c!.kind).toBe('mismatch');
    if (a!.kind !== 'mismatch' && a!.kind !== 'erased' && b!.kind !== 'mismatch' && b!.kind !== 'erased')
      expect(b!.submissionId).toBe(a!.submissionId);
    expect(await count('submissions')).toBe(1);
  });

  it('does not let one failing command fail the others in its batch', async () => {
    const results = await Promise.allSettled([
      store.system.ingest.ingest(command({ idempotencyKeyHash: 'ok-1' })),
      store.system.ingest.ingest(
        command({ idempotencyKeyHash: 'bad', tenantId: '00000000-0000-4000-8000-000000000000' }),
      ),
      store.system.ingest.ingest(command({ idempotencyKeyHash: 'ok-2' })),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await count('submissions')).toBe(2);
    // The failed command left nothing behind, not even its idempotency claim.
    expect(await count('idempotency_keys')).toBe(2);
  });

  it('frees a key after 24 hours', async () => {
    let now = new Date('2026-11-21T10:00:00Z');
    const writer = new IngestWriter(
      store.driver,
      store.system.batcher,
      { idempotencyTtlMs: 24 * 3600 * 1000, slaSeconds: 300, maxAttempts: 5 },
      () => now,
      store.system.audit,
    );
    const first = await writer.ingest(command({ idempotencyKeyHash: 'day' }));
    now = new Date('2026-11-22T09:59:59Z');
    expect((await writer.ingest(command({ idempotencyKeyHash: 'day', requestHash: 'changed' }))).kind).toBe(
      'mismatch',
    );
    now = new Date('2026-11-22T10:00:00Z');
    const later = await writer.ingest(command({ idempotencyKeyHash: 'day', requestHash: 'changed' }));
    expect(later.kind).toBe('created');
    if (first.kind === 'created' && later.kind === 'created')
      expect(later.submissionId).not.toBe(first.submissionId);
  });

  it('commits durably, so an acknowledged ingest survives power loss', async () => {
    if (store.driver.name === 'sqlite') {
      // synchronous=FULL with WAL: every commit is fsync'd.
      const sync = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(store.driver.db);
      expect(sync.rows[0]?.synchronous).toBe(2);
      const mode = await sql<{ journal_mode: string }>`PRAGMA journal_mode`.execute(store.driver.db);
      expect(mode.rows[0]?.journal_mode).toBe('wal');
    } else {
      // A commit returns only once its WAL record is flushed: nothing in our sessions relaxes it.
      const commit = await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(
        store.driver.db,
      );
      expect(commit.rows[0]?.synchronous_commit).toBe('on');
      const fsync = await sql<{ fsync: string }>`show fsync`.execute(store.driver.db);
      expect(fsync.rows[0]?.fsync).toBe('on');
    }
  });
});
