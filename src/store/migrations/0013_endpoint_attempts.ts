import type { Kysely } from 'kysely';
import type { DriverName } from '../driver.js';

/**
 * `GET /v1/webhook-endpoint` counts an endpoint's attempts of the last 24 hours (delivered,
 * failed): by partner and time, an index range rather than a scan of every attempt.
 */
export async function up(db: Kysely<unknown>, _dialect: DriverName): Promise<void> {
  await db.schema
    .createIndex('webhook_attempts_partner_time_idx')
    .on('webhook_attempts')
    .columns(['partner_id', 'started_at'])
    .execute();
}
