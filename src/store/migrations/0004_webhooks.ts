import type { Kysely } from 'kysely';
import type { DriverName } from '../driver.js';

function types(dialect: DriverName) {
  return dialect === 'postgres'
    ? ({ ts: 'timestamptz', uuid: 'uuid' } as const)
    : ({ ts: 'text', uuid: 'text' } as const);
}

/**
 * Callback endpoints (one per partner credential), their signing secrets (encrypted, with the
 * time each takes effect), the `result.ready` events (the outbox: written in the transaction
 * that completes a result) and every delivery attempt.
 */
export async function up(db: Kysely<unknown>, dialect: DriverName): Promise<void> {
  const t = types(dialect);

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('partner_id', t.uuid, (c) => c.primaryKey().references('partners.id'))
    .addColumn('tenant_id', t.uuid, (c) => c.notNull().references('tenants.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('api_key_sealed', 'text')
    .addColumn('api_key_header', 'text')
    .addColumn('created_at', t.ts, (c) => c.notNull())
    .addColumn('updated_at', t.ts, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('webhook_secrets')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('partner_id', t.uuid, (c) => c.notNull().references('partners.id'))
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('activates_at', t.ts, (c) => c.notNull())
    .addColumn('created_at', t.ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_secrets_partner_idx')
    .on('webhook_secrets')
    .columns(['partner_id', 'activates_at'])
    .execute();

  await db.schema
    .createTable('webhook_events')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('tenant_id', t.uuid, (c) => c.notNull().references('tenants.id'))
    .addColumn('partner_id', t.uuid, (c) => c.notNull().references('partners.id'))
    .addColumn('result_id', t.uuid, (c) => c.notNull().unique().references('results.id'))
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('delivered_at', t.ts)
    .addColumn('created_at', t.ts, (c) => c.notNull())
    .addColumn('updated_at', t.ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_events_partner_idx')
    .on('webhook_events')
    .columns(['partner_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('delivery_id', t.uuid, (c) => c.primaryKey())
    .addColumn('event_id', t.uuid, (c) => c.notNull().references('webhook_events.id'))
    .addColumn('partner_id', t.uuid, (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('started_at', t.ts, (c) => c.notNull())
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error_class', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_attempts_event_idx')
    .on('webhook_attempts')
    .columns(['event_id', 'started_at'])
    .execute();
}
