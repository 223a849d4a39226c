import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { JobType } from '../../domain/statuses.js';
import type { ClaimedJob, Db, NewJob } from '../../queue/types.js';
import { iso, isoOrNull, json, type SqlDialect } from '../codec.js';
import type { Database } from '../database.js';
import { newId } from '../ids.js';
import { type NamedQuery, namedQuery, type PreparedRunner, slot } from '../prepared.js';

const CLAIMED_COLUMNS = [
  'id',
  'tenant_id',
  'submission_id',
  'type',
  'payload',
  'correlation_id',
  'request_id',
  'attempts',
  'max_attempts',
  'accepted_at',
  'sla_deadline_at',
  'locked_by',
] as const;

function toClaimed(row: {
  id: string;
  tenant_id: string;
  submission_id: string | null;
  type: string;
  payload: string | object | null;
  correlation_id: string | null;
  request_id: string | null;
  attempts: number;
  max_attempts: number;
  accepted_at: string | Date;
  sla_deadline_at: string | Date | null;
  locked_by: string | null;
}): ClaimedJob {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    submissionId: row.submission_id,
    type: row.type as JobType,
    payload: json<Record<string, unknown>>(row.payload),
    correlationId: row.correlation_id,
    requestId: row.request_id,
    attempt: row.attempts,
    maxAttempts: row.max_attempts,
    acceptedAt: iso(row.accepted_at),
    slaDeadlineAt: isoOrNull(row.sla_deadline_at),
    lockedBy: row.locked_by ?? '',
  };
}

