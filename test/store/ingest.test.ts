import fs from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { settleHeldKey, storeOnce } from '../../src/ingest/idempotency.js';
import type { Store } from '../../src/store/index.js';
import { type IngestCommand, IngestWriter } from '../../src/store/repositories/ingest.js';
import { configureWriterConnection } from '../../src/store/sqlite/ingest-batch.js';
import { waitUntil } from '../helpers/pipeline.js';
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
    const ledger = store.forTenant(tenantId).submissions;
    const [a, b, c] = await Promise.all([
      storeOnce(ledger, command(), {}),
      storeOnce(ledger, command(), {}),
      storeOnce(ledger, command({ requestHash: 'other' }), { other: true }),
    ]);
    expect(a!.kind).toBe('accepted');
    expect(b!.kind).toBe('replayed');
    expect(c).toEqual({ kind: 'refused', refusal: { reason: 'mismatch' } });
    if (a!.kind !== 'refused' && b!.kind !== 'refused') expect(b!.submissionId).toBe(a!.submissionId);
    expect(await count('submissions')).toBe(1);
  });

  it('answers a taken key with the claim that holds it: what it was answered, and the stored body only to compare', async () => {
    const first = await store.system.ingest.ingest(command());
    if (first.kind !== 'created') throw new Error('not created');
    const { kind: _, ...accepted } = first;
    expect(await store.system.ingest.ingest(command())).toEqual({
      kind: 'taken',
      held: { erased: false, sameRequest: true, originalBody: null, accepted },
    });
    expect(
      await store.system.ingest.ingest(command({ requestHash: 'other', originalBody: '{"a":1}' })),
    ).toEqual({
      kind: 'taken',
      held: { erased: false, sameRequest: false, originalBody: '{}', accepted },
    });
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
    const taken = await writer.ingest(command({ idempotencyKeyHash: 'day', requestHash: 'changed' }));
    expect(taken.kind === 'taken' && settleHeldKey(taken.held, { changed: true }).kind).toBe('mismatch');
    now = new Date('2026-11-22T10:00:00Z');
    const later = await writer.ingest(command({ idempotencyKeyHash: 'day', requestHash: 'changed' }));
    expect(later.kind).toBe('created');
    if (first.kind === 'created' && later.kind === 'created')
      expect(later.submissionId).not.toBe(first.submissionId);
  });

  // The first claim of src/store/sqlite/README.md (and its PostgreSQL counterpart).
  it('answers a write only once its commit is on disk (SQLite: FULL on the writer thread, fdatasync before answering on the event loop; PostgreSQL: synchronous_commit and fsync on)', async () => {
    if (store.driver.name === 'sqlite') {
      const mode = await sql<{ journal_mode: string }>`PRAGMA journal_mode`.execute(store.driver.db);
      expect(mode.rows[0]?.journal_mode).toBe('wal');
      // The writer thread's connection, where submissions are committed: every commit fsync'd.
      const writer = configureWriterConnection(new SqliteDatabase(store.describe.slice('sqlite:'.length)));
      expect(writer.pragma('synchronous', { simple: true })).toBe(2);
      writer.close();
      // The event loop's connection appends a commit to the log (NORMAL) and answers its caller
      // only once the log has been flushed (fdatasync, off the event loop).
      const sync = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(store.driver.db);
      expect(sync.rows[0]?.synchronous).toBe(1);
      const held: Array<() => void> = [];
      const fdatasync = fs.fdatasync;
      const spy = vi.spyOn(fs, 'fdatasync').mockImplementation(((
        fd: number,
        callback: (error: Error | null) => void,
      ) => {
        held.push(() => fdatasync(fd, callback));
      }) as unknown as typeof fs.fdatasync);
      try {
        let answered = false;
        const write = store.system.batcher
          .submit((trx) =>
            store.system.audit.record(
              trx,
              tenantId,
              { action: 'submission.read', resourceType: 'submission', resourceId: 'r' },
              { actor: { type: 'operator', keyId: undefined }, requestId: 'q' },
              new Date(),
            ),
          )
          .then(() => {
            answered = true;
          });
        await waitUntil(async () => held.length > 0, 10_000, 'the log flush');
        expect(answered).toBe(false);
        held.shift()?.();
        await write;
        expect(answered).toBe(true);
      } finally {
        spy.mockRestore();
      }
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
