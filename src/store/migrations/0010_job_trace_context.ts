import type { Kysely } from 'kysely';
import type { DriverName } from '../driver.js';

/**
 * A job carries the trace context of the work that enqueued it (a W3C `traceparent`, pg-boss
 * style), so its attempt continues that trace: one trace per submission, from the request to the
 * callback. Null when tracing was off at enqueue.
 */
export async function up(db: Kysely<unknown>, _dialect: DriverName): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('traceparent', 'text').execute();
}
