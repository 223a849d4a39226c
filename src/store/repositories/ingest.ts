import type { Clock } from '../../clock.js';
import { iso } from '../codec.js';
import type { Committer } from '../commit-batcher.js';
import type { Driver, PriorClaim } from '../driver.js';
import { newId } from '../ids.js';
import { type Executor, type NamedQuery, namedQuery } from '../prepared.js';
import { firstJob, idempotencyRow, jobRow, type SubmissionValues, submissionRow } from '../rows.js';
import { priorClaim } from '../statements.js';
import type { AuditRepository } from './audit.js';

/** One validated submission to store: its values, and what its idempotency is decided on. */
export interface IngestCommand extends SubmissionValues {
  idempotencyKeyHash: string;
  /** Hash of the body bytes as received: equal hashes are the same request without more work. */
  requestHash: string;
  /**
   * Decides whether a stored request body is the same JSON value as this one (key order and
   * whitespace aside). Only called when an idempotency key is reused with different bytes.
   */
  sameBody(storedOriginalBody: string): boolean;
  /**
   * The instant the door checked the body at (age and date rules depend on it). Stored as the
   * submission's `received_at`, which the worker checks it at again, so the two never disagree
   * across a change of day or year. Defaults to the commit's clock.
   */
  receivedAt?: Date;
  /** The API key that sent it, for the audit trail (by id). */
  keyId: string;
}

export interface Accepted {
  submissionId: string;
  jobId: string;
  partnerSubmissionId: string;
  partnerSubjectId: string;
  receivedAt: string;
}

export type IngestOutcome =
  | ({ kind: 'created' } & Accepted)
  | ({ kind: 'replayed' } & Accepted)
  | { kind: 'mismatch' }
  /** The key's submission was erased on request: a replay must not create it again. */
  | { kind: 'erased' };

export interface IngestPolicy {
  idempotencyTtlMs: number;
  slaSeconds: number;
  maxAttempts: number;
}

/**
 * Stores accepted submissions with their first job and idempotency record.
 *
 * Group commit: each submission is a unit of work for the store's committer, which writes
 * everything submitted during one turn of the event loop (other submissions, job claims and
 * completions) in one transaction, each in its own savepoint should one fail. One durable
 * (fsync'd) commit thus acknowledges many requests, and no promise resolves before its commit,
 * so a 202 always means the rows are on disk.
 *
 * The rows come from `rows.ts`; the driver writes them (three statements on SQLite, one on
 * PostgreSQL). The idempotency decision is made here, the same for both.
 */
export class IngestWriter {
  private readonly prior: NamedQuery;

  constructor(
    private readonly driver: Driver,
    private readonly committer: Committer,
    private readonly policy: IngestPolicy,
    private readonly clock: Clock,
    private readonly audit: AuditRepository,
    /** Called after each commit that created a submission (and so its first job). */
    private readonly onCommitted: () => void = () => {},
  ) {
    this.prior = namedQuery(priorClaim(driver.db).compile());
  }

  async ingest(command: IngestCommand): Promise<IngestOutcome> {
    const outcome = await this.committer.submit(
      (trx) => this.writeOne(trx, command, command.receivedAt ?? this.clock()),
      // The same key always takes the same lane (PostgreSQL): its requests queue there.
      { urgent: true, lockKey: `${command.partnerId}:${command.idempotencyKeyHash}` },
    );
    if (outcome.kind === 'created') this.onCommitted();
    return outcome;
  }

  /** Writes one submission inside the committer's transaction. */
  private async writeOne(db: Executor, c: IngestCommand, now: Date): Promise<IngestOutcome> {
    const submissionId = newId();
    const jobId = newId();
    const claim = idempotencyRow(
      {
        partnerId: c.partnerId,
        keyHash: c.idempotencyKeyHash,
        requestHash: c.requestHash,
        submissionId,
        jobId,
      },
      this.policy.idempotencyTtlMs,
      now,
    );
    const job = firstJob({ jobId, submissionId }, c, this.policy, now);
    const written = await this.driver.ingest(db, {
      claim,
      submission: submissionRow(submissionId, c, now),
      job: jobRow(job, now, null),
    });
    const origin = {
      actor: { type: 'api_key' as const, keyId: c.keyId },
      requestId: c.requestId,
      correlationId: c.correlationId,
    };
    if (written.created) {
      await this.audit.record(
        db,
        c.tenantId,
        { action: 'submission.created', resourceType: 'submission', resourceId: submissionId },
        origin,
        now,
      );
      return {
        kind: 'created',
        submissionId,
        jobId,
        partnerSubmissionId: c.partnerSubmissionId,
        partnerSubjectId: c.partnerSubjectId,
        receivedAt: now.toISOString(),
      };
    }
    let prior = written.prior;
    if (!prior) {
      // Not seen on the way (SQLite reads it apart; on PostgreSQL the winner committed after
      // the statement's snapshot): read it now, with a fresh one.
      [prior] = await this.driver.runner.all<PriorClaim>(db, this.prior, { k: claim });
      if (!prior) throw new Error('idempotency key vanished during its own transaction');
    }
    if (prior.erased || prior.received_at === null) return { kind: 'erased' };
    if (!prior.same_request && !c.sameBody(prior.original_body ?? '')) return { kind: 'mismatch' };
    await this.audit.record(
      db,
      c.tenantId,
      { action: 'submission.replayed', resourceType: 'submission', resourceId: prior.submission_id },
      origin,
      now,
    );
    return {
      kind: 'replayed',
      submissionId: prior.submission_id,
      jobId: prior.job_id,
      partnerSubmissionId: prior.partner_submission_id ?? '',
      partnerSubjectId: prior.partner_subject_id ?? '',
      receivedAt: iso(prior.received_at),
    };
  }
}
