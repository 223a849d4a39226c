import type { Kysely } from 'kysely';
import type { DriverName } from '../driver.js';

/**
 * The audit trail searched by a partner's reference (the console's audit search and
 * `GET /v1/audit-events?partnerSubmissionId=`): the reference resolves to a few resource ids,
 * and without an index on them the page walked the account's whole `(tenant_id, occurred_at)`
 * range and filtered each row, a full scan of 30 days of events for a search that finds
 * none. With `(tenant_id, resource_id)` it reads just the events of those resources. The cost
 * is one index entry per event, written once: events are never updated.
 */
export async function up(db: Kysely<unknown>, _dialect: DriverName): Promise<void> {
  await db.schema
    .createIndex('audit_events_resource_idx')
    .on('audit_events')
    .columns(['tenant_id', 'resource_id'])
    .execute();
}
