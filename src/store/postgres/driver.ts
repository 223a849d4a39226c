import { type Kysely, type QueryCreator, sql } from 'kysely';
import type { Logger } from 'pino';
import { CommitBatcher, CommitLanes, type Committer } from '../commit-batcher.js';
import type { Database } from '../database.js';
import type {
  AvailableArtifactValues,
  ClaimedRow,
  Driver,
  IngestRows,
  IngestWrite,
  PriorClaim,
} from '../driver.js';
import { MIGRATION_LOCK_KEY, pollForMigrationLock } from '../locks.js';
import { packJson } from '../packing/packed-json.js';
import { type Executor, namedQuery, type PreparedRunner, QueriesByCount } from '../prepared.js';
import {
  ARTIFACT_COLUMNS,
  type ArtifactRow,
  AUDIT_COLUMNS,
  JOB_COLUMNS,
  type ResultRow,
  SUBMISSION_COLUMNS,
} from '../rows.js';
import {
  availableValues,
  CLAIM_RETURNING,
  claimIdempotencyKey,
  dueJobs,
  finishJob,
  heldBy,
  insertResultIfAbsent,
  LEASE,
  markArtifactAvailable,
  priorClaim,
  rowSelection,
  setSubmissionStatus,
  touchResult,
  upsertArtifactContents,
} from '../statements.js';
import { clientConfig, connectPostgres, describePostgres, PG_TIMEOUTS, type PgTimeouts } from './connect.js';
import { DatabaseUnavailableError, explainConnectFailure } from './connect-failure.js';
import { PostgresJobListener } from './job-listener.js';
import { KyselyPreparedRunner } from './prepared-runner.js';

/** `created` is 1 when the statement claimed the key; otherwise the prior claim, if it saw one. */
type IngestRow = { created: number } & { [K in keyof PriorClaim]: PriorClaim[K] | null };

/**
 * The scale-out store: a connection pool, where every statement is a network round trip. So
 * each operation is one statement where it can be (data-modifying CTEs composed from the shared
 * statements), claims and lease extensions skip rows other transactions hold (`SKIP LOCKED`),
 * and commits run on several lanes at once.
 */
export function openPostgresDriver(
  url: string,
  poolSize: number,
  logger: Logger,
  timeouts: PgTimeouts = PG_TIMEOUTS,
): Driver {
  const { db } = connectPostgres(url, poolSize, logger, timeouts);
  const runner = new KyselyPreparedRunner();
  // Four lanes for ingest, four for the queue.
  const committer = new CommitLanes(
    Array.from({ length: 4 }, () => new CommitBatcher(db, runner)),
    Array.from({ length: 4 }, () => new CommitBatcher(db, runner)),
  );
  return {
    name: 'postgres',
    db,
    runner,
    describe: describePostgres(url),
    async checkConnection() {
      try {
        await sql`select 1`.execute(db);
      } catch (error) {
        throw new DatabaseUnavailableError(explainConnectFailure(error, url));
      }
    },
    storedDocument: (text, kind) => packJson(text, kind),
    bool: (value) => value,
    jsonText: (column, field) => sql<string | null>`${sql.ref(column)}->>${field}`,
    readConsistent: (fn) => db.transaction().setIsolationLevel('repeatable read').execute(fn),
    committer,
    wakeSource: (listenerLogger) => new PostgresJobListener(clientConfig(url), listenerLogger),
    ...locks(db),
    ...queue(db, runner),
    ...completions(db, runner),
    ...writes(db, runner, committer),
    flushDeletes: async () => {},
    close: () => db.destroy(),
  };
}

