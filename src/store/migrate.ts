import {
  type Kysely,
  type Migration,
  type MigrationProvider,
  type MigrationResultSet,
  Migrator,
  sql,
} from 'kysely';
import type { SqlDialect } from './codec.js';
import type { Database } from './database.js';
import { MIGRATIONS } from './migrations/index.js';
import { isSqliteBusy } from './sqlite/busy.js';

class CodeMigrationProvider implements MigrationProvider {
  constructor(private readonly dialect: SqlDialect) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const [name, m] of Object.entries(MIGRATIONS)) {
      out[name] = {
        up: async (db) => {
          // A migration may rewrite or index a large table: lift the per-statement limit the
          // pool sets, for this migration's transaction only.
          if (this.dialect === 'postgres') await sql`set local statement_timeout = 0`.execute(db);
          await m.up(db, this.dialect);
        },
      };
    }
    return out;
  }
}

function migrator(db: Kysely<Database>, dialect: SqlDialect): Migrator {
  return new Migrator({ db, provider: new CodeMigrationProvider(dialect) });
}

export interface MigrationReport {
  applied: string[];
}

/**
 * PostgreSQL advisory lock key held (for the session) while this service migrates; tests hold it
 * to stand for another process in the middle of a migration.
 */
export const MIGRATION_LOCK_KEY = 4_127_013_599;
/** How long a process waits for another one's migration before giving up. */
const MIGRATION_LOCK_WAIT_MS = 60 * 60_000;
const MIGRATION_LOCK_POLL_MS = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs the migrator holding a lock that every process migrating the same database takes, so
 * that processes started together (several replicas with MIGRATE_ON_START, or the CLI beside
 * them) take turns: the first applies what is pending, the others then find nothing left.
 *
 * - SQLite: Kysely's migrator takes no lock there (it assumes one connection), so two processes
 *   both found a migration pending and the second failed with "table … already exists". The
 *   whole run is one `BEGIN IMMEDIATE` transaction (SQLite's DDL is transactional), which also
 *   means a migration that fails leaves no half-built schema behind.
 * - PostgreSQL: Kysely's migrator waits for its advisory lock in a single statement, which the
 *   pool's statement and query timeouts (15 s and 20 s) cut short when another process's
 *   migration takes longer. This lock is polled instead, on the connection that then migrates.
 *
 * Either way the lock is asked for again every 50 ms rather than waited for in one statement.
 */
async function migrateLocked(
  db: Kysely<Database>,
  dialect: SqlDialect,
  run: (m: Migrator) => Promise<MigrationResultSet>,
): Promise<MigrationReport> {
  const { error, results } = await db.connection().execute(async (conn) => {
    const deadline = Date.now() + MIGRATION_LOCK_WAIT_MS;
    const waitedTooLong = () =>
      new Error(
        `another process has been migrating this database for over ${MIGRATION_LOCK_WAIT_MS / 60_000} min`,
      );
    if (dialect === 'postgres') {
      for (;;) {
        const { rows } = await sql<{ locked: boolean }>`
          select pg_try_advisory_lock(${sql.lit(MIGRATION_LOCK_KEY)}) as locked`.execute(conn);
        if (rows[0]?.locked) break;
        if (Date.now() > deadline) throw waitedTooLong();
        await sleep(MIGRATION_LOCK_POLL_MS);
      }
      try {
        return await run(migrator(conn, dialect));
      } finally {
        await sql`select pg_advisory_unlock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(conn);
      }
    }
    // SQLite: the connection's busy timeout would block this thread while it waits (and with it
    // any other connection in this process); the lock is polled without it.
    const { rows } = await sql<{ timeout: number }>`pragma busy_timeout`.execute(conn);
    const busyTimeout = Number(rows[0]?.timeout ?? 0);
    await sql`pragma busy_timeout = 0`.execute(conn);
    try {
      for (;;) {
        try {
          await sql`begin immediate`.execute(conn);
          break;
        } catch (error) {
          if (!isSqliteBusy(error)) throw error;
          if (Date.now() > deadline) throw waitedTooLong();
          await sleep(MIGRATION_LOCK_POLL_MS);
        }
      }
    } finally {
      await sql.raw(`pragma busy_timeout = ${busyTimeout}`).execute(conn);
    }
    let outcome: MigrationResultSet;
    try {
      outcome = await run(migrator(conn, dialect));
    } catch (error) {
      await sql`rollback`.execute(conn);
      throw error;
    }
    if (outcome.error) await sql`rollback`.execute(conn);
    else await sql`commit`.execute(conn);
    return outcome;
  });
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

export function migrateToLatest(db: Kysely<Database>, dialect: SqlDialect): Promise<MigrationReport> {
  return migrateLocked(db, dialect, (m) => m.migrateToLatest());
}

/** Migrates up or down to `target` (a migration name): for tests that write rows at an older version. */
export function migrateTo(
  db: Kysely<Database>,
  dialect: SqlDialect,
  target: string,
): Promise<MigrationReport> {
  return migrateLocked(db, dialect, (m) => m.migrateTo(target));
}

export async function pendingMigrations(db: Kysely<Database>, dialect: SqlDialect): Promise<string[]> {
  const all = await migrator(db, dialect).getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
