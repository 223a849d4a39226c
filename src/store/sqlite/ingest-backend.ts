import type SqliteDatabase from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from '../database.js';
import { newId, subjectIdFor } from '../ids.js';
import { type NamedQuery, namedQuery, slot } from '../prepared.js';
import type { IngestBackend, IngestCommand, IngestOutcome, IngestPolicy } from '../repositories/ingest.js';

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

  const job = db
    .insertInto('jobs')
    .values({
      id: slot('jobId'),
      tenant_id: slot('tenantId'),
      submission_id: slot('submissionId'),
      type: slot('type'),
      status: slot('status'),
      payload: slot('payload'),
      correlation_id: slot('correlationId'),
      request_id: slot('requestId'),
      attempts: slot<number>('attempts'),
      max_attempts: slot<number>('maxAttempts'),
      run_at: slot('now'),
      locked_until: slot('nothing'),
      locked_by: slot('nothing'),
      queued_at: slot('now'),
      accepted_at: slot('now'),
      started_at: slot('nothing'),
      completed_at: slot('nothing'),
      failed_at: slot('nothing'),
      sla_deadline_at: slot('slaDeadlineAt'),
      error_summary: slot('nothing'),
      created_at: slot('now'),
      updated_at: slot('now'),
    })
    .compile();

  return {
    claim: namedQuery(claim),
    prior: namedQuery(prior),
    submission: namedQuery(submission),
    job: namedQuery(job),
  };
}

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
 * The embedded store's ingest path: SQL written once with Kysely, run as prepared statements
 * in one synchronous better-sqlite3 transaction per batch, with a savepoint per command.
 */
export class SqliteIngestBackend implements IngestBackend {
  readonly dialect = 'sqlite' as const;
  private writeAll:
    | ((commands: IngestCommand[], now: Date, policy: IngestPolicy) => Array<IngestOutcome | Error>)
    | undefined;

  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    private readonly db: Kysely<Database>,
  ) {}

  async writeBatch(
    commands: IngestCommand[],
    now: Date,
    policy: IngestPolicy,
  ): Promise<Array<IngestOutcome | Error>> {
    // Prepared on first use: the tables exist only once migrations have run.
    this.writeAll ??= this.prepare();
    return this.writeAll(commands, now, policy);
  }

  private prepare() {
    const sqlite = this.sqlite;
    const q = ingestQueries(this.db);
    const prepare = (n: NamedQuery) => ({ stmt: sqlite.prepare(n.sql), bind: n.bind });
    const claim = prepare(q.claim);
    const prior = prepare(q.prior);
    const submission = prepare(q.submission);
    const job = prepare(q.job);

    const writeOne = (
      c: IngestCommand,
      nowIso: string,
      nowMs: number,
      policy: IngestPolicy,
    ): IngestOutcome => {
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
      const claimed = claim.stmt.get(...claim.bind(values)) as { submission_id: string } | undefined;
      if (!claimed || claimed.submission_id !== submissionId) {
        const row = prior.stmt.get(...prior.bind(values)) as PriorRow;
        if (row.request_hash !== c.requestHash && !c.sameBody(row.original_body)) return { kind: 'mismatch' };
        return {
          kind: 'replayed',
          submissionId: row.submission_id,
          jobId: row.job_id,
          partnerSubmissionId: row.partner_submission_id,
          partnerSubjectId: row.partner_subject_id,
          receivedAt: row.received_at,
        } as const;
      }
      submission.stmt.run(
        ...submission.bind({
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
        }),
      );
      job.stmt.run(
        ...job.bind({
          jobId,
          tenantId: c.tenantId,
          submissionId,
          type: 'pipeline.ingest_validate',
          status: 'pending',
          payload: null,
          correlationId: c.correlationId,
          requestId: c.requestId,
          attempts: 0,
          maxAttempts: policy.maxAttempts,
          now: nowIso,
          nothing: null,
          slaDeadlineAt: new Date(nowMs + policy.slaSeconds * 1000).toISOString(),
        }),
      );
      return {
        kind: 'created',
        submissionId,
        jobId,
        partnerSubmissionId: c.partnerSubmissionId,
        partnerSubjectId: c.partnerSubjectId,
        receivedAt: nowIso,
      } as const;
    };

    const isolated = sqlite.transaction(writeOne);
    // The group commit: every command in one transaction. Should one fail, the batch rolls
    // back and each command is written again in its own savepoint, so only that one fails.
    const all = sqlite.transaction(
      (commands: IngestCommand[], nowIso: string, nowMs: number, policy: IngestPolicy) =>
        commands.map((c) => writeOne(c, nowIso, nowMs, policy)),
    );
    const oneByOne = sqlite.transaction(
      (commands: IngestCommand[], nowIso: string, nowMs: number, policy: IngestPolicy) =>
        commands.map((c): IngestOutcome | Error => {
          try {
            return isolated(c, nowIso, nowMs, policy);
          } catch (error) {
            return error instanceof Error ? error : new Error(String(error));
          }
        }),
    );
    return (commands: IngestCommand[], now: Date, policy: IngestPolicy): Array<IngestOutcome | Error> => {
      const nowIso = now.toISOString();
      const nowMs = now.getTime();
      try {
        return all(commands, nowIso, nowMs, policy);
      } catch {
        return oneByOne(commands, nowIso, nowMs, policy);
      }
    };
  }
}
