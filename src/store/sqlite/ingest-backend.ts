import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../database.js';
import { newId, subjectIdFor } from '../ids.js';
import { namedQuery, type PreparedRunner, slot } from '../prepared.js';
import type { IngestBackend, IngestCommand, IngestOutcome, IngestPolicy } from '../repositories/ingest.js';
import type { JobsRepository } from '../repositories/jobs.js';

function ingestQueries(db: Kysely<Database>) {
  // Claims the key, or takes it over once the previous claim has expired (24-hour scope).
  const claim = db
    .insertInto('idempotency_keys')
    .values({
      partner_id: slot('partnerId'),
      key_hash: slot('keyHash'),
      request_hash: slot('requestHash'),
      submission_id: slot('submissionId'),
      job_id: slot('jobId'),
      created_at: slot('now'),
      expires_at: slot('expiresAt'),
    })
    .onConflict((oc) =>
      oc
        .columns(['partner_id', 'key_hash'])
        .doUpdateSet((eb) => ({
          request_hash: eb.ref('excluded.request_hash'),
          submission_id: eb.ref('excluded.submission_id'),
          job_id: eb.ref('excluded.job_id'),
          created_at: eb.ref('excluded.created_at'),
          expires_at: eb.ref('excluded.expires_at'),
        }))
        .where('idempotency_keys.expires_at', '<=', slot('now')),
    )
    .returning(['submission_id'])
    .compile();

  const prior = db
    .selectFrom('idempotency_keys')
    .innerJoin('submissions', 'submissions.id', 'idempotency_keys.submission_id')
    .select([
      'idempotency_keys.request_hash',
      'idempotency_keys.submission_id',
      'idempotency_keys.job_id',
      'submissions.original_body',
      'submissions.partner_submission_id',
      'submissions.partner_subject_id',
      'submissions.received_at',
    ])
    .where('idempotency_keys.partner_id', '=', slot('partnerId'))
    .where('idempotency_keys.key_hash', '=', slot('keyHash'))
    .compile();

  const submission = db
    .insertInto('submissions')
    .values({
      id: slot('submissionId'),
      tenant_id: slot('tenantId'),
      partner_id: slot('partnerId'),
      subject_id: slot('subjectId'),
      partner_submission_id: slot('partnerSubmissionId'),
      partner_subject_id: slot('partnerSubjectId'),
      status: slot('status'),
      correlation_id: slot('correlationId'),
      request_id: slot('requestId'),
      original_body: slot('originalBody'),
      normalised_body: slot('normalisedBody'),
      document_count: slot<number>('documentCount'),
      marker_count: slot<number>('markerCount'),
      received_at: slot('now'),
      created_at: slot('now'),
      updated_at: slot('now'),
    })
    .compile();

  return {
    claim: namedQuery(claim),
    prior: namedQuery(prior),
    submission: namedQuery(submission),
  };
}

type Db = Kysely<Database> | Transaction<Database>;

interface PriorRow {
  request_hash: string;
  submission_id: string;
  job_id: string;
  original_body: string;
  partner_submission_id: string;
  partner_subject_id: string;
  received_at: string;
}

/**
 * The embedded store's ingest path: SQL written once with Kysely and run as prepared
 * statements on the store's single connection, inside the commit batcher's transaction.
 */
export class SqliteIngestBackend implements IngestBackend {
  readonly dialect = 'sqlite' as const;
  private readonly q: ReturnType<typeof ingestQueries>;

  constructor(
    private readonly runner: PreparedRunner,
    private readonly jobs: JobsRepository,
    db: Kysely<Database>,
  ) {
    this.q = ingestQueries(db);
  }

  async writeOne(db: Db, c: IngestCommand, now: Date, policy: IngestPolicy): Promise<IngestOutcome> {
    const nowIso = now.toISOString();
    const nowMs = now.getTime();
    const submissionId = newId();
    const jobId = newId();
    const values = {
      partnerId: c.partnerId,
      keyHash: c.idempotencyKeyHash,
      requestHash: c.requestHash,
      submissionId,
      jobId,
      now: nowIso,
      expiresAt: new Date(nowMs + policy.idempotencyTtlMs).toISOString(),
    };
    const [claimed] = await this.runner.all<{ submission_id: string }>(db, this.q.claim, values);
    if (!claimed || claimed.submission_id !== submissionId) {
      const [row] = await this.runner.all<PriorRow>(db, this.q.prior, values);
      if (!row) throw new Error('idempotency key vanished during its own transaction');
      if (row.request_hash !== c.requestHash && !c.sameBody(row.original_body)) return { kind: 'mismatch' };
      return {
        kind: 'replayed',
        submissionId: row.submission_id,
        jobId: row.job_id,
        partnerSubmissionId: row.partner_submission_id,
        partnerSubjectId: row.partner_subject_id,
        receivedAt: row.received_at,
      };
    }
    await this.runner.run(db, this.q.submission, {
      submissionId,
      tenantId: c.tenantId,
      partnerId: c.partnerId,
      subjectId: subjectIdFor(c.tenantId, c.partnerSubjectId),
      partnerSubmissionId: c.partnerSubmissionId,
      partnerSubjectId: c.partnerSubjectId,
      status: 'received',
      correlationId: c.correlationId,
      requestId: c.requestId,
      originalBody: c.originalBody,
      normalisedBody: c.normalisedBody,
      documentCount: c.documentCount,
      markerCount: c.markerCount,
      now: nowIso,
    });
    await this.jobs.enqueue(
      db,
      {
        id: jobId,
        type: 'pipeline.ingest_validate',
        tenantId: c.tenantId,
        submissionId,
        correlationId: c.correlationId,
        requestId: c.requestId,
        acceptedAt: nowIso,
        slaDeadlineAt: new Date(nowMs + policy.slaSeconds * 1000).toISOString(),
        maxAttempts: policy.maxAttempts,
      },
      now,
    );
    return {
      kind: 'created',
      submissionId,
      jobId,
      partnerSubmissionId: c.partnerSubmissionId,
      partnerSubjectId: c.partnerSubjectId,
      receivedAt: nowIso,
    };
  }
}
