import type { Kysely } from 'kysely';
import type { DriverName } from '../driver.js';

/**
 * The partner's self-service API (issue 30): listing submissions and events newest first (keyset
 * indexes), what a receiver answered (the first 1 KiB of each attempt's response) and answers
 * reported by `healthspan listen`, an endpoint's status (disabled after failing for days, with
 * when and why), and recoveries of a window of failed events.
 */
export async function up(db: Kysely<unknown>, dialect: DriverName): Promise<void> {
  const t =
    dialect === 'postgres'
      ? ({ ts: 'timestamptz', uuid: 'uuid' } as const)
      : ({ ts: 'text', uuid: 'text' } as const);

  // Newest first, with the id as the tie-break of the keyset; the filters that narrow a walk.
  await db.schema
    .createIndex('submissions_list_idx')
    .on('submissions')
    .columns(['tenant_id', 'received_at', 'id'])
    .execute();
  await db.schema
    .createIndex('submissions_status_list_idx')
    .on('submissions')
    .columns(['tenant_id', 'status', 'received_at', 'id'])
    .execute();
  await db.schema
    .createIndex('submissions_partner_ref_idx')
    .on('submissions')
    .columns(['tenant_id', 'partner_submission_id'])
    .execute();

  // `no_endpoint` (none registered when it was created) or `attempts_exhausted`; null otherwise.
  await db.schema.alterTable('webhook_events').addColumn('failure_reason', 'text').execute();
  await db.schema
    .createIndex('webhook_events_list_idx')
    .on('webhook_events')
    .columns(['tenant_id', 'created_at', 'id'])
    .execute();

  // `delivery` (sent by the service) or `listen` (forwarded by `healthspan listen`, reported back).
  await db.schema
    .alterTable('webhook_attempts')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('delivery'))
    .execute();
  await db.schema.alterTable('webhook_attempts').addColumn('response_snippet', 'text').execute();

  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('enabled'))
    .execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('disabled_at', t.ts).execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('disabled_reason', 'text').execute();
  // The first failed attempt since the last delivered one; null while deliveries succeed.
  await db.schema.alterTable('webhook_endpoints').addColumn('failing_since', t.ts).execute();

  await db.schema
    .createTable('webhook_recoveries')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('tenant_id', t.uuid, (c) => c.notNull().references('tenants.id'))
    .addColumn('since', t.ts, (c) => c.notNull())
    .addColumn('until', t.ts)
    .addColumn('event_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', t.ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('webhook_recovery_events')
    .addColumn('recovery_id', t.uuid, (c) => c.notNull().references('webhook_recoveries.id'))
    .addColumn('event_id', t.uuid, (c) => c.notNull().references('webhook_events.id'))
    .addPrimaryKeyConstraint('webhook_recovery_events_pk', ['recovery_id', 'event_id'])
    .execute();
  await db.schema
    .createIndex('webhook_recovery_events_event_idx')
    .on('webhook_recovery_events')
    .column('event_id')
    .execute();
}
