import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { DriverName } from '../driver.js';

/**
 * Backup and restore (issue 39). One row: the database's identity (a backup's manifest names it)
 * and its position in the erasure ledger, a file kept apart from the database
 * (`store/erasure-ledger.ts`): the highest ledger entry whose erasure this database has applied
 * and that entry's MAC (`updated_at` is the epoch until the first entry). A restored database whose position is behind its ledger misses erasures
 * made since its backup, and the service refuses it until they are replayed.
 */
export async function up(db: Kysely<unknown>, dialect: DriverName): Promise<void> {
  const t =
    dialect === 'postgres'
      ? ({ ts: 'timestamptz', uuid: 'uuid' } as const)
      : ({ ts: 'text', uuid: 'text' } as const);
  await db.schema
    .createTable('erasure_ledger_state')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('store_id', t.uuid, (c) => c.notNull())
    .addColumn('applied_seq', 'integer', (c) => c.notNull())
    .addColumn('head', 'text', (c) => c.notNull())
    .addColumn('updated_at', t.ts, (c) => c.notNull())
    .execute();
  await sql`insert into erasure_ledger_state (id, store_id, applied_seq, head, updated_at)
    values (1, ${randomUUID()}, 0, '', '1970-01-01T00:00:00.000Z')`.execute(db);
}
