import { sql } from 'kysely';
import type { ApiMode } from '../../domain/mode.js';
import type { ClaimedJob, Lease, NewJob } from '../../jobs/types.js';
import { iso, isoOrNull, json } from '../codec.js';
import type { ClaimedRow, Driver } from '../driver.js';
import { newId } from '../ids.js';
import { type Executor, type NamedQuery, namedQuery, QueriesByCount } from '../prepared.js';
import { jobRow } from '../rows.js';
import { CLAIMED_COLUMNS, finishJob, insertJob, setStatusOfMany } from '../statements.js';

function toClaimed(row: Omit<ClaimedRow, 'status'>): ClaimedJob {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    submissionId: row.submission_id,
    type: row.type,
    payload: json<Record<string, unknown>>(row.payload),
    correlationId: row.correlation_id,
    requestId: row.request_id,
    attempt: row.attempts,
    maxAttempts: row.max_attempts,
    acceptedAt: iso(row.accepted_at),
    slaDeadlineAt: isoOrNull(row.sla_deadline_at),
    lockedBy: row.locked_by ?? '',
    traceparent: row.traceparent,
  };
}

/** The values of `finishJob`: how an attempt ends, fenced on the lease its worker holds. */
function finishValues(
  job: ClaimedJob,
  now: Date,
  change: { status: 'completed' | 'retrying' | 'failed'; summary: string | null; runAt?: Date },
): Record<string, unknown> {
  const nowIso = now.toISOString();
  return {
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
  };
}

/** The job table's state machine. Every write after a claim is fenced on the lease owner. */
export class JobsRepository {
  // Run for every job: built once, run as prepared statements.
  private readonly q: { enqueue: NamedQuery; finish: NamedQuery };
  private readonly statusQueries = new QueriesByCount();

  constructor(private readonly driver: Driver) {
    const db = driver.db;
    this.q = {
      enqueue: insertJob(db),
      // Completion, retry and failure differ only in values; all are fenced on the lease owner.
      finish: namedQuery(finishJob(db).compile()),
    };
  }

  /**
   * The queue by type and state (finished jobs aside), with the run time of the oldest job of
   * each that is due and unclaimed: one statement for the metrics gauges, each part matching a
   * partial index (due, running, finished) so it stays an index scan however many jobs are kept.
   */
  async queueCounts(
    now: Date,
  ): Promise<Array<{ mode: ApiMode; type: string; state: string; count: number; oldestDueAt: Date | null }>> {
    const db = this.driver.db;
    // Sandboxes are few: the uncorrelated list is read once per part, not once per job.
    const mode = sql<ApiMode>`case when tenant_id in (select id from tenants where mode = 'test') then 'test' else 'live' end`;
    const part = (status: string, withDue: boolean) =>
      db
        .selectFrom('jobs')
        .select([
          mode.as('mode'),
          'type',
          'status',
          sql<number | string>`count(*)`.as('n'),
          (withDue
            ? sql<string | Date | null>`min(case when run_at <= ${now.toISOString()} then run_at end)`
            : sql<string | Date | null>`null`
          ).as('oldest_due'),
        ])
        .where(sql.raw<boolean>(status))
        .groupBy([sql`1`, 'type', 'status']);
    const rows = await part(`status in ('pending', 'retrying')`, true)
      .unionAll(part(`status = 'held'`, false))
      .unionAll(part(`status = 'running'`, false))
      .unionAll(part(`status = 'failed'`, false))
      .execute();
    return rows.map((r) => ({
      mode: r.mode,
      type: r.type,
      state: r.status,
      count: Number(r.n),
      oldestDueAt: r.oldest_due === null ? null : new Date(iso(r.oldest_due)),
    }));
  }

  /** A job's attempts in order, as the `job_attempts` triggers recorded them (tests and operators). */
  async attempts(jobId: string) {
    return this.driver.db
      .selectFrom('job_attempts')
      .selectAll()
      .where('job_id', '=', jobId)
      .orderBy('attempt')
      .orderBy('started_at')
      .execute();
  }

  async enqueue(db: Executor, job: NewJob, now: Date): Promise<string> {
    return (await this.insert(db, job, now, null)).id;
  }

  /** Enqueues a job already claimed by `lease.workerId` (its first attempt counted). */
  enqueueClaimed(db: Executor, job: NewJob, now: Date, lease: Lease): Promise<ClaimedJob> {
    return this.insert(db, job, now, lease);
  }

  private async insert(db: Executor, job: NewJob, now: Date, lease: Lease | null): Promise<ClaimedJob> {
    const row = jobRow({ ...job, id: job.id ?? newId() }, now, lease);
    await this.driver.runner.run(db, this.q.enqueue, { j: row });
    return toClaimed(row as ClaimedRow);
  }

  private async finish(
    db: Executor,
    job: ClaimedJob,
    now: Date,
    change: { status: 'completed' | 'retrying' | 'failed'; summary: string | null; runAt?: Date },
  ): Promise<boolean> {
    return (await this.driver.runner.run(db, this.q.finish, finishValues(job, now, change))) === 1;
  }

