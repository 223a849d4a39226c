import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../database.js';
import { newId, subjectIdFor } from '../ids.js';
import { namedQuery, type PreparedRunner, slot } from '../prepared.js';
import type { IngestBackend, IngestCommand, IngestOutcome, IngestPolicy } from '../repositories/ingest.js';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * The idempotency claim, the submission and its first job in ONE statement (a data-modifying
 * CTE): on PostgreSQL each statement is a network round trip, and round trips, not the writes,
 * are what an ingest costs.
 *
 * - `claim` inserts the key, or takes it over once the previous claim has expired (24 hours).
 *   The primary key decides between concurrent requests in any number of processes: a second
 *   insert of the same key waits for the first transaction and then conflicts.
 * - `submission` and `job` insert only if `claim` returned a row. The job row is the one
 *   `JobsRepository.enqueue` writes for a new job; its trigger sends the jobs notification.
 * - The final select also returns the existing claim when this one lost, so an ordinary replay
 *   needs no second statement. That read sees the statement's snapshot: a winner that committed
 *   after the snapshot was taken is invisible to it, and `prior` below is read then.
 */
function ingestQueries(db: Kysely<Database>) {
  const ingest = sql`
    with claim as (
      insert into idempotency_keys as k
        (partner_id, key_hash, request_hash, submission_id, job_id, created_at, expires_at)
      values (${slot('partnerId')}, ${slot('keyHash')}, ${slot('requestHash')}, ${slot('submissionId')},
        ${slot('jobId')}, ${slot('now')}, ${slot('expiresAt')})
      on conflict (partner_id, key_hash) do update set
        request_hash = excluded.request_hash, submission_id = excluded.submission_id,
        job_id = excluded.job_id, created_at = excluded.created_at, expires_at = excluded.expires_at
      where k.expires_at <= excluded.created_at
      returning k.submission_id
    ), submission as (
      insert into submissions
        (id, tenant_id, partner_id, subject_id, partner_submission_id, partner_subject_id, status,
         correlation_id, request_id, original_body, normalised_body, document_count, marker_count,
         received_at, created_at, updated_at)
      select claim.submission_id, ${slot('tenantId')}::uuid, ${slot('partnerId')}::uuid,
        ${slot('subjectId')}::uuid, ${slot('partnerSubmissionId')}::text, ${slot('partnerSubjectId')}::text,
        'received', ${slot('correlationId')}::text, ${slot('requestId')}::text, ${slot('originalBody')}::text,
        ${slot('normalisedBody')}::text, ${slot('documentCount')}::integer, ${slot('markerCount')}::integer,
        ${slot('now')}::timestamptz, ${slot('now')}::timestamptz, ${slot('now')}::timestamptz
      from claim
      returning id
    ), job as (
      insert into jobs
        (id, tenant_id, submission_id, type, status, payload, correlation_id, request_id, attempts,
         max_attempts, run_at, locked_until, locked_by, queued_at, accepted_at, started_at, completed_at,
         failed_at, sla_deadline_at, error_summary, created_at, updated_at)
      select ${slot('jobId')}::uuid, ${slot('tenantId')}::uuid, submission.id, 'pipeline.ingest_validate',
        'pending', null, ${slot('correlationId')}::text, ${slot('requestId')}::text, 0,
        ${slot('maxAttempts')}::integer, ${slot('now')}::timestamptz, null, null, ${slot('now')}::timestamptz,
        ${slot('now')}::timestamptz, null, null, null, ${slot('slaDeadlineAt')}::timestamptz, null,
        ${slot('now')}::timestamptz, ${slot('now')}::timestamptz
      from submission
      returning id
    )
    select (select count(*) from job)::integer as created, prior.*
    from (select) as one
    left join lateral (
      select k.submission_id, k.job_id, k.request_hash = ${slot('requestHash')}::text as same_request,
        case when k.request_hash = ${slot('requestHash')}::text then null else s.original_body end
          as original_body,
        s.partner_submission_id, s.partner_subject_id, s.received_at
      from idempotency_keys k
      join submissions s on s.id = k.submission_id
      where k.partner_id = ${slot('partnerId')}::uuid and k.key_hash = ${slot('keyHash')}::text
        and not exists (select from claim)
    ) as prior on true`.compile(db);

  const prior = db
    .selectFrom('idempotency_keys')
    .innerJoin('submissions', 'submissions.id', 'idempotency_keys.submission_id')
    .select([
      'idempotency_keys.submission_id',
      'idempotency_keys.job_id',
      sql<boolean>`idempotency_keys.request_hash = ${slot('requestHash')}`.as('same_request'),
      'submissions.original_body',
      'submissions.partner_submission_id',
      'submissions.partner_subject_id',
      'submissions.received_at',
    ])
    .where('idempotency_keys.partner_id', '=', slot('partnerId'))
    .where('idempotency_keys.key_hash', '=', slot('keyHash'))
    .compile();

  return { ingest: namedQuery(ingest), prior: namedQuery(prior) };
}

