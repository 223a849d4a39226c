import type { Kysely } from 'kysely';
import type { DriverName } from '../driver.js';

/**
 * Erasures under faults (issue 46). `erasure_ledger_state.replay_since`: set by a replay of the
 * erasure ledger in the transaction that first moves the database's position, cleared once every
 * pending erasure completed; while it is set the service refuses to start, so a replay killed
 * after the position moved and before the erasures finished is never served (the start says to
 * run the replay again). `erasures.ledger_completed_seq`: the ledger already holds this erasure's
 * `completed` entry (a replayed erasure whose original completed), so completing it here appends
 * no second one. Both are nullable columns without a default: no table is rewritten.
 */
export async function up(db: Kysely<unknown>, dialect: DriverName): Promise<void> {
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text';
  await db.schema.alterTable('erasure_ledger_state').addColumn('replay_since', ts).execute();
  await db.schema.alterTable('erasures').addColumn('ledger_completed_seq', 'integer').execute();
}
