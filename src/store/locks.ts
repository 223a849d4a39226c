/**
 * PostgreSQL advisory lock keys, one per thing only one process at a time may do, and how long
 * and how often a process asks for a lock another one holds.
 */

/** Held (for the session) while a process migrates; tests hold it to stand for another process. */
export const MIGRATION_LOCK_KEY = 4_127_013_599;

/** Held (for a transaction) by the process running a maintenance service's pass. */
export const MAINTENANCE_LOCK_KEYS = {
  rescuer: 4_127_013_601,
  cleaner: 4_127_013_602,
} as const;

/** How long a process waits for another one's migration before giving up. */
const MIGRATION_LOCK_WAIT_MS = 60 * 60_000;
const LOCK_POLL_MS = 50;

/**
 * Asks for a lock every 50 ms until `tryOnce` gets it, for up to an hour: waiting inside one
 * statement would run into the pool's statement timeouts (PostgreSQL) or block the thread in
 * the busy handler (SQLite).
 */
export async function pollForMigrationLock(tryOnce: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + MIGRATION_LOCK_WAIT_MS;
  while (!(await tryOnce())) {
    if (Date.now() > deadline) {
      throw new Error(
        `another process has been migrating this database for over ${MIGRATION_LOCK_WAIT_MS / 60_000} min`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
}
