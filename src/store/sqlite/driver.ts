import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { CommitBatcher } from '../commit-batcher.js';
import type { Database } from '../database.js';
import type { AvailableArtifactValues, ClaimedRow, Driver, IngestRows, IngestWrite } from '../driver.js';
import { pollForMigrationLock } from '../locks.js';
import { type Executor, type NamedQuery, namedQuery } from '../prepared.js';
import type { ArtifactRow, ResultRow } from '../rows.js';
import {
  availableValues,
  CLAIMED_COLUMNS,
  claimIdempotencyKey,
  dueJobs,
  heldBy,
  insertArtifact,
  insertJob,
  insertResultIfAbsent,
  insertSubmission,
  LEASE,
  markArtifactAvailable,
  touchResult,
} from '../statements.js';
import { isSqliteBusy, retryWhileBusy } from './busy.js';
import { SqlitePreparedRunner } from './prepared-runner.js';

export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'healthspan.sqlite');
}

/**
 * The embedded store: one better-sqlite3 connection in `DATA_DIR`, in WAL mode with
 * `synchronous=FULL` (every acknowledged commit survives power loss). Statements run in-process,
 * so each operation is a few plain prepared statements.
 */
export function openSqliteDriver(dataDir: string): Driver {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = sqliteFile(dataDir);
  const sqlite = new SqliteDatabase(file);
  // The CLI may write while the server runs: wait for the lock instead of failing.
  sqlite.pragma('busy_timeout = 5000');
  // WAL lets readers run beside the writer; FULL makes every acknowledged commit survive power
  // loss. Two processes opening a fresh file both switch it, and SQLite refuses the loser at
  // once ("database is locked") instead of waiting: ask again.
  retryWhileBusy(() => sqlite.pragma('journal_mode = WAL'), 5000);
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  // Deleted content is overwritten with zeros, so an erased subject's values do not linger in
  // free space of the file (docs/data-lifecycle.md); `flushDeletes` then clears the WAL.
  sqlite.pragma('secure_delete = ON');

  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  const runner = new SqlitePreparedRunner(sqlite);
  const q = {
    claimKey: namedQuery(claimIdempotencyKey(db).compile()),
    submission: namedQuery(insertSubmission(db).compile()),
    job: insertJob(db),
    result: namedQuery(insertResultIfAbsent(db).compile()),
    artifact: namedQuery(insertArtifact(db).compile()),
    markAvailable: namedQuery(markArtifactAvailable(db, 0).compile()),
    touch: namedQuery(touchResult(db).compile()),
  };
  const claims = new Map<number, NamedQuery>();
  // One committer for the one connection: it is the store's only writer.
  const committer = new CommitBatcher(db, runner);

  return {
    name: 'sqlite',
    db,
    runner,
    describe: `sqlite:${file}`,
    bool: (value) => (value ? 1 : 0),
    jsonText: (column, field) => sql<string | null>`json_extract(${sql.ref(column)}, ${`$.${field}`})`,
    readConsistent: (fn) => fn(db),
    createCommitter: () => committer,
    wakeSource: () => undefined,
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

    async ingest(executor: Executor, rows: IngestRows): Promise<IngestWrite> {
      const values = { k: rows.claim };
      const [claimed] = await runner.all<{ submission_id: string }>(executor, q.claimKey, values);
      if (claimed?.submission_id !== rows.claim.submission_id) return { created: false, prior: undefined };
      await runner.run(executor, q.submission, { s: rows.submission });
      await runner.run(executor, q.job, { j: rows.job });
      return { created: true };
    },

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

    async flushDeletes() {
      // Through Kysely, so it waits for a transaction of the group commit to end first.
      await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
    },

    close: () => db.destroy(),
  };
}
