import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { SqlDialect } from './codec.js';
import type { Database } from './database.js';
import { clientConfig, connectPostgres, describePostgres } from './postgres/connect.js';
import { retryWhileBusy } from './sqlite/busy.js';

export interface StoreConnection {
  db: Kysely<Database>;
  dialect: SqlDialect;
  /** The embedded store's single connection, for the prepared-statement hot paths. */
  sqlite?: SqliteDatabase.Database;
  /** PostgreSQL: how to open a dedicated connection outside the pool (the job listener). */
  postgres?: { clientConfig: pg.ClientConfig };
  /**
   * Runs several reads that must see one state of the database (a submission and its jobs).
   * PostgreSQL: one REPEATABLE READ transaction (at READ COMMITTED each statement would see the
   * commits made since the last). SQLite: as they are: better-sqlite3 runs each statement
   * synchronously on the one connection, and nothing commits between them, since writes commit
   * only on a later turn of the event loop.
   */
  readConsistent<T>(fn: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  /** Human description for logs: never contains credentials. */
  describe: string;
  close(): Promise<void>;
}

export interface ConnectOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
  /** PostgreSQL pool size (connections per process at most). */
  poolSize: number;
  logger: Logger;
}

export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'healthspan.sqlite');
}

export function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\//.test(url);
}

export function connectStore(options: ConnectOptions): StoreConnection {
  if (isPostgresUrl(options.databaseUrl)) {
    const url = options.databaseUrl;
    const { db } = connectPostgres(url, options.poolSize, options.logger);
    return {
      db,
      dialect: 'postgres',
      postgres: { clientConfig: clientConfig(url) },
      readConsistent: (fn) => db.transaction().setIsolationLevel('repeatable read').execute(fn),
      describe: describePostgres(url),
      close: () => db.destroy(),
    };
  }
  if (options.databaseUrl) throw new Error('DATABASE_URL must start with postgres:// or postgresql://');
  fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const file = sqliteFile(options.dataDir);
  const sqlite = new SqliteDatabase(file);
  // The CLI may write while the server runs: wait for the lock instead of failing.
  sqlite.pragma('busy_timeout = 5000');
  // WAL lets readers run beside the writer; FULL makes every acknowledged commit survive power
  // loss. Two processes opening a fresh file both switch it, and SQLite refuses the loser at
  // once ("database is locked") instead of waiting: ask again.
  retryWhileBusy(() => sqlite.pragma('journal_mode = WAL'), 5000);
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');

  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return {
    db,
    dialect: 'sqlite',
    sqlite,
    readConsistent: (fn) => fn(db),
    describe: `sqlite:${file}`,
    close: () => db.destroy(),
  };
}