interface PriorRow {
  submission_id: string;
  job_id: string;
  same_request: boolean;
  /** Only when the request hashes differ (the comparison needs it). */
  original_body: string | null;
  partner_submission_id: string;
  partner_subject_id: string;
  received_at: string;
}

/** `created` is 1 when this statement claimed the key; otherwise the prior claim, if it saw one. */
type IngestRow = { created: number } & { [K in keyof PriorRow]: PriorRow[K] | null };

/** PostgreSQL's ingest path: one statement per submission inside the commit batcher's transaction. */
export class PostgresIngestBackend implements IngestBackend {
  readonly dialect = 'postgres' as const;
  private readonly q: ReturnType<typeof ingestQueries>;

  constructor(
    private readonly runner: PreparedRunner,
    db: Kysely<Database>,
  ) {
    this.q = ingestQueries(db);
  }

  async writeOne(db: Db, c: IngestCommand, now: Date, policy: IngestPolicy): Promise<IngestOutcome> {
    const nowIso = now.toISOString();
    const nowMs = now.getTime();
    const submissionId = newId();
    const jobId = newId();
    const [row] = await this.runner.all<IngestRow>(db, this.q.ingest, {
      partnerId: c.partnerId,
      keyHash: c.idempotencyKeyHash,
      requestHash: c.requestHash,
      submissionId,
      jobId,
      now: nowIso,
      expiresAt: new Date(nowMs + policy.idempotencyTtlMs).toISOString(),
      tenantId: c.tenantId,
      subjectId: subjectIdFor(c.tenantId, c.partnerSubjectId),
      partnerSubmissionId: c.partnerSubmissionId,
      partnerSubjectId: c.partnerSubjectId,
      correlationId: c.correlationId,
      requestId: c.requestId,
      originalBody: c.originalBody,
      normalisedBody: c.normalisedBody,
      documentCount: c.documentCount,
      markerCount: c.markerCount,
      maxAttempts: policy.maxAttempts,
      slaDeadlineAt: new Date(nowMs + policy.slaSeconds * 1000).toISOString(),
    });
    if (!row) throw new Error('the ingest statement returned no row');
    if (row.created === 1) {
      return {
        kind: 'created',
        submissionId,
        jobId,
        partnerSubmissionId: c.partnerSubmissionId,
        partnerSubjectId: c.partnerSubjectId,
        receivedAt: nowIso,
      };
    }
    let prior = row.submission_id === null ? undefined : (row as PriorRow);
    if (!prior) {
      // The winner committed after this statement's snapshot: read it with a fresh one.
      [prior] = await this.runner.all<PriorRow>(db, this.q.prior, {
        partnerId: c.partnerId,
        keyHash: c.idempotencyKeyHash,
        requestHash: c.requestHash,
      });
      if (!prior) throw new Error('idempotency key vanished during its own transaction');
    }
    if (!prior.same_request && !c.sameBody(prior.original_body ?? '')) return { kind: 'mismatch' };
    return {
      kind: 'replayed',
      submissionId: prior.submission_id,
      jobId: prior.job_id,
      partnerSubmissionId: prior.partner_submission_id,
      partnerSubjectId: prior.partner_subject_id,
      receivedAt: prior.received_at,
    };
  }
}
