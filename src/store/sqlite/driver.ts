import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, type RawBuilder, sql } from 'kysely';
import type { WakeSource } from '../../jobs/notifier.js';
import { CommitBatcher } from '../commit-batcher.js';
import type { Database } from '../database.js';
import type {
  AvailableArtifactValues,
  ClaimedRow,
  CompletionWrites,
  Driver,
  IngestRows,
  IngestWrite,
} from '../driver.js';
import { pollForMigrationLock } from '../locks.js';
import { type Executor, type NamedQuery, namedQuery, QueriesByCount } from '../prepared.js';
import type { ArtifactRow, ResultRow } from '../rows.js';
import {
  availableValues,
  CLAIM_RETURNING,
  dueJobs,
  finishJob,
  heldBy,
  insertArtifact,
  insertJob,
  insertResultIfAbsent,
  LEASE,
  markArtifactAvailable,
  setSubmissionStatus,
  touchResult,
  upsertArtifactContents,
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

/**
 * The embedded store: better-sqlite3 connections to one file in `DATA_DIR`, in WAL mode, every
 * acknowledged commit durable against power loss. Statements run in-process, so each operation
 * is a few plain prepared statements.
 *
 * Two connections write, taking turns (`WriteTurns`): the event loop's (queue, pipeline, reads,
 * the CLI), whose commits are made durable off the loop (`WalSync`), and the ingest writer
 * thread's (`IngestThread`), where accepted submissions are written and committed beside the
 * event loop. The event loop never runs an ingest statement nor waits for the disk.
 *
 * Why an acknowledged write is on disk, and what each crash loses: README.md beside this file.
 */
export function openSqliteDriver(dataDir: string, options: SqliteDriverOptions = {}): Driver {
  return new SqliteDriver(dataDir, options);
}

/**
 * The event loop's connection to the store's file, set up as every process uses it: WAL,
 * `synchronous=NORMAL` with `WalSync` doing what FULL would, no busy handler.
 */
function openEventLoopConnection(file: string, existing: boolean): SqliteDatabase.Database {
  const sqlite = new SqliteDatabase(file, { fileMustExist: existing });
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
  return sqlite;
}

/**
 * Runs `fn` in one `BEGIN IMMEDIATE` transaction on one connection, once no other process
 * migrates. Kysely's migrator takes no lock on SQLite (it assumes one connection), so two
 * processes both found a migration pending and the second failed with "table … already
 * exists". SQLite's DDL is transactional, so a migration that fails also leaves no half-built
 * schema behind. The lock is polled with the busy timeout off: waiting in it would block this
 * thread.
 */
function withSqliteMigrationLock<T>(
  db: Kysely<Database>,
  fn: (db: Kysely<Database>) => Promise<T>,
): Promise<T> {
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
}

/** The hot-path statements of the pipeline, compiled once. */
function pipelineStatements(db: Kysely<Database>) {
  return {
    result: namedQuery(insertResultIfAbsent(db).compile()),
    artifact: namedQuery(insertArtifact(db).compile()),
    markAvailable: namedQuery(markArtifactAvailable(db, 0).compile()),
    touch: namedQuery(touchResult(db).compile()),
    finish: namedQuery(finishJob(db).compile()),
    job: insertJob(db),
    status: namedQuery(setSubmissionStatus(db).compile()),
  };
}

class SqliteDriver implements Driver {
  readonly name = 'sqlite';
  readonly db: Kysely<Database>;
  readonly runner: SqlitePreparedRunner;
  readonly describe: string;
  /** One committer for the event loop's connection. */
  readonly committer: CommitBatcher;
  private readonly sqlite: SqliteDatabase.Database;
  private readonly wal: WalSync;
  private readonly ingestThread: IngestThread;
  private readonly q: ReturnType<typeof pipelineStatements>;
  private readonly contents = new QueriesByCount();
  private readonly claims = new Map<string, NamedQuery>();

  constructor(dataDir: string, options: SqliteDriverOptions) {
    const file = sqliteFile(dataDir);
    if (options.existing) {
      if (!fs.existsSync(file)) throw new NoStoreError(path.resolve(file));
    } else fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    this.sqlite = openEventLoopConnection(file, options.existing === true);
    this.describe = `sqlite:${file}`;
    const turns = new WriteTurns();
    this.wal = new WalSync(file);
    this.ingestThread = new IngestThread(file, turns);
    if (options.background) {
      // SQLite's own checkpoint after a commit would run on the event loop; the thread's keep the
      // log short, and this one is left only as a backstop should they stop.
      this.sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
    }
    const thread = this.ingestThread;
    const connection = new SqliteConnection(
      this.sqlite,
      turns,
      this.wal,
      options.background ? () => thread.checkpoint() : undefined,
    );
    this.db = new Kysely<Database>({ dialect: sqliteDialect(connection) });
    this.runner = new SqlitePreparedRunner(connection);
    this.q = pipelineStatements(this.db);
    this.committer = new CommitBatcher(this.db, this.runner);
  }

  async checkConnection(): Promise<void> {}

  storedDocument(text: string): string {
    return text;
  }

  bool(value: boolean): number {
    return value ? 1 : 0;
  }

  jsonText(column: 'jobs.payload', field: string): RawBuilder<string | null> {
    return sql<string | null>`json_extract(${sql.ref(column)}, ${`$.${field}`})`;
  }

  /** One read transaction: the writer thread commits beside the event loop. */
  readConsistent<T>(fn: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.db.connection().execute(async (conn) => {
      await sql`begin`.execute(conn);
      try {
        return await fn(conn);
      } finally {
        await sql`rollback`.execute(conn);
      }
    });
  }

  wakeSource(): WakeSource {
    return new SqliteChangeWatcher(this.sqlite);
  }

  async tryExclusive(): Promise<boolean> {
    return true;
  }

  withMigrationLock<T>(fn: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    return withSqliteMigrationLock(this.db, fn);
  }

  async beforeMigration(): Promise<void> {}

  async claimJobs(executor: Executor, typeCount: number, values: Record<string, unknown>) {
    // One statement per limit asked for (at most the worker's concurrency): see `dueJobs`.
    const limit = Number(values.limit);
    const key = `${typeCount}:${limit}`;
    let query = this.claims.get(key);
    if (!query) {
      // The single writer connection serialises claims: a plain subquery picks the due jobs.
      query = namedQuery(
        this.db
          .updateTable('jobs')
          .from(dueJobs(this.db, typeCount, limit).as('due'))
          .set(LEASE)
          .whereRef('jobs.id', '=', 'due.id')
          .returning(CLAIM_RETURNING)
          .compile(),
      );
      this.claims.set(key, query);
    }
    return this.runner.all<ClaimedRow>(executor, query, values);
  }

  async extendLeases(workerId: string, ids: readonly string[], lockedUntil: string): Promise<string[]> {
    const held = await this.db
      .updateTable('jobs')
      .set({ locked_until: lockedUntil })
      .where((eb) => heldBy(eb, workerId, ids))
      .returning('id')
      .execute();
    return held.map((r) => r.id);
  }

  async completeJob(executor: Executor, finish: Record<string, unknown>, then: CompletionWrites) {
    // In-process statements cost microseconds: no reason to fold them.
    if ((await this.runner.run(executor, this.q.finish, finish)) !== 1) return false;
    if (then.successor) await this.runner.run(executor, this.q.job, { j: then.successor });
    if (then.status) {
      const values = { id: then.status.submissionId, status: then.status.status, now: finish.now };
      await this.runner.run(executor, this.q.status, values);
    }
    return true;
  }

  ingest(rows: IngestRows): Promise<IngestWrite> {
    return this.ingestThread.ingest(rows);
  }

  async createResult(trx: Executor, result: ResultRow, artifacts: readonly ArtifactRow[]): Promise<boolean> {
    const [created] = await this.runner.all<{ id: string }>(trx, this.q.result, { r: result });
    if (!created) return false;
    for (const artifact of artifacts) await this.runner.run(trx, this.q.artifact, { a: artifact });
    return true;
  }

  async storeArtifacts(
    trx: Executor,
    resultId: string,
    artifacts: readonly AvailableArtifactValues[],
    now: string,
    withBytes: boolean,
  ): Promise<void> {
    if (withBytes && artifacts.length > 0) {
      const upsert = this.contents.get(artifacts.length, () =>
        namedQuery(upsertArtifactContents(this.db, artifacts.length).compile()),
      );
      await this.runner.run(trx, upsert, availableValues(artifacts));
    }
    for (const artifact of artifacts) {
      await this.runner.run(trx, this.q.markAvailable, { ...availableValues([artifact]), now });
    }
    await this.runner.run(trx, this.q.touch, { resultId, now });
  }

  /**
   * On the writer thread, which runs the other checkpoints too: two checkpoints at once make
   * the second give up.
   */
  flushDeletes(): Promise<void> {
    return this.ingestThread.truncateLog();
  }

  async close(): Promise<void> {
    await this.ingestThread.close();
    await this.db.destroy();
    this.sqlite.close();
    this.wal.close();
  }
}