/** The job table's state machine. Every write after a claim is fenced on the lease owner. */
export class JobsRepository {
  // Run for every job: built once, run as prepared statements.
  private readonly q: { enqueue: NamedQuery; finish: NamedQuery };
  /** Claim statements by the number of job types claimed. */
  private readonly claims = new Map<number, NamedQuery>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
    private readonly runner: PreparedRunner,
  ) {
    this.q = {
      enqueue: namedQuery(
        db
          .insertInto('jobs')
          .values({
            id: slot('id'),
            tenant_id: slot('tenantId'),
            submission_id: slot('submissionId'),
            type: slot('type'),
            status: slot('status'),
            payload: slot('payload'),
            correlation_id: slot('correlationId'),
            request_id: slot('requestId'),
            attempts: slot<number>('attempts'),
            max_attempts: slot<number>('maxAttempts'),
            run_at: slot('runAt'),
            locked_until: slot('lockedUntil'),
            locked_by: slot('lockedBy'),
            queued_at: slot('now'),
            accepted_at: slot('acceptedAt'),
            started_at: slot('startedAt'),
            completed_at: slot('nothing'),
            failed_at: slot('nothing'),
            sla_deadline_at: slot('slaDeadlineAt'),
            error_summary: slot('nothing'),
            created_at: slot('now'),
            updated_at: slot('now'),
          })
          .compile(),
      ),
      // Completion, retry and failure differ only in values; all are fenced on the lease owner.
      finish: namedQuery(
        db
          .updateTable('jobs')
          .set({
            status: slot('status'),
            completed_at: sql`coalesce(${slot('completedAt')}, completed_at)`,
            failed_at: sql`coalesce(${slot('failedAt')}, failed_at)`,
            run_at: sql`coalesce(${slot('runAt')}, run_at)`,
            error_summary: slot('summary'),
            locked_by: slot('nothing'),
            locked_until: slot('nothing'),
            updated_at: slot('now'),
          })
          .where('id', '=', slot('id'))
          .where('locked_by', '=', slot('owner'))
          .where('status', '=', slot('running'))
          .compile(),
      ),
    };
  }

  /** A job's attempts in order, as the `job_attempts` triggers recorded them (tests and operators). */
  async attempts(db: Db, jobId: string) {
    return db
      .selectFrom('job_attempts')
      .selectAll()
      .where('job_id', '=', jobId)
      .orderBy('attempt')
      .orderBy('started_at')
      .execute();
  }

  async enqueue(db: Db, job: NewJob, now: Date): Promise<string> {
    return (await this.insert(db, job, now, null)).id;
  }

  /** Enqueues a job already claimed by `lease.workerId` (its first attempt counted). */
  async enqueueClaimed(
    db: Db,
    job: NewJob,
    now: Date,
    lease: { workerId: string; leaseMs: number },
  ): Promise<ClaimedJob> {
    return this.insert(db, job, now, lease);
  }

  private async insert(
    db: Db,
    job: NewJob,
    now: Date,
    lease: { workerId: string; leaseMs: number } | null,
  ): Promise<ClaimedJob> {
    const id = job.id ?? newId();
    const nowIso = now.toISOString();
    const lockedUntil = lease ? new Date(now.getTime() + lease.leaseMs).toISOString() : null;
    await this.runner.run(db, this.q.enqueue, {
      id,
      tenantId: job.tenantId,
      submissionId: job.submissionId,
      type: job.type,
      status: lease ? 'running' : 'pending',
      attempts: lease ? 1 : 0,
      lockedBy: lease?.workerId ?? null,
      lockedUntil,
      startedAt: lease ? nowIso : null,
      payload: job.payload ? JSON.stringify(job.payload) : null,
      correlationId: job.correlationId,
      requestId: job.requestId,
      maxAttempts: job.maxAttempts,
      runAt: job.runAt ?? nowIso,
      nothing: null,
      now: nowIso,
      acceptedAt: job.acceptedAt,
      slaDeadlineAt: job.slaDeadlineAt,
    });
    return {
      id,
      tenantId: job.tenantId,
      submissionId: job.submissionId,
      type: job.type,
      payload: job.payload ?? null,
      correlationId: job.correlationId,
      requestId: job.requestId,
      attempt: lease ? 1 : 0,
      maxAttempts: job.maxAttempts,
      acceptedAt: job.acceptedAt,
      slaDeadlineAt: job.slaDeadlineAt,
      lockedBy: lease?.workerId ?? '',
    };
  }

  private async finish(
    db: Db,
    job: ClaimedJob,
    now: Date,
    change: { status: 'completed' | 'retrying' | 'failed'; summary: string | null; runAt?: Date },
  ): Promise<boolean> {
    const nowIso = now.toISOString();
    const changed = await this.runner.run(db, this.q.finish, {
      status: change.status,
      completedAt: change.status === 'completed' ? nowIso : null,
      failedAt: change.status === 'failed' ? nowIso : null,
      runAt: change.runAt ? change.runAt.toISOString() : null,
      summary: change.summary,
      nothing: null,
      now: nowIso,
      id: job.id,
      owner: job.lockedBy,
      running: 'running',
    });
    return changed === 1;
  }

  /**
   * Claims up to `limit` due jobs of the given types for `workerId`, in one statement: the due
   * jobs are picked, then the update takes their lease and counts the attempt.
   *
   * On PostgreSQL, where workers in several processes race, the pick is a materialized CTE with
   * `FOR UPDATE SKIP LOCKED`: rows another transaction is claiming are skipped rather than waited
   * for, and the fence makes the pick run exactly once (a subquery could be re-run by the plan
   * and lock more than `limit` rows). A row another worker claimed and committed since this
   * statement's snapshot is re-checked after locking, fails `status in (…)`, and is dropped. On
   * SQLite the single writer connection serialises claims.
   */
  async claim(
    db: Db,
    workerId: string,
    types: readonly string[],
    limit: number,
    leaseMs: number,
    now: Date,
  ): Promise<ClaimedJob[]> {
    if (limit <= 0 || types.length === 0) return [];
    const values: Record<string, unknown> = {
      now: now.toISOString(),
      limit,
      running: 'running',
      workerId,
      lockedUntil: new Date(now.getTime() + leaseMs).toISOString(),
    };
    for (const [i, type] of types.entries()) values[`type${i}`] = type;
    const rows = await this.runner.all<Parameters<typeof toClaimed>[0]>(
      db,
      this.claimStatement(types.length),
      values,
    );
    return rows.map(toClaimed).sort((a, b) => a.id.localeCompare(b.id));
  }

  /** The claim for workers running `typeCount` job types, built once and run prepared. */
  private claimStatement(typeCount: number): NamedQuery {
    let query = this.claims.get(typeCount);
    if (query) return query;
    const db = this.db;
    // Literal statuses, not parameters: only then can the planner use the partial index.
    const due = db
      .selectFrom('jobs')
      .select('id')
      .where(sql<boolean>`status in ('pending', 'retrying')`)
      .where('run_at', '<=', slot('now'))
      .where(
        'type',
        'in',
        Array.from({ length: typeCount }, (_, i) => slot(`type${i}`)),
      )
      .orderBy('run_at')
      .limit(slot<number>('limit'));
    const lease = {
      status: slot('running'),
      attempts: sql<number>`attempts + 1`,
      locked_by: slot('workerId'),
      locked_until: slot('lockedUntil'),
      started_at: sql<string>`coalesce(started_at, ${slot('now')})`,
      updated_at: slot('now'),
    };
    query = namedQuery(
      this.dialect === 'postgres'
        ? db
            .with(
              (cte) => cte('due').materialized(),
              () => due.forUpdate().skipLocked(),
            )
            .updateTable('jobs')
            .set(lease)
            .where('id', 'in', (eb) => eb.selectFrom('due').select('due.id'))
            .returning(CLAIMED_COLUMNS)
            .compile()
        : db.updateTable('jobs').set(lease).where('id', 'in', due).returning(CLAIMED_COLUMNS).compile(),
    );
    this.claims.set(typeCount, query);
    return query;
  }

  /** Extends the leases this worker still holds; returns the ids it no longer holds. */
  async heartbeat(workerId: string, ids: string[], leaseMs: number, now: Date): Promise<string[]> {
    if (ids.length === 0) return [];
    const lockedUntil = new Date(now.getTime() + leaseMs).toISOString();
    if (this.dialect !== 'postgres') {
      const held = await this.db
        .updateTable('jobs')
        .set({ locked_until: lockedUntil })
        .where('id', 'in', ids)
        .where('locked_by', '=', workerId)
        .where('status', '=', 'running')
        .returning('id')
        .execute();
      const kept = new Set(held.map((r) => r.id));
      return ids.filter((id) => !kept.has(id));
    }
    // PostgreSQL: the heartbeat must never wait for a row lock. A plain multi-row UPDATE locks
    // its rows in whatever order the plan visits them, while a group-commit transaction (this
    // worker's completions, or another worker's rescue) locks the same jobs one by one in its own
    // order and holds them to its commit: each then waits for the other, and PostgreSQL aborts
    // one as a deadlock after a second (found by test/scale/fault.test.ts, with a backlog after an
    // outage). So the leases are extended only on rows nobody else has locked (`SKIP LOCKED`);
    // a row skipped is being finished or rescued right now, and the next beat settles it. A job
    // counts as lost only when the statement's snapshot shows it no longer held by this worker,
    // exactly as before.
    const held = await this.db
      .with(
        (cte) => cte('free').materialized(),
        (db) =>
          db
            .selectFrom('jobs')
            .select('id')
            .where('id', 'in', ids)
            .where('locked_by', '=', workerId)
            .where('status', '=', 'running')
            .forUpdate()
            .skipLocked(),
      )
      .with('extended', (db) =>
        db
          .updateTable('jobs')
          .set({ locked_until: lockedUntil })
          .where('id', 'in', (eb) => eb.selectFrom('free').select('free.id'))
          .returning('jobs.id'),
      )
      .selectFrom('jobs')
      .select('id')
      .where('id', 'in', ids)
      .where('locked_by', '=', workerId)
      .where('status', '=', 'running')
      .execute();
    const kept = new Set(held.map((r) => r.id));
    return ids.filter((id) => !kept.has(id));
  }

  /** Marks the job completed if this worker still holds it; false means the lease was lost. */
  complete(trx: Db, job: ClaimedJob, now: Date): Promise<boolean> {
    return this.finish(trx, job, now, { status: 'completed', summary: null });
  }

  retryLater(trx: Db, job: ClaimedJob, runAt: Date, summary: string, now: Date): Promise<boolean> {
    return this.finish(trx, job, now, { status: 'retrying', summary, runAt });
  }

  fail(trx: Db, job: ClaimedJob, summary: string, now: Date): Promise<boolean> {
    return this.finish(trx, job, now, { status: 'failed', summary });
  }

  /** Hands a job back at shutdown without counting the attempt. */
  async release(trx: Db, job: ClaimedJob, now: Date): Promise<void> {
    const nowIso = now.toISOString();
    await trx
      .updateTable('jobs')
      .set({
        status: 'pending',
        attempts: sql`attempts - 1`,
        run_at: nowIso,
        locked_by: null,
        locked_until: null,
        updated_at: nowIso,
      })
      .where('id', '=', job.id)
      .where('locked_by', '=', job.lockedBy)
      .where('status', '=', 'running')
      .execute();
  }

  /** Running jobs whose lease ran out: their worker died or stalled. */
  async expired(now: Date, limit: number): Promise<ClaimedJob[]> {
    const rows = await this.db
      .selectFrom('jobs')
      .select(CLAIMED_COLUMNS)
      .where(sql<boolean>`status = 'running'`)
      .where('locked_until', '<', now.toISOString())
      .orderBy('locked_until')
      .limit(limit)
      .execute();
    return rows.map(toClaimed);
  }

  /** Every job of a submission, oldest first (used by tests and the operator). */
  async forSubmission(submissionId: string) {
    return this.db
      .selectFrom('jobs')
      .selectAll()
      .where('submission_id', '=', submissionId)
      .orderBy('queued_at')
      .orderBy('id')
      .execute();
  }
}
