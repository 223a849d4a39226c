import { type Kysely, sql } from 'kysely';
import type { DriverName } from '../driver.js';

/**
 * The test events stream's order (issue 40): each event gets a place assigned so that a stream
 * reading in that order never passes an event that commits later.
 *
 * - PostgreSQL: `listen_position` is the inserting transaction's id (`pg_current_xact_id()`, a
 *   64-bit `xid8`, set by the column's default). The stream reads only positions below its
 *   snapshot's xmin: every transaction that could still commit an event there has finished. The
 *   default is set after the column is added, so existing rows keep null (no table rewrite) and
 *   are never streamed; a stream opened after the upgrade starts after them anyway.
 * - SQLite: one write transaction at a time, so a number taken from a counter row inside the
 *   inserting transaction is in commit order. A counter, not `max(...) + 1`: an erased newest
 *   event would give its number to the next one, behind a stream that had passed it.
 */
export async function up(db: Kysely<unknown>, dialect: DriverName): Promise<void> {
  if (dialect === 'postgres') {
    await sql`ALTER TABLE webhook_events ADD COLUMN listen_position xid8`.execute(db);
    await sql`ALTER TABLE webhook_events ALTER COLUMN listen_position SET DEFAULT pg_current_xact_id()`.execute(
      db,
    );
  } else {
    await db.schema.alterTable('webhook_events').addColumn('listen_position', 'integer').execute();
    await db.schema
      .createTable('listen_counter')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('position', 'integer', (c) => c.notNull())
      .execute();
    await sql`INSERT INTO listen_counter (id, position) VALUES (1, 0)`.execute(db);
  }
  await db.schema
    .createIndex('webhook_events_listen_idx')
    .on('webhook_events')
    .columns(['tenant_id', 'listen_position', 'id'])
    .execute();
}
