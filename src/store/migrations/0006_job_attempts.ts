import { type Kysely, sql } from 'kysely';
import type { DriverName } from '../driver.js';

/**
 * One row per attempt of a job: which worker ran it, from when to when, and how it ended. The
 * jobs table keeps only the latest state; this is the history that shows no attempt ever ran
 * on two workers at once, and what happened to a job that was retried or rescued.
 *
 * Kept by triggers on `jobs`, in the transaction of the write that starts or ends an attempt:
 * no writer can forget it, and on PostgreSQL it costs no extra round trip. An attempt starts
 * when a job becomes `running` (claimed, or enqueued already claimed) and ends when it leaves
 * `running`: `completed`, `retrying`, `failed`, or `released` (handed back at shutdown, the
 * attempt not counted, so its number is used again).
 */
export async function up(db: Kysely<unknown>, dialect: DriverName): Promise<void> {
  const t =
    dialect === 'postgres'
      ? ({ ts: 'timestamptz', uuid: 'uuid' } as const)
      : ({ ts: 'text', uuid: 'text' } as const);
  await db.schema
    .createTable('job_attempts')
    .addColumn('id', 'integer', (c) =>
      dialect === 'postgres' ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement(),
    )
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

  if (dialect === 'postgres') {
    await sql`
      create function healthspan_job_attempts() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' and old.status = 'running' and old.locked_by is not null
           and (new.status <> 'running' or new.locked_by is distinct from old.locked_by) then
          update job_attempts set finished_at = clock_timestamp(),
            outcome = case when new.status = 'pending' then 'released' else new.status end
          where job_id = old.id and attempt = old.attempts and worker_id = old.locked_by
            and finished_at is null;
        end if;
        if new.status = 'running' and new.locked_by is not null
           and (tg_op = 'INSERT' or old.status <> 'running' or new.locked_by is distinct from old.locked_by) then
          insert into job_attempts (job_id, attempt, worker_id, started_at)
          values (new.id, new.attempts, new.locked_by, clock_timestamp());
        end if;
        return null;
      end
      $$`.execute(db);
    await sql`
      create trigger jobs_attempts after insert or update of status, locked_by on jobs
      for each row execute function healthspan_job_attempts()`.execute(db);
    return;
  }
  const now = sql.raw(`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`);
  await sql`
    create trigger jobs_attempt_ended after update of status, locked_by on jobs
    when old.status = 'running' and old.locked_by is not null
      and (new.status <> 'running' or new.locked_by is not old.locked_by)
    begin
      update job_attempts set finished_at = ${now},
        outcome = case when new.status = 'pending' then 'released' else new.status end
      where job_id = old.id and attempt = old.attempts and worker_id = old.locked_by
        and finished_at is null;
    end`.execute(db);
  await sql`
    create trigger jobs_attempt_claimed after update of status, locked_by on jobs
    when new.status = 'running' and new.locked_by is not null
      and (old.status <> 'running' or new.locked_by is not old.locked_by)
    begin
      insert into job_attempts (job_id, attempt, worker_id, started_at)
      values (new.id, new.attempts, new.locked_by, ${now});
    end`.execute(db);
  await sql`
    create trigger jobs_attempt_enqueued_claimed after insert on jobs
    when new.status = 'running' and new.locked_by is not null
    begin
      insert into job_attempts (job_id, attempt, worker_id, started_at)
      values (new.id, new.attempts, new.locked_by, ${now});
    end`.execute(db);
}
