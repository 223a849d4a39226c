import type { Clock } from '../../clock.js';
import type { AuditOrigin } from '../../domain/audit.js';
import { iso } from '../codec.js';
import type { Committer } from '../commit-batcher.js';
import type { Driver, PriorClaim } from '../driver.js';
import { newId } from '../ids.js';
import { type Executor, type NamedQuery, namedQuery } from '../prepared.js';
import {
  auditRow,
  firstJob,
  type IdempotencyRow,
  idempotencyRow,
  jobRow,
  type SubmissionValues,
  submissionRow,
} from '../rows.js';
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
 * Stores accepted submissions with their first job, idempotency record and audit event.
 *
 * The rows come from `rows.ts`; the driver writes them and answers once they are durably
 * committed, in a commit many submissions share (on SQLite, on its writer thread; on
 * PostgreSQL, one statement in the group commit), so a 202 always means the rows are on disk.
 * A request that finds its key taken is decided here, the same on both: a replay, a mismatch,
 * or an erased submission.
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

  async ingest(c: IngestCommand): Promise<IngestOutcome> {
    const now = c.receivedAt ?? this.clock();
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
    const origin = {
      actor: { type: 'api_key' as const, keyId: c.keyId },
      requestId: c.requestId,
      correlationId: c.correlationId,
    };
    const written = await this.driver.ingest({
      claim,
      submission: submissionRow(submissionId, c, now),
      job: jobRow(firstJob({ jobId, submissionId }, c, this.policy, now), now, null),
      audit: auditRow(
        c.tenantId,
        { action: 'submission.created', resourceType: 'submission', resourceId: submissionId },
        origin,
        now,
      ),
    });
    if (written.created) {
      this.onCommitted();
      return {
        kind: 'created',
        submissionId,
        jobId,
        partnerSubmissionId: c.partnerSubmissionId,
        partnerSubjectId: c.partnerSubjectId,
        receivedAt: now.toISOString(),
      };
    }
    // Commit unit: reads the prior claim in `trx` when the driver did not, writes one audit
    // event, and answers with its return value.
    return this.committer.submit((trx) => this.decideReplay(trx, written.prior, claim, c, origin, now), {
      urgent: true,
      lockKey: `${c.partnerId}:${c.idempotencyKeyHash}`,
    });
  }

  /** The key is taken: a replay of the same body (recorded), a mismatch, or an erased submission. */
  private async decideReplay(
    db: Executor,
    seen: PriorClaim | undefined,
    claim: IdempotencyRow,
    c: IngestCommand,
    origin: AuditOrigin,
    now: Date,
  ): Promise<IngestOutcome> {
    let prior = seen;
    if (!prior) {
      // Not seen on the way (on PostgreSQL the winner committed after the statement's
      // snapshot): read it now, with a fresh one.
      [prior] = await this.driver.runner.all<PriorClaim>(db, this.prior, { k: claim });
      if (!prior) throw new Error('idempotency key vanished after its claim was refused');
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
