import type { Kysely } from 'kysely';
import type { DriverName } from '../driver.js';

function types(dialect: DriverName) {
  return dialect === 'postgres'
    ? ({ ts: 'timestamptz', json: 'json', uuid: 'uuid', blob: 'bytea' } as const)
    : ({ ts: 'text', json: 'text', uuid: 'text', blob: 'blob' } as const);
}

/** Results, their report artifacts, and the artifact bytes (kept apart so listings stay small). */
export async function up(db: Kysely<unknown>, dialect: DriverName): Promise<void> {
  const t = types(dialect);

  await db.schema
    .createTable('results')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('tenant_id', t.uuid, (c) => c.notNull())
    .addColumn('submission_id', t.uuid, (c) => c.notNull().unique().references('submissions.id'))
    .addColumn('bundle', t.json, (c) => c.notNull())
    .addColumn('created_at', t.ts, (c) => c.notNull())
    .addColumn('updated_at', t.ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('results_tenant_idx').on('results').columns(['tenant_id', 'id']).execute();

  await db.schema
    .createTable('artifacts')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('tenant_id', t.uuid, (c) => c.notNull())
    .addColumn('submission_id', t.uuid, (c) => c.notNull())
    .addColumn('result_id', t.uuid, (c) => c.notNull().references('results.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('availability', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text')
    .addColumn('file_name', 'text')
    .addColumn('byte_size', 'integer')
    .addColumn('sha256', 'text')
    .addColumn('generated_at', t.ts)
    .addColumn('created_at', t.ts, (c) => c.notNull())
    .addColumn('updated_at', t.ts, (c) => c.notNull())
    .addUniqueConstraint('artifacts_result_type_uq', ['result_id', 'type'])
    .execute();

  await db.schema
    .createTable('artifact_contents')
    .addColumn('artifact_id', t.uuid, (c) => c.primaryKey().references('artifacts.id'))
    .addColumn('body', t.blob, (c) => c.notNull())
    .execute();
}
