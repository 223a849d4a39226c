import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { SqlDialect } from './codec.js';
import type { Database } from './database.js';
import { MIGRATIONS } from './migrations/index.js';

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

export async function migrateToLatest(db: Kysely<Database>, dialect: SqlDialect): Promise<MigrationReport> {
  const { error, results } = await migrator(db, dialect).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

export async function pendingMigrations(db: Kysely<Database>, dialect: SqlDialect): Promise<string[]> {
  const all = await migrator(db, dialect).getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
