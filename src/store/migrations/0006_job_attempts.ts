import type { Kysely } from 'kysely';
import type { SqlDialect } from '../codec.js';

/**
 * One row per attempt of a job: which worker ran it, from when to when, and how it ended. The
 * jobs table keeps only the latest state; this is the history that shows no attempt ever ran
 * on two workers at once, and what happened to a job that was retried or rescued.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t =
    dialect === 'postgres'
      ? ({ ts: 'timestamptz', uuid: 'uuid' } as const)
      : ({ ts: 'text', uuid: 'text' } as const);
  await db.schema
    .createTable('job_attempts')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('job_id', t.uuid, (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('worker_id', 'text', (c) => c.notNull())
    .addColumn('started_at', t.ts, (c) => c.notNull())
    .addColumn('finished_at', t.ts)
    .addColumn('outcome', 'text')
    .execute();
  await db.schema
    .createIndex('job_attempts_job_idx')
    .on('job_attempts')
    .columns(['job_id', 'attempt'])
    .execute();
}
