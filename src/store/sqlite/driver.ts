import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { CommitBatcher } from '../commit-batcher.js';
import type { Database } from '../database.js';
import type { AvailableArtifactValues, ClaimedRow, Driver } from '../driver.js';
import { pollForMigrationLock } from '../locks.js';
import { type Executor, type NamedQuery, namedQuery } from '../prepared.js';
import type { ArtifactRow, ResultRow } from '../rows.js';
import {
  availableValues,
  CLAIMED_COLUMNS,
  dueJobs,
  heldBy,
  insertArtifact,
  insertResultIfAbsent,
  LEASE,
  markArtifactAvailable,
  touchResult,
} from '../statements.js';
import { isSqliteBusy, retryWhileBusy } from './busy.js';
import { SqliteChangeWatcher } from './change-watcher.js';
import { SqliteConnection, sqliteDialect } from './connection.js';
import { IngestThread } from './ingest-thread.js';
import { SqlitePreparedRunner } from './prepared-runner.js';
import { WalSync } from './wal-sync.js';
import { WriteTurns } from './write-turns.js';

/** 80 MB of log (SQLite's default is 1,000 pages, 4 MB). */
const BACKSTOP_CHECKPOINT_PAGES = 20_000;

export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'healthspan.sqlite');
}

/**
 * The embedded store: better-sqlite3 connections to one file in `DATA_DIR`, in WAL mode, every
 * acknowledged commit durable against power loss. Statements run in-process, so each operation
 * is a few plain prepared statements.
 *
 * Two connections write, taking turns (`WriteTurns`): the event loop's (queue, pipeline, reads,
 * the CLI), whose commits are made durable off the loop (`WalSync`), and the ingest writer
 * thread's (`IngestThread`), where accepted submissions are written and committed beside the
 * event loop. The event loop never runs an ingest statement nor waits for the disk.
 */
export interface SqliteDriverOptions {
  /**
   * A long-running process (the service): checkpoints, which copy the log into the database
   * file and sync both, run on the writer thread, off the event loop. Otherwise (the CLI, a
   * test's store) SQLite runs them itself after a commit, as usual.
   */
  background?: boolean;
  /** Only a store that is there: `NoStoreError` rather than a new empty file (operator commands). */
  existing?: boolean;
}

/** `existing` was asked for and there is no store file. */
export class NoStoreError extends Error {
  constructor(readonly file: string) {
    super(`no store at ${file}`);
  }
}

