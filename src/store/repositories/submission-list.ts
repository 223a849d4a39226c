import type { Kysely } from 'kysely';
import type { AuditOrigin } from '../../domain/audit.js';
import { SUBMISSION_JOB_TYPES } from '../../domain/statuses.js';
import { iso, isoOrNull } from '../codec.js';
import type { Database } from '../database.js';
import type { Driver } from '../driver.js';
import { subjectIdFor } from '../ids.js';
import { type KeysetPage, type KeysetPosition, keysetPage } from '../keyset.js';
import type { AuditEntry } from '../rows.js';

export interface SubmissionListQuery {
  limit: number;
  /** Where a page starts: after this submission's (receivedAt, submissionId); older ones follow. */
  after?: KeysetPosition | undefined;
  status?: string | undefined;
  partnerSubjectId?: string | undefined;
  partnerSubmissionId?: string | undefined;
  /** Received at or after this time. */
  receivedAfter?: Date | undefined;
  /** Received before this time. */
  receivedBefore?: Date | undefined;
}

/** A submission as a list shows it: its references, state and timing, never what was submitted. */
export interface SubmissionListRecord {
  submissionId: string;
  partnerSubmissionId: string;
  partnerSubjectId: string;
  status: string;
  receivedAt: string;
  updatedAt: string;
  resultId: string | null;
  /** The result's completion time (what the result read shows as `completedAt`); null until completed. */
  completedAt: string | null;
  /** The latest failed step's plain-language summary. */
  errorSummary: string | null;
  slaDeadlineAt: string | null;
  /** When it reached a final state (completed, failed, rejected), from its steps; null before. */
  finishedAt: string | null;
}

export type SubmissionListPage = KeysetPage<SubmissionListRecord>;

const FINAL = new Set(['completed', 'failed', 'rejected']);

interface StepRow {
  submission_id: string | null;
  status: string;
  completed_at: string | Date | null;
  failed_at: string | Date | null;
  sla_deadline_at: string | Date | null;
  error_summary: string | null;
}

/** What a submission's steps say about it: its deadline, its latest failure, when it finished. */
interface StepSummary {
  slaDeadlineAt: string | null;
  errorSummary: string | null;
  failedAt: string | null;
  lastFinishedAt: string | null;
}

function summarise(steps: StepRow[]): Map<string, StepSummary> {
  const out = new Map<string, StepSummary>();
  for (const step of steps) {
    if (step.submission_id === null) continue;
    const s = out.get(step.submission_id) ?? {
      slaDeadlineAt: null,
      errorSummary: null,
      failedAt: null,
      lastFinishedAt: null,
    };
    // Every step carries the submission's deadline (set at acceptance); the earliest is it.
    const deadline = isoOrNull(step.sla_deadline_at);
    if (deadline !== null && (s.slaDeadlineAt === null || deadline < s.slaDeadlineAt))
      s.slaDeadlineAt = deadline;
    const failedAt = isoOrNull(step.failed_at);
    if (step.status === 'failed' && (s.failedAt === null || (failedAt ?? '') >= s.failedAt)) {
      s.failedAt = failedAt ?? '';
      s.errorSummary = step.error_summary;
    }
    const finished = isoOrNull(step.completed_at) ?? failedAt;
    if (finished !== null && (s.lastFinishedAt === null || finished > s.lastFinishedAt))
      s.lastFinishedAt = finished;
    out.set(step.submission_id, s);
  }
  return out;
}

/**
 * One account's submissions, newest first, by keyset on (received_at, id): a page continues
 * strictly below the last one's position, so submissions received during a walk never shift
 * it (no duplicates, no gaps). Two statements per page, one consistent read: the page with its
 * result (`submissions_list_idx` / `submissions_status_list_idx`, or `submissions_subject_idx` /
 * `submissions_partner_ref_idx` when filtered by a subject or reference), then its steps.
 */
export class TenantSubmissionList {
  constructor(
    private readonly connection: Pick<Driver, 'readConsistent'>,
    readonly tenantId: string,
    /** Records a read of the account before it is answered (`TenantAccess`'s). */
    private readonly recordRead: (entry: AuditEntry, origin: AuditOrigin) => Promise<void>,
  ) {}

