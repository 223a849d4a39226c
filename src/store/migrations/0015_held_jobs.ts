import { type Kysely, sql } from 'kysely';
import type { DriverName } from '../driver.js';

/**
 * Jobs of a deactivated account wait in status `held` (issue 32): out of the claim's partial
 * index, and in this one, by account, so that reactivation finds them and the queue gauge
 * counts them with an index scan however many finished jobs are kept.
 */
export async function up(db: Kysely<unknown>, _driver: DriverName): Promise<void> {
  await db.schema
    .createIndex('jobs_held_idx')
    .on('jobs')
    .column('tenant_id')
    .where(sql.ref('status'), '=', 'held')
    .execute();
}
