import { type Kysely, sql } from 'kysely';
import type { DriverName } from '../driver.js';

/**
 * The health-data lifecycle (docs/data-lifecycle.md): erasures on request, a retention period per
 * account, and the append-only audit trail. An idempotency record outlives the submission it
 * named when that is erased (it holds hashes and ids only): its submission missing is what makes
 * a replay of the key answer 410 instead of creating the submission again.
 */
export async function up(db: Kysely<unknown>, dialect: DriverName): Promise<void> {
  const t =
    dialect === 'postgres'
      ? ({ ts: 'timestamptz', uuid: 'uuid' } as const)
      : ({ ts: 'text', uuid: 'text' } as const);

  // Null: the service's RETENTION_DAYS applies; 0: keep until erased.
  await db.schema.alterTable('tenants').addColumn('retention_days', 'integer').execute();

  // A subject's submissions (erasure), and an account's oldest ones (retention).
  await db.schema
    .createIndex('submissions_subject_idx')
    .on('submissions')
    .columns(['tenant_id', 'subject_id'])
    .execute();
  await db.schema
    .createIndex('submissions_received_idx')
    .on('submissions')
    .columns(['tenant_id', 'received_at'])
    .execute();

  // Deliveries enqueued before this migration name their submission only through their event.
  const eventId =
    dialect === 'postgres' ? sql`jobs.payload->>'eventId'` : sql`json_extract(jobs.payload, '$.eventId')`;
  await sql`
    update jobs set submission_id = (
      select r.submission_id from webhook_events e join results r on r.id = e.result_id
      where ${dialect === 'postgres' ? sql`e.id::text` : sql`e.id`} = ${eventId})
    where type = 'webhook.deliver' and submission_id is null`.execute(db);

  await db.schema
    .createTable('erasures')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('tenant_id', t.uuid, (c) => c.notNull().references('tenants.id'))
    // The name-based subject id (a keyed pseudonym, not the partner's reference) finds repeats;
    // the partner's reference is kept sealed, only to be shown back (no readable copy on disk).
    .addColumn('subject_id', t.uuid, (c) => c.notNull())
    .addColumn('partner_subject_sealed', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('remaining', 'integer', (c) => c.notNull())
    .addColumn('submissions', 'integer', (c) => c.notNull())
    .addColumn('results', 'integer', (c) => c.notNull())
    .addColumn('artifacts', 'integer', (c) => c.notNull())
    .addColumn('requested_at', t.ts, (c) => c.notNull())
    .addColumn('completed_at', t.ts)
    .execute();
  await db.schema
    .createIndex('erasures_subject_idx')
    .on('erasures')
    .columns(['tenant_id', 'subject_id', 'status'])
    .execute();

  await db.schema
    .createTable('audit_events')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('tenant_id', t.uuid, (c) => c.notNull())
    .addColumn('occurred_at', t.ts, (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_key_id', t.uuid)
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('correlation_id', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('audit_events_tenant_idx')
    .on('audit_events')
    .columns(['tenant_id', 'occurred_at', 'id'])
    .execute();
  await db.schema.createIndex('audit_events_occurred_idx').on('audit_events').column('occurred_at').execute();

  // Append-only: no statement may change a recorded event. Old events are deleted by the
  // cleaner after AUDIT_RETENTION_DAYS; nothing else deletes them.
  if (dialect === 'postgres') {
    await sql`
      create function healthspan_audit_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'audit events are append-only';
      end
      $$`.execute(db);
    await sql`
      create trigger audit_events_append_only before update on audit_events
      for each row execute function healthspan_audit_append_only()`.execute(db);
  } else {
    await sql`
      create trigger audit_events_append_only before update on audit_events
      begin
        select raise(abort, 'audit events are append-only');
      end`.execute(db);
  }
}
