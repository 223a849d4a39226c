import { type Kysely, sql } from 'kysely';
import type { DriverName } from '../driver.js';
import { JOBS_CHANNEL } from '../postgres/jobs-channel.js';

/**
 * PostgreSQL: every job that becomes `pending` (enqueued, or handed back at shutdown) sends a
 * notification from the transaction that wrote it, so it is delivered only if that transaction
 * commits, and to every listening worker process. A trigger rather than a call in each writer:
 * no enqueue path can forget it, and it costs no extra round trip. Notifications with the same
 * payload are merged within a transaction, so a batch of ingests sends one. SQLite has a single
 * process and wakes its worker in memory.
 */
export async function up(db: Kysely<unknown>, dialect: DriverName): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`
    create function healthspan_jobs_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify(${sql.lit(JOBS_CHANNEL)}, '');
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger jobs_notify after insert or update of status on jobs
    for each row when (new.status = 'pending')
    execute function healthspan_jobs_notify()`.execute(db);
}