/** Advisory locks: the maintenance services' exclusive turns and the migration lock. */
function locks(db: Kysely<Database>): Pick<Driver, 'tryExclusive' | 'withMigrationLock' | 'beforeMigration'> {
  return {
    async tryExclusive(trx, lockKey) {
      const { rows } = await sql<{ locked: boolean }>`
        select pg_try_advisory_xact_lock(${sql.lit(lockKey)}) as locked`.execute(trx);
      return rows[0]?.locked === true;
    },

    async withMigrationLock(fn) {
      // Kysely's migrator waits for its advisory lock in a single statement, which the pool's
      // statement and query timeouts (15 s and 20 s) cut short when another process's migration
      // takes longer: this lock is polled instead, on the connection that then migrates.
      return db.connection().execute(async (conn) => {
        await pollForMigrationLock(async () => {
          const { rows } = await sql<{ locked: boolean }>`
            select pg_try_advisory_lock(${sql.lit(MIGRATION_LOCK_KEY)}) as locked`.execute(conn);
          return rows[0]?.locked === true;
        });
        try {
          return await fn(conn);
        } finally {
          await sql`select pg_advisory_unlock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(conn);
        }
      });
    },
    async beforeMigration(migrationDb) {
      // A migration may rewrite or index a large table: lift the per-statement limit the pool
      // sets, for this migration's transaction only.
      await sql`set local statement_timeout = 0`.execute(migrationDb);
    },
  };
}

/** The queue's claims and lease extensions, which race with other workers' and processes'. */
function queue(db: Kysely<Database>, runner: PreparedRunner): Pick<Driver, 'claimJobs' | 'extendLeases'> {
  const claims = new QueriesByCount();
  return {
    claimJobs(executor: Executor, typeCount: number, values: Record<string, unknown>) {
      // Workers in several processes race: the pick is a materialized CTE with `FOR UPDATE SKIP
      // LOCKED`, so rows another transaction is claiming are skipped rather than waited for, and
      // the fence makes the pick run exactly once (a subquery could be re-run by the plan and lock
      // more than `limit` rows). A row another worker claimed and committed since this statement's
      // snapshot is re-checked after locking, fails `status in (…)`, and is dropped.
      const query = claims.get(typeCount, () =>
        namedQuery(
          db
            .with(
              (cte) => cte('due').materialized(),
              () => dueJobs(db, typeCount).forUpdate().skipLocked(),
            )
            .updateTable('jobs')
            .from('due')
            .set(LEASE)
            .whereRef('jobs.id', '=', 'due.id')
            .returning(CLAIM_RETURNING)
            .compile(),
        ),
      );
      return runner.all<ClaimedRow>(executor, query, values);
    },

    async extendLeases(workerId, ids, lockedUntil) {
      // The heartbeat must never wait for a row lock. A plain multi-row UPDATE locks its rows in
      // whatever order the plan visits them, while a group-commit transaction (this worker's
      // completions, or a rescue) locks the same jobs one by one in its own order and holds them
      // to its commit: each then waits for the other, and PostgreSQL aborts one as a deadlock
      // (found by test/scale/fault.test.ts, with a backlog after an outage). So leases are
      // extended only on rows nobody else has locked; a row skipped is being finished or rescued
      // right now, and the next beat settles it. A job counts as lost only when the statement's
      // snapshot shows it no longer held by this worker.
      const held = await db
        .with(
          (cte) => cte('free').materialized(),
          (qb) =>
            qb
              .selectFrom('jobs')
              .select('id')
              .where((eb) => heldBy(eb, workerId, ids))
              .forUpdate()
              .skipLocked(),
        )
        .with('extended', (qb) =>
          qb
            .updateTable('jobs')
            .set({ locked_until: lockedUntil })
            .where('id', 'in', (eb) => eb.selectFrom('free').select('free.id'))
            .returning('jobs.id'),
        )
        .selectFrom('jobs')
        .select('id')
        .where((eb) => heldBy(eb, workerId, ids))
        .execute();
      return held.map((r) => r.id);
    },
  };
}

/** Ingest and the pipeline's result writes: one statement each, however many rows. */
function writes(
  db: Kysely<Database>,
  runner: PreparedRunner,
  committer: Committer,
): Pick<Driver, 'ingest' | 'createResult' | 'storeArtifacts'> {
  const ingestQuery = namedQuery(ingestStatement(db).compile());
  const results = new QueriesByCount();
  const marks = new QueriesByCount();
  const rowMarks = new QueriesByCount();
  return {
    ingest(rows: IngestRows): Promise<IngestWrite> {
      return committer.submit(
        async (trx) => {
          const [row] = await runner.all<IngestRow>(trx, ingestQuery, {
            k: rows.claim,
            s: rows.submission,
            j: rows.job,
            e: rows.audit,
          });
          if (!row) throw new Error('the ingest statement returned no row');
          if (row.created === 1) return { created: true };
          // The winner committed after this statement's snapshot when it saw no claim.
          return { created: false, prior: row.submission_id === null ? undefined : (row as PriorClaim) };
        },
        // A partner waits for its 202; the same key always takes the same lane, so its requests
        // queue there.
        { urgent: true, lockKey: `${rows.claim.partner_id}:${rows.claim.key_hash}` },
      );
    },

    async createResult(trx: Executor, result: ResultRow, artifacts: readonly ArtifactRow[]) {
      const query = results.get(artifacts.length, () =>
        namedQuery(createResultStatement(db, artifacts.length).compile()),
      );
      const values: Record<string, unknown> = { r: result };
      for (const [i, artifact] of artifacts.entries()) values[`a${i}`] = artifact;
      const [row] = await runner.all<{ created: number }>(trx, query, values);
      return row?.created === 1;
    },

    async storeArtifacts(
      trx: Executor,
      resultId: string,
      artifacts: readonly AvailableArtifactValues[],
      now: string,
      withBytes: boolean,
    ) {
      if (artifacts.length === 0) {
        await runner.run(
          trx,
          marks.get(0, () => namedQuery(touchResult(db).compile())),
          { resultId, now },
        );
        return;
      }
      // One single-row update per artifact, by primary key: an `update … from (values …)` join
      // was planned as a scan of the whole artifacts table. Without `withBytes` (an object store
      // holds them) the rows alone.
      const query = (withBytes ? marks : rowMarks).get(artifacts.length, () => {
        let statement = ctesOnly<Database>(
          withBytes
            ? db
                .with('contents', (qc) => upsertArtifactContents(qc, artifacts.length))
                .with('a0', () => markArtifactAvailable(db, 0))
            : db.with('a0', () => markArtifactAvailable(db, 0)),
        );
        for (let i = 1; i < artifacts.length; i++)
          statement = ctesOnly<Database>(statement.with(`a${i}`, () => markArtifactAvailable(db, i)));
        return namedQuery(touchResult(statement).compile());
      });
      await runner.run(trx, query, { ...availableValues(artifacts), resultId, now });
    },
  };
}

/**
 * A chain of common table expressions named a0, a1, … as the query creator it started from: the
 * statement reads none of those names, which only order the writes, so their types are dropped
 * (Kysely would otherwise grow the type by one table per link, which it cannot assign back).
 */
function ctesOnly<DB>(chain: object): QueryCreator<DB> {
  return chain as QueryCreator<DB>;
}

/** `Driver.completeJob`: one statement per shape (with a successor or not, a status or not). */
function completions(db: Kysely<Database>, runner: PreparedRunner): Pick<Driver, 'completeJob'> {
  const shapes = new QueriesByCount();
  return {
    async completeJob(executor, finish, then) {
      const shape = (then.successor ? 1 : 0) + (then.status ? 2 : 0);
      const query = shapes.get(shape, () =>
        namedQuery(
          completeJobStatement(db, then.successor !== undefined, then.status !== undefined).compile(),
        ),
      );
      const values = {
        ...finish,
        j: then.successor,
        statusOf: then.status?.submissionId,
        newStatus: then.status?.status,
      };
      return (await runner.all<{ id: string }>(executor, query, values)).length === 1;
    },
  };
}

/**
 * A job's completion with its successor's claimed row and a submission's new status, each
 * optional, in one statement: the other parts write only if the fenced update returned its row,
 * so a lost lease writes nothing. The statement returns a row exactly when the job completed.
 */
function completeJobStatement(db: Kysely<Database>, successor: boolean, status: boolean) {
  const done = db.with('done', () => finishJob(db).returning('id'));
  const withStatus = status
    ? done.with('status', (qc) =>
        setSubmissionStatus(qc, { id: 'statusOf', status: 'newStatus' }).where(
          sql<boolean>`exists (select from done)`,
        ),
      )
    : done;
  if (!successor) return withStatus.selectFrom('done').select('id');
  return withStatus
    .insertInto('jobs')
    .columns(JOB_COLUMNS)
    .expression((eb) => eb.selectFrom('done').select(rowSelection('j', JOB_COLUMNS)))
    .returning('id');
}

/**
 * The idempotency claim, the submission and its first job in ONE statement: on PostgreSQL each
 * statement is a network round trip, and round trips, not the writes, are what an ingest costs.
 *
 * - `claim` inserts the key, or takes it over once the previous claim has expired. The primary
 *   key decides between concurrent requests in any number of processes: a second insert of the
 *   same key waits for the first transaction and then conflicts.
 * - `submission`, `job` and its audit event insert only if `claim` returned a row (the same rows
 *   SQLite inserts one by one); the job's trigger sends the jobs notification.
 * - The final select also returns the existing claim when this one lost, so an ordinary replay
 *   needs no second statement. That read sees the statement's snapshot: a winner that committed
 *   after it was taken is invisible, and the repository reads it then.
 */
function ingestStatement(db: Kysely<Database>) {
  return db
    .with('claim', () => claimIdempotencyKey(db))
    .with('submission', (qb) =>
      qb
        .insertInto('submissions')
        .columns(SUBMISSION_COLUMNS)
        .expression(qb.selectFrom('claim').select(rowSelection('s', SUBMISSION_COLUMNS)))
        .returning('id'),
    )
    .with('job', (qb) =>
      qb
        .insertInto('jobs')
        .columns(JOB_COLUMNS)
        .expression(qb.selectFrom('submission').select(rowSelection('j', JOB_COLUMNS)))
        .returning('id'),
    )
    .with('audit', (qb) =>
      qb
        .insertInto('audit_events')
        .columns(AUDIT_COLUMNS)
        .expression(qb.selectFrom('job').select(rowSelection('e', AUDIT_COLUMNS))),
    )
    .selectFrom(sql`(select)`.as('one'))
    .leftJoinLateral(
      () => priorClaim(db).where(sql<boolean>`not exists (select from claim)`).as('prior'),
      (join) => join.onTrue(),
    )
    .select(sql<number>`(select count(*) from job)::integer`.as('created'))
    .selectAll('prior');
}

/**
 * The result and its pending artifacts in one statement. The result's insert does nothing when
 * the submission has one (a re-run), and then neither do the artifacts', which select from it.
 */
function createResultStatement(db: Kysely<Database>, artifactCount: number) {
  type WithResult = QueryCreator<Database & { r: { id: string } }>;
  let statement: WithResult = db.with('r', () => insertResultIfAbsent(db));
  for (let i = 0; i < artifactCount; i++) {
    statement = ctesOnly<Database & { r: { id: string } }>(
      statement.with(`a${i}`, (qb: WithResult) =>
        qb
          .insertInto('artifacts')
          .columns(ARTIFACT_COLUMNS)
          .expression(qb.selectFrom('r').select(rowSelection(`a${i}`, ARTIFACT_COLUMNS))),
      ),
    );
  }
  return statement.selectFrom('r').select(sql<number>`count(*)::integer`.as('created'));
}