  /** A page, newest first; the read is audited once, as a read of the account (`submission.listed`). */
  async list(q: SubmissionListQuery, origin: AuditOrigin): Promise<SubmissionListPage> {
    const page = await this.connection.readConsistent((db) => this.read(db, q));
    await this.recordRead(
      { action: 'submission.listed', resourceType: 'tenant', resourceId: this.tenantId },
      origin,
    );
    return page;
  }

  private async read(db: Kysely<Database>, q: SubmissionListQuery): Promise<SubmissionListPage> {
    const tenantId = this.tenantId;
    let query = db
      .selectFrom('submissions as s')
      .leftJoin('results as r', (join) =>
        join.onRef('r.submission_id', '=', 's.id').on('r.tenant_id', '=', tenantId),
      )
      .select([
        's.id',
        's.partner_submission_id',
        's.partner_subject_id',
        's.status',
        's.received_at',
        's.updated_at',
        'r.id as result_id',
        'r.updated_at as result_updated_at',
      ]);
    const reference = this.byReference(db, q);
    // Filtered by a reference, the page is chosen among the few submissions its index finds (the
    // subquery carries the account's predicate). Naming the account in the outer query too would
    // let SQLite, which keeps no statistics, walk the whole account in list order instead.
    query = reference ? query.where('s.id', 'in', reference) : query.where('s.tenant_id', '=', tenantId);
    if (q.status !== undefined) query = query.where('s.status', '=', q.status);
    if (q.receivedAfter) query = query.where('s.received_at', '>=', q.receivedAfter.toISOString());
    if (q.receivedBefore) query = query.where('s.received_at', '<', q.receivedBefore.toISOString());
    const { items: page, more } = await keysetPage(query, { at: 's.received_at', id: 's.id' }, q);
    const steps = await this.steps(
      db,
      page.map((r) => r.id),
    );
    const items = page.map((row): SubmissionListRecord => {
      const s = steps.get(row.id);
      return {
        submissionId: row.id,
        partnerSubmissionId: row.partner_submission_id,
        partnerSubjectId: row.partner_subject_id,
        status: row.status,
        receivedAt: iso(row.received_at),
        updatedAt: iso(row.updated_at),
        resultId: row.result_id ?? null,
        completedAt: row.status === 'completed' ? isoOrNull(row.result_updated_at) : null,
        errorSummary: s?.errorSummary ?? null,
        slaDeadlineAt: s?.slaDeadlineAt ?? null,
        finishedAt: FINAL.has(row.status) ? (s?.lastFinishedAt ?? null) : null,
      };
    });
    return { items, more };
  }

  /** The page's partner-visible steps, in one statement (`jobs_submission_idx`). */
  private async steps(db: Kysely<Database>, submissionIds: string[]): Promise<Map<string, StepSummary>> {
    if (submissionIds.length === 0) return new Map();
    const rows = await db
      .selectFrom('jobs')
      .select(['submission_id', 'status', 'completed_at', 'failed_at', 'sla_deadline_at', 'error_summary'])
      .where('tenant_id', '=', this.tenantId)
      .where('submission_id', 'in', submissionIds)
      .where('type', 'in', [...SUBMISSION_JOB_TYPES])
      .execute();
    return summarise(rows);
  }

  private byReference(db: Kysely<Database>, q: SubmissionListQuery) {
    return submissionsByReference(db, this.tenantId, q);
  }
}

/**
 * The ids of the account's submissions with the subject or reference asked for (exact match, by
 * their indexes), or undefined when neither is asked for. The events list filters by it too.
 */
export function submissionsByReference(
  db: Kysely<Database>,
  tenantId: string,
  q: { partnerSubjectId?: string | undefined; partnerSubmissionId?: string | undefined },
) {
  if (q.partnerSubjectId === undefined && q.partnerSubmissionId === undefined) return undefined;
  let ids = db.selectFrom('submissions').select('id').where('tenant_id', '=', tenantId);
  if (q.partnerSubjectId !== undefined) {
    // The subject id is derived from the reference: `submissions_subject_idx` finds them.
    ids = ids
      .where('subject_id', '=', subjectIdFor(tenantId, q.partnerSubjectId))
      .where('partner_subject_id', '=', q.partnerSubjectId);
  }
  if (q.partnerSubmissionId !== undefined)
    ids = ids.where('partner_submission_id', '=', q.partnerSubmissionId);
  return ids;
}
