import type { Kysely } from 'kysely';
import { type Migration, type MigrationProvider, type MigrationResultSet, Migrator } from 'kysely/migration';
import type { Database } from './database.js';
import type { Driver } from './driver.js';
import { MIGRATIONS } from './migrations/index.js';

export { MIGRATION_LOCK_KEY } from './locks.js';

class CodeMigrationProvider implements MigrationProvider {
  constructor(private readonly driver: Driver) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const [name, m] of Object.entries(MIGRATIONS)) {
      out[name] = {
        up: async (db) => {
          await this.driver.beforeMigration(db);
          await m.up(db, this.driver.name);
        },
      };
    }
    return out;
  }
}

function migrator(db: Kysely<Database>, driver: Driver): Migrator {
  return new Migrator({ db, provider: new CodeMigrationProvider(driver) });
}

export interface MigrationReport {
  applied: string[];
}

/** The database holds tables that are not healthspan's and no healthspan migration ever ran there. */
export class DatabaseNotOursError extends Error {}

/** Kysely's own tables: what a database migrated by nothing but this tool may hold beside ours. */
const MIGRATOR_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);

/**
 * Refuses to create healthspan's tables in a database that holds others and was never migrated
 * by healthspan (the server's `postgres` database with something in it, another application's
 * database): healthspan wants a database of its own.
 */
async function refuseAnotherDatabase(db: Kysely<Database>, where: string): Promise<void> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  if (tables.some((t) => t.name === 'kysely_migration')) return;
  const others = tables.filter((t) => !MIGRATOR_TABLES.has(t.name)).map((t) => t.name);
  if (others.length === 0) return;
  const shown = others.slice(0, 3).join(', ') + (others.length > 3 ? `, and ${others.length - 3} more` : '');
  throw new DatabaseNotOursError(
    `the database at ${where} already holds tables that are not healthspan's (${shown}) and no healthspan migration ran there: give healthspan a database of its own (createdb healthspan; docs/postgresql.md); nothing was created`,
  );
}

/**
 * Runs the migrator holding the lock every process migrating the same database takes
 * (`Driver.withMigrationLock`), so that processes started together (several replicas with
 * MIGRATE_ON_START, or the CLI beside them) take turns: the first applies what is pending, the
 * others then find nothing left.
 */
async function migrateLocked(
  driver: Driver,
  run: (m: Migrator) => Promise<MigrationResultSet>,
): Promise<MigrationReport> {
  const { error, results } = await driver.withMigrationLock(async (conn) => {
    await refuseAnotherDatabase(conn, driver.describe);
    const outcome = await run(migrator(conn, driver));
    // A failed migration rolls back what the lock's transaction holds (SQLite's whole run).
    if (outcome.error)
      throw outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error));
    return outcome;
  });
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

export function migrateToLatest(driver: Driver): Promise<MigrationReport> {
  return migrateLocked(driver, (m) => m.migrateToLatest());
}

/** Migrates up or down to `target` (a migration name): for tests that write rows at an older version. */
export function migrateTo(driver: Driver, target: string): Promise<MigrationReport> {
  return migrateLocked(driver, (m) => m.migrateTo(target));
}

export async function pendingMigrations(driver: Driver): Promise<string[]> {
  const all = await migrator(driver.db, driver).getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
