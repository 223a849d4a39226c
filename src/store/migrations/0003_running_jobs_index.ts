import { type Kysely, sql } from 'kysely';
import type { DriverName } from '../driver.js';

/** The lease sweep looks for running jobs by lease expiry; keep that a small index scan. */
export async function up(db: Kysely<unknown>, _dialect: DriverName): Promise<void> {
  await db.schema
    .createIndex('jobs_running_lease_idx')
    .on('jobs')
    .column('locked_until')
    .where(sql.ref('status'), '=', 'running')
    .execute();
}
