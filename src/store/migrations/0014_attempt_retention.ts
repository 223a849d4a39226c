import type { Kysely } from 'kysely';
import type { DriverName } from '../driver.js';

/**
 * The cleaner deletes delivery attempts (and the receiver's answers they keep) older than
 * `WEBHOOK_ATTEMPT_RETENTION`, oldest first, a batch at a time: by time, an index range rather
 * than a scan of every attempt on each pass.
 */
export async function up(db: Kysely<unknown>, _dialect: DriverName): Promise<void> {
  await db.schema
    .createIndex('webhook_attempts_started_idx')
    .on('webhook_attempts')
    .column('started_at')
    .execute();
}
