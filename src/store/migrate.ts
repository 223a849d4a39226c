import type { Kysely, Migration, MigrationProvider, MigrationResultSet } from 'kysely';
import { Migrator } from 'kysely';
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