  /**
   * Claims up to `limit` due jobs of the given kinds for `workerId`, in one statement: the due
   * jobs are picked, then the update takes their lease and counts the attempt (how each driver
   * keeps racing workers apart: `Driver.claimJobs`).
   */
  async claim(
    db: Executor,
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
    const rows = await this.driver.claimJobs(db, types.length, values);
    // Jobs of a deactivated account were set aside (`held`) by the same statement, not claimed.
    return rows
      .filter((r) => r.status === 'running')
      .map(toClaimed)
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  /**
   * Submissions' statuses, by status (those of the jobs a claim just started; an end status not
   * written with its completion): one statement per status, however many submissions.
   */
  async setStatuses(trx: Executor, starts: ReadonlyMap<string, readonly string[]>, now: Date): Promise<void> {
    for (const [status, ids] of starts) {
      const query = this.statusQueries.get(ids.length, () =>
        namedQuery(setStatusOfMany(this.driver.db, ids.length).compile()),
      );
      const values: Record<string, unknown> = { status, now: now.toISOString() };
      for (const [i, id] of ids.entries()) values[`id${i}`] = id;
      await this.driver.runner.run(trx, query, values);
    }
  }

  /** Extends the leases this worker still holds; returns the ids it no longer holds. */
  async heartbeat(workerId: string, ids: string[], leaseMs: number, now: Date): Promise<string[]> {
    if (ids.length === 0) return [];
    const held = new Set(
      await this.driver.extendLeases(workerId, ids, new Date(now.getTime() + leaseMs).toISOString()),
    );
    return ids.filter((id) => !held.has(id));
  }

  /**
   * Marks the job completed if this worker still holds it, and its submission `endStatus` in the
   * same statement where the driver can; false means the lease was lost (nothing written).
   */
  complete(trx: Executor, job: ClaimedJob, now: Date, endStatus?: string): Promise<boolean> {
    const change = { status: 'completed', summary: null } as const;
    if (endStatus === undefined || job.submissionId === null) return this.finish(trx, job, now, change);
    const status = { submissionId: job.submissionId, status: endStatus };
    return this.driver.completeJob(trx, finishValues(job, now, change), { status });
  }

  /**
   * Marks the job completed and enqueues its successor already claimed by `lease.workerId`, in
   * one statement where the driver can (`Driver.completeJob`), with the status its
   * submission takes as it starts (`startStatus`). Undefined when the lease was lost: then
   * nothing was written.
   */
  async completeAndChain(
    trx: Executor,
    job: ClaimedJob,
    now: Date,
    next: NewJob & { startStatus?: string },
    lease: Lease,
  ): Promise<ClaimedJob | undefined> {
    const row = jobRow({ ...next, id: next.id ?? newId() }, now, lease);
    const finish = finishValues(job, now, { status: 'completed', summary: null });
    const status =
      next.submissionId === null || next.startStatus === undefined
        ? undefined
        : { submissionId: next.submissionId, status: next.startStatus };
    if (!(await this.driver.completeJob(trx, finish, { successor: row, status }))) return undefined;
    return toClaimed(row as ClaimedRow);
  }

  retryLater(trx: Executor, job: ClaimedJob, runAt: Date, summary: string, now: Date): Promise<boolean> {
    return this.finish(trx, job, now, { status: 'retrying', summary, runAt });
  }

  fail(trx: Executor, job: ClaimedJob, summary: string, now: Date): Promise<boolean> {
    return this.finish(trx, job, now, { status: 'failed', summary });
  }

  /** Hands a job back at shutdown without counting the attempt. */
  async release(trx: Executor, job: ClaimedJob, now: Date): Promise<void> {
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
  /** Running jobs whose lease ran out, oldest lease first; of `types` only, when given. */
  async expired(db: Executor, now: Date, limit: number, types?: string[]): Promise<ClaimedJob[]> {
    let query = db
      .selectFrom('jobs')
      .select(CLAIMED_COLUMNS)
      .where(sql<boolean>`status = 'running'`)
      .where('locked_until', '<', now.toISOString());
    if (types !== undefined) query = query.where('type', 'in', types);
    const rows = await query.orderBy('locked_until').limit(limit).execute();
    return rows.map(toClaimed);
  }

  /** Every job of a submission, oldest first (used by tests and the operator). */
  async forSubmission(submissionId: string) {
    return this.driver.db
      .selectFrom('jobs')
      .selectAll()
      .where('submission_id', '=', submissionId)
      .orderBy('queued_at')
      .orderBy('id')
      .execute();
  }

  /**
   * A job of `type` still waiting to run (pending, or waiting to retry) whose payload names
   * `value` under `field`: an operator's redelivery finds the delivery it may bring forward.
   */
  async findWaiting(db: Executor, type: string, field: string, value: string): Promise<string | undefined> {
    const row = await db
      .selectFrom('jobs')
      .select('id')
      .where('type', '=', type)
      .where('status', 'in', ['pending', 'retrying'])
      .where(this.driver.jsonText('jobs.payload', field), '=', value)
      .executeTakeFirst();
    return row?.id;
  }

  /** Makes a waiting job due now. */
  async runNow(trx: Executor, jobId: string, now: Date): Promise<void> {
    await trx
      .updateTable('jobs')
      .set({ run_at: now.toISOString(), updated_at: now.toISOString() })
      .where('id', '=', jobId)
      .where('status', 'in', ['pending', 'retrying'])
      .execute();
  }
}
