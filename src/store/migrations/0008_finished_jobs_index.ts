import { type Kysely, sql } from 'kysely';
import type { DriverName } from '../driver.js';

/**
 * The cleaner deletes finished jobs oldest first by the time they finished (`updated_at`, which
 * a finished job never changes again): a partial index keeps that a short index scan, however
 * many jobs are still to come.
 */
export async function up(db: Kysely<unknown>, _driver: DriverName): Promise<void> {
  await db.schema
    .createIndex('jobs_finished_idx')
    .on('jobs')
    .column('updated_at')
    .where(sql.ref('status'), 'in', ['completed', 'failed'])
    .execute();
}
