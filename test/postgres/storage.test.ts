import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { operatorOrigin } from '../../src/store/repositories/accounts.js';
import { openTestStore } from '../helpers/store.js';

let store: Store;

beforeEach(async () => {
  store = await openTestStore();
});
afterEach(async () => {
  await store.close();
});

describe('PostgreSQL storage settings', () => {
  it('compresses stored documents with LZ4 where the server has it (0007); the packed ones are bytes (0024)', async () => {
    const db = store.driver.db;
    const { rows: setting } = await sql<{ lz4: boolean }>`
      select 'lz4' = any(enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`.execute(
      db,
    );
    const expected = setting[0]?.lz4 ? 'l' : '';
    const { rows } = await sql<{ table: string; column: string; type: string; compression: string }>`
      select c.relname as table, a.attname as column, format_type(a.atttypid, null) as type,
        a.attcompression::text as compression
      from pg_attribute a join pg_class c on c.oid = a.attrelid
      where (c.relname, a.attname) in (('submissions', 'original_body'), ('submissions', 'normalised_body'),
        ('results', 'bundle'), ('artifact_contents', 'body'), ('webhook_events', 'body'))
      order by 1, 2`.execute(db);
    // Packed by the service (store/packing/): nothing left for the server to compress.
    expect(rows).toEqual([
      { table: 'artifact_contents', column: 'body', type: 'bytea', compression: expected },
      { table: 'results', column: 'bundle', type: 'bytea', compression: '' },
      { table: 'submissions', column: 'normalised_body', type: 'bytea', compression: '' },
      { table: 'submissions', column: 'original_body', type: 'bytea', compression: '' },
      { table: 'webhook_events', column: 'body', type: 'text', compression: expected },
    ]);
  });
});

describe('commit lanes', () => {
  const txid = () =>
    store.system.batcher.submit(
      async (trx) => (await sql<{ id: string }>`select txid_current()::text as id`.execute(trx)).rows[0]!.id,
    );
  const txidUrgent = (lockKey?: string) =>
    store.system.batcher.submit(
      async (trx) => (await sql<{ id: string }>`select txid_current()::text as id`.execute(trx)).rows[0]!.id,
      { urgent: true, ...(lockKey ? { lockKey } : {}) },
    );

  it('commits queue work submitted together in one transaction on its own lane', async () => {
    const ids = await Promise.all(Array.from({ length: 6 }, () => txid()));
    expect(new Set(ids).size).toBe(1);
  });

  it('spills queue work to a second lane once many units wait behind a running transaction', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const slow = store.system.batcher.submit(async (trx) => {
      started();
      await sql`select pg_sleep(0.3)`.execute(trx);
      return (await sql<{ id: string }>`select txid_current()::text as id`.execute(trx)).rows[0]!.id;
    });
    await running;
    const ids = await Promise.all(Array.from({ length: 40 }, () => txid()));
    const perTransaction = new Map<string, number>();
    for (const id of ids) perTransaction.set(id, (perTransaction.get(id) ?? 0) + 1);
    // The first 32 wait for the busy lane's next transaction; the rest take the next lane.
    expect([...perTransaction.values()].sort((x, y) => x - y)).toEqual([8, 32]);
    expect(ids).not.toContain(await slow);
  });

  it('spreads urgent work over the ingest lanes, and keeps one key on one lane', async () => {
    const spread = await Promise.all(Array.from({ length: 4 }, () => txidUrgent()));
    expect(new Set(spread).size).toBe(4);
    const keyed = await Promise.all(Array.from({ length: 4 }, () => txidUrgent('same-key')));
    expect(new Set(keyed).size).toBe(1);
  });
});

describe('consistent reads', () => {
  it('sees one state across several statements, whatever commits between them', async () => {
    const tenant = await store.system.accounts.createTenant('T');
    const seen = await store.driver.readConsistent(async (db) => {
      const before = await db
        .selectFrom('tenants')
        .select('name')
        .where('id', '=', tenant.tenantId)
        .executeTakeFirst();
      // Committed by another connection of the pool while the read is under way.
      await store.system.accounts.setTenantActive(tenant.tenantId, false, operatorOrigin('test'));
      await sql`update tenants set name = 'renamed' where id = ${tenant.tenantId}`.execute(store.driver.db);
      const after = await db
        .selectFrom('tenants')
        .select(['name', 'active'])
        .where('id', '=', tenant.tenantId)
        .executeTakeFirst();
      return { before: before?.name, after };
    });
    expect(seen).toEqual({ before: 'T', after: { name: 'T', active: true } });
    expect((await store.system.accounts.getTenant(tenant.tenantId))?.active).toBe(false);
  });
});
