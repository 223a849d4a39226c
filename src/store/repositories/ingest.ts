import type { Clock } from '../../clock.js';
import type { AuditOrigin } from '../../domain/audit.js';
import { iso } from '../codec.js';
import type { Committer } from '../commit-batcher.js';
import type { Driver, PriorClaim } from '../driver.js';
import { newId } from '../ids.js';
import { unpackJson } from '../packing/packed-json.js';
import { type NamedQuery, namedQuery } from '../prepared.js';
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

/** One checked submission to store: its values, and what its idempotency is decided on. */
export interface IngestCommand extends SubmissionValues {
  idempotencyKeyHash: string;
  /** Hash of the body as received: equal hashes are the same request without more work. */
  requestHash: string;
  /**
   * The instant the door checked the body at (age and date rules depend on it). Stored as the
   * submission's `received_at`, which the worker checks it at again, so the two never disagree
   * across a change of day or year. Defaults to the commit's clock.
   */
  receivedAt?: Date;
  /** The API key that sent it, for the audit trail (by id). */
  keyId: string;
}

export interface AcceptedSubmission {
  submissionId: string;
  jobId: string;
  partnerSubmissionId: string;
  partnerSubjectId: string;
  receivedAt: string;
}

/** The claim that holds a key another request took first, as ingest decides on it. */
export type HeldClaim =
  /** Its submission was erased on request (only erasure deletes one). */
  | { erased: true }
  | {
      erased: false;
      /** The same request bytes (by hash). */
      sameRequest: boolean;
      /** The stored body, when the hashes differ (to compare the JSON values); null otherwise. */
      originalBody: string | null;
      /** What the request that took the key was answered. */
      accepted: AcceptedSubmission;
    };

export type IngestResult =
  | ({ kind: 'created' } & AcceptedSubmission)
  /** The key was taken: ingest decides between a replay, a mismatch and an erased submission. */
  | { kind: 'taken'; held: HeldClaim };

export interface IngestPolicy {
  idempotencyTtlMs: number;
  slaSeconds: number;
  maxAttempts: number;
}

/**
 * Stores accepted submissions with their first job, idempotency claim and audit event.
 *
 * The rows come from `rows.ts`; the driver writes them and answers once they are durably
 * committed, in a commit many submissions share (on SQLite, on its writer thread; on
 * PostgreSQL, one statement in the group commit), so a 202 always means the rows are on disk.
 * A request that finds its key taken gets the claim that holds it; ingest decides on it
 * (`ingest/idempotency.ts`), the same on both databases.
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

  async ingest(c: IngestCommand): Promise<IngestResult> {
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
      submission: submissionRow(submissionId, c, now, this.driver),
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
    return { kind: 'taken', held: held(written.prior ?? (await this.readPrior(claim))) };
  }

  /**
   * The claim that holds the key, read when the driver did not see it on the way (on
   * PostgreSQL the winner committed after the statement's snapshot): a fresh read sees it.
   */
  private async readPrior(claim: IdempotencyRow): Promise<PriorClaim> {
    const [prior] = await this.driver.runner.all<PriorClaim>(this.driver.db, this.prior, { k: claim });
    if (!prior) throw new Error('idempotency key vanished after its claim was refused');
    return prior;
  }

  /** Records that a request was answered with the submission its key holds (a replay). */
  recordReplay(tenantId: string, submissionId: string, origin: AuditOrigin): Promise<void> {
    // Commit unit: one audit insert with a fresh id each run; a rolled-back first run left none.
    return this.committer.submit(
      (trx) =>
        this.audit.record(
          trx,
          tenantId,
          { action: 'submission.replayed', resourceType: 'submission', resourceId: submissionId },
          origin,
          this.clock(),
        ),
      { urgent: true },
    );
  }
}

function held(prior: PriorClaim): HeldClaim {
  if (prior.erased || prior.received_at === null) return { erased: true };
  return {
    erased: false,
    sameRequest: Boolean(prior.same_request),
    originalBody: prior.original_body === null ? null : unpackJson(prior.original_body),
    accepted: {
      submissionId: prior.submission_id,
      jobId: prior.job_id,
      partnerSubmissionId: prior.partner_submission_id ?? '',
      partnerSubjectId: prior.partner_subject_id ?? '',
      receivedAt: iso(prior.received_at),
    },
  };
}
