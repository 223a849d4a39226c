import { type Kysely, sql } from 'kysely';
import type { DriverName } from '../driver.js';

/**
 * Column types per dialect, so one migration describes both stores. JSON we write ourselves is
 * `json` on PostgreSQL, not `jsonb`: it is checked on the way in and kept exactly as written
 * (key order included, which reports render in), and nothing queries inside it.
 */
function types(dialect: DriverName) {
  return dialect === 'postgres'
    ? ({ ts: 'timestamptz', bool: 'boolean', json: 'json', uuid: 'uuid' } as const)
    : ({ ts: 'text', bool: 'integer', json: 'text', uuid: 'text' } as const);
}

export async function up(db: Kysely<unknown>, dialect: DriverName): Promise<void> {
  const t = types(dialect);

  await db.schema
    .createTable('tenants')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('active', t.bool, (c) => c.notNull())
    .addColumn('created_at', t.ts, (c) => c.notNull())
    .addColumn('updated_at', t.ts, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('partners')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('tenant_id', t.uuid, (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', t.ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('partners_tenant_idx').on('partners').column('tenant_id').execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('partner_id', t.uuid, (c) => c.notNull().references('partners.id'))
    .addColumn('tenant_id', t.uuid, (c) => c.notNull().references('tenants.id'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', t.ts, (c) => c.notNull())
    .addColumn('expires_at', t.ts)
    .addColumn('revoked_at', t.ts)
    .execute();

  await db.schema
    .createTable('auth_state')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('epoch', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into auth_state (id, epoch) values (1, 0)`.execute(db);

  await db.schema
    .createTable('submissions')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('tenant_id', t.uuid, (c) => c.notNull().references('tenants.id'))
    .addColumn('partner_id', t.uuid, (c) => c.notNull().references('partners.id'))
    .addColumn('subject_id', t.uuid, (c) => c.notNull())
    .addColumn('partner_submission_id', 'text', (c) => c.notNull())
    .addColumn('partner_subject_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('correlation_id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    // Text on both stores: the original is the partner's bytes as received (a JSON type would
    // refuse what JavaScript accepts, such as a lone surrogate escape), and the normalised body
    // is read back as text by the pipeline.
    .addColumn('original_body', 'text', (c) => c.notNull())
    .addColumn('normalised_body', 'text', (c) => c.notNull())
    .addColumn('document_count', 'integer', (c) => c.notNull())
    .addColumn('marker_count', 'integer', (c) => c.notNull())
    .addColumn('received_at', t.ts, (c) => c.notNull())
    .addColumn('created_at', t.ts, (c) => c.notNull())
    .addColumn('updated_at', t.ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('submissions_tenant_created_idx')
    .on('submissions')
    .columns(['tenant_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('tenant_id', t.uuid, (c) => c.notNull())
    .addColumn('submission_id', t.uuid)
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('payload', t.json)
    .addColumn('correlation_id', 'text')
    .addColumn('request_id', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_at', t.ts, (c) => c.notNull())
    .addColumn('locked_until', t.ts)
    .addColumn('locked_by', 'text')
    .addColumn('queued_at', t.ts, (c) => c.notNull())
    .addColumn('accepted_at', t.ts, (c) => c.notNull())
    .addColumn('started_at', t.ts)
    .addColumn('completed_at', t.ts)
    .addColumn('failed_at', t.ts)
    .addColumn('sla_deadline_at', t.ts)
    .addColumn('error_summary', 'text')
    .addColumn('created_at', t.ts, (c) => c.notNull())
    .addColumn('updated_at', t.ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_submission_idx').on('jobs').column('submission_id').execute();
  // The queue claims by (status, run_at); a partial index keeps it small as finished jobs pile up.
  await db.schema
    .createIndex('jobs_claim_idx')
    .on('jobs')
    .columns(['run_at'])
    .where(sql.ref('status'), 'in', ['pending', 'retrying'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('partner_id', t.uuid, (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('submission_id', t.uuid, (c) => c.notNull())
    .addColumn('job_id', t.uuid, (c) => c.notNull())
    .addColumn('created_at', t.ts, (c) => c.notNull())
    .addColumn('expires_at', t.ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['partner_id', 'key_hash'])
    .execute();
  await db.schema
    .createIndex('idempotency_expires_idx')
    .on('idempotency_keys')
    .column('expires_at')
    .execute();
}