export function openSqliteDriver(dataDir: string, options: SqliteDriverOptions = {}): Driver {
  const file = sqliteFile(dataDir);
  if (options.existing) {
    if (!fs.existsSync(file)) throw new NoStoreError(path.resolve(file));
  } else fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const sqlite = new SqliteDatabase(file, { fileMustExist: options.existing === true });
  // WAL lets readers run beside the writer. Two processes opening a fresh file both switch it,
  // and SQLite refuses the loser at once ("database is locked") instead of waiting: ask again.
  sqlite.pragma('busy_timeout = 5000');
  retryWhileBusy(() => sqlite.pragma('journal_mode = WAL'), 5000);
  // Another process's lock is waited for on a timer (`SqliteConnection`), never in SQLite's busy
  // handler, which sleeps on the event loop.
  sqlite.pragma('busy_timeout = 0');
  // Commits append to the log without waiting for the disk; `WalSync` flushes the log before a
  // commit's caller is answered, which is what FULL would do inside the commit.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // Deleted content is overwritten with zeros, so an erased subject's values do not linger in
  // free space of the file (docs/data-lifecycle.md); `flushDeletes` then clears the WAL.
  sqlite.pragma('secure_delete = ON');

  const turns = new WriteTurns();
  const wal = new WalSync(file);
  const ingestThread = new IngestThread(file, turns);
  if (options.background) {
    // SQLite's own checkpoint after a commit would run on the event loop; the thread's keep the
    // log short, and this one is left only as a backstop should they stop.
    sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
  }
  const connection = new SqliteConnection(
    sqlite,
    turns,
    wal,
    options.background ? () => ingestThread.checkpoint() : undefined,
  );
  const db = new Kysely<Database>({ dialect: sqliteDialect(connection) });
  const runner = new SqlitePreparedRunner(connection);
  const q = {
    result: namedQuery(insertResultIfAbsent(db).compile()),
    artifact: namedQuery(insertArtifact(db).compile()),
    markAvailable: namedQuery(markArtifactAvailable(db, 0).compile()),
    touch: namedQuery(touchResult(db).compile()),
  };
  const claims = new Map<number, NamedQuery>();
  // One committer for the event loop's connection.
  const committer = new CommitBatcher(db, runner);

  return {
    name: 'sqlite',
    db,
    runner,
    describe: `sqlite:${file}`,
    bool: (value) => (value ? 1 : 0),
    jsonText: (column, field) => sql<string | null>`json_extract(${sql.ref(column)}, ${`$.${field}`})`,
    // One read transaction: the writer thread commits beside the event loop.
    readConsistent: (fn) =>
      db.connection().execute(async (conn) => {
        await sql`begin`.execute(conn);
        try {
          return await fn(conn);
        } finally {
          await sql`rollback`.execute(conn);
        }
      }),
    committer,
    wakeSource: () => new SqliteChangeWatcher(sqlite),
    tryExclusive: async () => true,

    async withMigrationLock(fn) {
      // Kysely's migrator takes no lock on SQLite (it assumes one connection), so two processes
      // both found a migration pending and the second failed with "table … already exists". The
      // whole run is one `BEGIN IMMEDIATE` transaction (SQLite's DDL is transactional), which
      // also means a migration that fails leaves no half-built schema behind. The lock is polled
      // with the busy timeout off: waiting in it would block this thread.
      return db.connection().execute(async (conn) => {
        const { rows } = await sql<{ timeout: number }>`pragma busy_timeout`.execute(conn);
        const busyTimeout = Number(rows[0]?.timeout ?? 0);
        await sql`pragma busy_timeout = 0`.execute(conn);
        try {
          await pollForMigrationLock(async () => {
            try {
              await sql`begin immediate`.execute(conn);
              return true;
            } catch (error) {
              if (!isSqliteBusy(error)) throw error;
              return false;
            }
          });
        } finally {
          await sql.raw(`pragma busy_timeout = ${busyTimeout}`).execute(conn);
        }
        try {
          const outcome = await fn(conn);
          await sql`commit`.execute(conn);
          return outcome;
        } catch (error) {
          await sql`rollback`.execute(conn);
          throw error;
        }
      });
    },
    beforeMigration: async () => {},

    async claimJobs(executor: Executor, typeCount: number, values: Record<string, unknown>) {
      let query = claims.get(typeCount);
      if (!query) {
        // The single writer connection serialises claims: a plain subquery picks the due jobs.
        query = namedQuery(
          db
            .updateTable('jobs')
            .set(LEASE)
            .where('id', 'in', dueJobs(db, typeCount))
            .returning(CLAIMED_COLUMNS)
            .compile(),
        );
        claims.set(typeCount, query);
      }
      return runner.all<ClaimedRow>(executor, query, values);
    },

    async extendLeases(workerId, ids, lockedUntil) {
      const held = await db
        .updateTable('jobs')
        .set({ locked_until: lockedUntil })
        .where((eb) => heldBy(eb, workerId, ids))
        .returning('id')
        .execute();
      return held.map((r) => r.id);
    },

    ingest: (rows) => ingestThread.ingest(rows),

    async createResult(trx: Executor, result: ResultRow, artifacts: readonly ArtifactRow[]) {
      const [created] = await runner.all<{ id: string }>(trx, q.result, { r: result });
      if (!created) return false;
      for (const artifact of artifacts) await runner.run(trx, q.artifact, { a: artifact });
      return true;
    },

    async markArtifactsAvailable(
      trx: Executor,
      resultId: string,
      artifacts: readonly AvailableArtifactValues[],
      now: string,
    ) {
      for (const artifact of artifacts) {
        await runner.run(trx, q.markAvailable, { ...availableValues([artifact]), now });
      }
      await runner.run(trx, q.touch, { resultId, now });
    },

    // On the writer thread, which runs the other checkpoints too: two checkpoints at once
    // make the second give up.
    flushDeletes: () => ingestThread.truncateLog(),

    async close() {
      await ingestThread.close();
      await db.destroy();
      sqlite.close();
      wal.close();
    },
  };
}
