import type { ExpressionBuilder, Kysely } from 'kysely';
import { SUBMISSION_JOB_TYPES } from '../../domain/statuses.js';
import { iso, isoOrNull } from '../codec.js';
import type { Database } from '../database.js';

/** A submission as the console's overview counts it: its state and times, nothing submitted. */
export interface ActivitySubmission {
  status: string;
  receivedAt: string;
  /** When its result was completed; null until then. */
  completedAt: string | null;
  slaDeadlineAt: string | null;
  /** When its last step finished (completed or failed); null while none has. */
  finishedAt: string | null;
}

export interface ActivityRecord {
  submissions: ActivitySubmission[];
  /** Whether more submissions than `limit` were received in the window (the counts are of the newest). */
  truncated: boolean;
  /**
   * Events delivered; failed (attempts exhausted); failing (waiting to be sent again after a
   * failed attempt, held ones included); held while the endpoint is disabled without a failed
   * attempt; pending on their first try; never sent (no endpoint).
   */
  callbacks: {
    delivered: number;
    failed: number;
    failing: number;
    held: number;
    pending: number;
    notSent: number;
  };
}

/** One delivery attempt as the overview's "currently failing" reads it. */
export interface RecentAttempt {
  at: string;
  outcome: string;
  statusCode: number | null;
  errorClass: string | null;
}

/** The account's callbacks now, whatever the window: the newest attempts and the events waiting after a failure. */
export interface CallbackHealthRecord {
  /** Events not delivered yet (pending or held) with at least one failed delivery attempt. */
  waitingAfterFailure: number;
  /** The newest delivery attempts to the account's endpoints, newest first (at most `RECENT_ATTEMPTS`). */
  recent: RecentAttempt[];
}

/** How many of the newest attempts "currently failing" looks at. */
export const RECENT_ATTEMPTS = 20;

/**
 * What the console's overview is computed from: one account's submissions received since a time
 * (newest first, at most `limit`) with their steps' deadlines, and its callbacks' outcomes.
 */
export async function accountActivity(
  db: Kysely<Database>,
  tenantId: string,
  since: Date,
  limit: number,
): Promise<ActivityRecord> {
  const from = since.toISOString();
  const rows = await db
    .selectFrom('submissions as s')
    .leftJoin('results as r', (join) =>
      join.onRef('r.submission_id', '=', 's.id').on('r.tenant_id', '=', tenantId),
    )
    .select(['s.id', 's.status', 's.received_at', 'r.updated_at as result_updated_at'])
    .where('s.tenant_id', '=', tenantId)
    .where('s.received_at', '>=', from)
    .orderBy('s.received_at', 'desc')
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  const steps = await db
    .selectFrom('jobs')
    .select(['submission_id', 'sla_deadline_at', 'completed_at', 'failed_at'])
    .where('tenant_id', '=', tenantId)
    .where('type', 'in', [...SUBMISSION_JOB_TYPES])
    .where('submission_id', 'in', (eb) =>
      eb
        .selectFrom('submissions')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('received_at', '>=', from),
    )
    .execute();
  const times = new Map<string, { deadline: string | null; finished: string | null }>();
  for (const step of steps) {
    if (step.submission_id === null) continue;
    const t = times.get(step.submission_id) ?? { deadline: null, finished: null };
    const deadline = isoOrNull(step.sla_deadline_at);
    if (deadline !== null && (t.deadline === null || deadline < t.deadline)) t.deadline = deadline;
    const finished = isoOrNull(step.completed_at) ?? isoOrNull(step.failed_at);
    if (finished !== null && (t.finished === null || finished > t.finished)) t.finished = finished;
    times.set(step.submission_id, t);
  }
  const submissions = page.map((row) => ({
    status: row.status,
    receivedAt: iso(row.received_at),
    completedAt: row.status === 'completed' ? isoOrNull(row.result_updated_at) : null,
    slaDeadlineAt: times.get(row.id)?.deadline ?? null,
    finishedAt: times.get(row.id)?.finished ?? null,
  }));
  return {
    submissions,
    truncated: rows.length > limit,
    callbacks: await callbackOutcomes(db, tenantId, from),
  };
}

async function callbackOutcomes(
  db: Kysely<Database>,
  tenantId: string,
  from: string,
): Promise<ActivityRecord['callbacks']> {
  const rows = await db
    .selectFrom('webhook_events as e')
    .select([
      'e.status',
      'e.failure_reason',
      (eb) =>
        eb
          .case()
          .when(eb.exists(failedAttemptOf(eb)))
          .then(1)
          .else(0)
          .end()
          .as('failed_before'),
      (eb) => eb.fn.countAll<number | string>().as('n'),
    ])
    .where('e.tenant_id', '=', tenantId)
    .where('e.created_at', '>=', from)
    .groupBy(['e.status', 'e.failure_reason', 'failed_before'])
    .execute();
  const out = { delivered: 0, failed: 0, failing: 0, held: 0, pending: 0, notSent: 0 };
  for (const row of rows) {
    const n = Number(row.n);
    if (row.status === 'delivered') out.delivered += n;
    else if (row.status === 'failed' && row.failure_reason === 'no_endpoint') out.notSent += n;
    else if (row.status === 'failed') out.failed += n;
    else if (Number(row.failed_before) === 1) out.failing += n;
    else if (row.status === 'endpoint_disabled') out.held += n;
    else out.pending += n;
  }
  return out;
}

/** A failed delivery attempt of the event `e` of the outer query. */
function failedAttemptOf(eb: ExpressionBuilder<Database & { e: Database['webhook_events'] }, 'e'>) {
  return eb
    .selectFrom('webhook_attempts as a')
    .select('a.delivery_id')
    .whereRef('a.event_id', '=', 'e.id')
    .where('a.outcome', '=', 'failed')
    .where('a.kind', '=', 'delivery');
}

/**
 * The account's callbacks now: the newest delivery attempts to its credentials' endpoints (by
 * `webhook_attempts_partner_time_idx`) and how many events wait to be sent again after a failure.
 */
export async function callbackHealth(db: Kysely<Database>, tenantId: string): Promise<CallbackHealthRecord> {
  const recent = await db
    .selectFrom('webhook_attempts')
    .select(['started_at', 'outcome', 'status_code', 'error_class'])
    .where('partner_id', 'in', (eb) =>
      eb.selectFrom('partners').select('id').where('tenant_id', '=', tenantId),
    )
    .where('kind', '=', 'delivery')
    .orderBy('started_at', 'desc')
    .limit(RECENT_ATTEMPTS)
    .execute();
  const waiting = await db
    .selectFrom('webhook_events as e')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('e.tenant_id', '=', tenantId)
    .where('e.status', 'in', ['pending', 'endpoint_disabled'])
    .where((eb) => eb.exists(failedAttemptOf(eb)))
    .executeTakeFirst();
  return {
    waitingAfterFailure: Number(waiting?.n ?? 0),
    recent: recent.map((a) => ({
      at: iso(a.started_at),
      outcome: a.outcome,
      statusCode: a.status_code,
      errorClass: a.error_class,
    })),
  };
}
