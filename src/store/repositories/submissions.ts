import type { Kysely } from 'kysely';
import { SUBMISSION_JOB_TYPES } from '../../domain/statuses.js';
import { iso, isoOrNull } from '../codec.js';
import type { Database } from '../database.js';
import type { Driver } from '../driver.js';

export interface SubmissionRecord {
  submissionId: string;
  subjectId: string;
  partnerSubmissionId: string;
  partnerSubjectId: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  documentCount: number;
  resultId: string | null;
  resultCount: number;
  artifactCount: number;
  jobs: JobRecord[];
}

export interface JobRecord {
  jobId: string;
  type: string;
  status: string;
  correlationId: string | null;
  attempts: number;
  maxAttempts: number;
  queuedAt: string;
  acceptedAt: string;
  startedAt: string | null;
  completedAt: string | null;
  failedAt: string | null;
  slaDeadlineAt: string | null;
  errorSummary: string | null;
}

const PARTNER_VISIBLE_JOB_TYPES = [...SUBMISSION_JOB_TYPES];

/**
 * Reads bound to one tenant at construction: every query carries the tenant predicate, so a
 * route handler cannot read another account's rows by forgetting it.
 */
export class TenantSubmissions {
  constructor(
    private readonly connection: Pick<Driver, 'readConsistent'>,
    readonly tenantId: string,
  ) {}

  /** The submission with its result, counts and jobs, as of one moment. */
  get(submissionId: string): Promise<SubmissionRecord | undefined> {
    return this.connection.readConsistent((db) => this.read(db, submissionId));
  }

  private async read(db: Kysely<Database>, submissionId: string): Promise<SubmissionRecord | undefined> {
    const row = await db
      .selectFrom('submissions')
      .select([
        'id',
        'subject_id',
        'partner_submission_id',
        'partner_subject_id',
        'status',
        'created_at',
        'updated_at',
        'document_count',
      ])
      .where('tenant_id', '=', this.tenantId)
      .where('id', '=', submissionId)
      .executeTakeFirst();
    if (!row) return undefined;
    const result = await db
      .selectFrom('results')
      .select('id')
      .where('tenant_id', '=', this.tenantId)
      .where('submission_id', '=', submissionId)
      .executeTakeFirst();
    const artifactCount = result
      ? Number(
          (
            await db
              .selectFrom('artifacts')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('tenant_id', '=', this.tenantId)
              .where('result_id', '=', result.id)
              .executeTakeFirstOrThrow()
          ).n,
        )
      : 0;
    const jobs = await db
      .selectFrom('jobs')
      .selectAll()
      .where('tenant_id', '=', this.tenantId)
      .where('submission_id', '=', submissionId)
      .where('type', 'in', PARTNER_VISIBLE_JOB_TYPES)
      .orderBy('queued_at')
      .orderBy('id')
      .execute();
    return {
      submissionId: row.id,
      subjectId: row.subject_id,
      partnerSubmissionId: row.partner_submission_id,
      partnerSubjectId: row.partner_subject_id,
      status: row.status,
      createdAt: iso(row.created_at),
      updatedAt: iso(row.updated_at),
      documentCount: row.document_count,
      resultId: result?.id ?? null,
      resultCount: result ? 1 : 0,
      artifactCount,
      jobs: jobs.map((j) => ({
        jobId: j.id,
        type: j.type,
        status: j.status,
        correlationId: j.correlation_id,
        attempts: j.attempts,
        maxAttempts: j.max_attempts,
        queuedAt: iso(j.queued_at),
        acceptedAt: iso(j.accepted_at),
        startedAt: isoOrNull(j.started_at),
        completedAt: isoOrNull(j.completed_at),
        failedAt: isoOrNull(j.failed_at),
        slaDeadlineAt: isoOrNull(j.sla_deadline_at),
        errorSummary: j.error_summary,
      })),
    };
  }
}
