import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from './database.js';
import type { StoreConfig } from './index.js';
import { isPostgresUrl, ledgerBookFor } from './index.js';
import { LedgerStateRepository } from './ledger/state.js';
import { connectPostgres } from './postgres/connect.js';
import { DatabaseUnavailableError, explainConnectFailure } from './postgres/connect-failure.js';
import { storeDamaged } from './sqlite/damaged.js';
import { sqliteFile } from './sqlite/driver.js';

/** What a look at the database without writing shows: its ledger state, and which migrations ran. */
export interface ReadOnlyView {
  ledger: LedgerStateRepository;
  migrations: Set<string>;
}

/**
 * Runs `fn` on the store `config` names without writing anything to it: the embedded store opened
 * read-only (its write-ahead log read, never folded into the file), PostgreSQL through one
 * connection that only reads. What a start checks before it migrates or opens the store for
 * writing, so that a start refused for these checks leaves the database as it found it.
 * Undefined when there is no store yet, or it predates the erasure ledger (`0021`).
 */
export async function withReadOnlyStore<T>(
  config: StoreConfig,
  logger: Logger,
  fn: (view: ReadOnlyView) => Promise<T>,
): Promise<T | undefined> {
  const opened = openReadOnly(config, logger);
  if (!opened) return undefined;
  try {
    await opened.reachable();
    const migrations = await appliedMigrations(opened.db);
    if (!migrations.has('0021_erasure_ledger')) return undefined;
    return await fn({
      ledger: new LedgerStateRepository(opened.db, () => ledgerBookFor(config)),
      migrations,
    });
  } catch (error) {
    throw opened.explain(error);
  } finally {
    await opened.db.destroy();
  }
}

interface Opened {
  db: Kysely<Database>;
  /** Throws the one sentence of a database that cannot be reached. */
  reachable: () => Promise<void>;
  /** A failure as the sentence that names it, where there is one. */
  explain: (error: unknown) => unknown;
}

function openReadOnly(config: StoreConfig, logger: Logger): Opened | undefined {
  if (isPostgresUrl(config.databaseUrl)) {
    const url = config.databaseUrl;
    const { db } = connectPostgres(url, 1, logger);
    return {
      db,
      reachable: async () => {
        try {
          await sql`select 1`.execute(db);
        } catch (error) {
          throw new DatabaseUnavailableError(explainConnectFailure(error, url));
        }
      },
      explain: (error) => error,
    };
  }
  const file = sqliteFile(config.dataDir);
  if (!fs.existsSync(file)) return undefined;
  const explain = (error: unknown) => storeDamaged(error, path.resolve(config.dataDir)) ?? error;
  let database: SqliteDatabase.Database;
  try {
    database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw explain(error);
  }
  return {
    db: new Kysely<Database>({ dialect: new SqliteDialect({ database }) }),
    reachable: async () => {},
    explain,
  };
}

async function appliedMigrations(db: Kysely<Database>): Promise<Set<string>> {
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    return new Set(rows.map((r) => r.name));
  } catch (error) {
    // No migration ever ran here: a new, empty database.
    if (/kysely_migration/.test(String((error as Error).message))) return new Set();
    throw error;
  }
}
