import { type Kysely, sql } from 'kysely';
import type { DriverName } from '../driver.js';

/**
 * Database growth per submission (issue 41, docs/performance-journal.md 2026-11-28).
 *
 * Two indexes on `submissions` that no query needs: `(tenant_id, created_at)` (nothing filters
 * submissions by `created_at`) and `(tenant_id, received_at)`, a prefix of
 * `submissions_list_idx (tenant_id, received_at, id)`, which serves retention's scan as well.
 * A submission's status changes three times and `status` is indexed, so each change writes a
 * new entry into every index: two fewer indexes, two fewer entries per change.
 *
 * PostgreSQL: the bodies leave the row. Compressed, the two bodies (about 2.5 kB) stayed inside
 * the row, so each status change copied them into a new row version; moved out of line
 * (`toast_tuple_target` at its minimum), a change copies a row of about 250 bytes and the
 * bodies, written once, are shared by every version. Only rows written from now on move.
 */
export async function up(db: Kysely<unknown>, dialect: DriverName): Promise<void> {
  await db.schema.dropIndex('submissions_tenant_created_idx').execute();
  await db.schema.dropIndex('submissions_received_idx').execute();
  if (dialect === 'postgres') {
    await sql`alter table submissions set (toast_tuple_target = 128)`.execute(db);
  }
}
