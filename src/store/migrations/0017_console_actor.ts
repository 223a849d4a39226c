import type { Kysely } from 'kysely';
import type { DriverName } from '../driver.js';

/**
 * The console (issue 31). An audit event made by a console session names the session in its own
 * column, `actor_id`, beside the key that made the session's link (`actor_key_id`); events
 * recorded before this carry the session in their correlation id and are left as they are (the
 * trail is append-only). The console's erasures page lists an account's erasures newest first.
 */
export async function up(db: Kysely<unknown>, dialect: DriverName): Promise<void> {
  const uuid = dialect === 'postgres' ? 'uuid' : 'text';
  await db.schema.alterTable('audit_events').addColumn('actor_id', uuid).execute();
  await db.schema
    .createIndex('erasures_requested_idx')
    .on('erasures')
    .columns(['tenant_id', 'requested_at', 'id'])
    .execute();
}
