import type { Kysely } from 'kysely';
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
  /** Events delivered, failed (attempts exhausted), still being sent, and never sent (no endpoint). */
  callbacks: { delivered: number; failed: number; pending: number; notSent: number };
}

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
    .selectFrom('webhook_events')
    .select(['status', 'failure_reason', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('tenant_id', '=', tenantId)
    .where('created_at', '>=', from)
    .groupBy(['status', 'failure_reason'])
    .execute();
  const out = { delivered: 0, failed: 0, pending: 0, notSent: 0 };
  for (const row of rows) {
    const n = Number(row.n);
    if (row.status === 'delivered') out.delivered += n;
    else if (row.status === 'failed' && row.failure_reason === 'no_endpoint') out.notSent += n;
    else if (row.status === 'failed') out.failed += n;
    else out.pending += n;
  }
  return out;
}
