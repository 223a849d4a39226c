import type { Kysely, Transaction } from 'kysely';
import type { SqlDialect } from '../codec.js';
import type { Committer } from '../commit-batcher.js';
import type { Database } from '../database.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface IngestCommand {
  tenantId: string;
  partnerId: string;
  idempotencyKeyHash: string;
  /** Hash of the body bytes as received: equal hashes are the same request without more work. */
  requestHash: string;
  /**
   * Decides whether a stored request body is the same JSON value as this one (key order and
   * whitespace aside). Only called when an idempotency key is reused with different bytes.
   */
  sameBody(storedOriginalBody: string): boolean;
  correlationId: string;
  requestId: string;
  partnerSubmissionId: string;
  partnerSubjectId: string;
  originalBody: string;
  normalisedBody: string;
  documentCount: number;
  markerCount: number;
  /**
   * The instant the door checked the body at (age and date rules depend on it). Stored as the
   * submission's `received_at`, which the worker checks it at again, so the two never disagree
   * across a change of day or year. Defaults to the commit's clock.
   */
  receivedAt?: Date;
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
  | { kind: 'mismatch' };

export interface IngestPolicy {
  idempotencyTtlMs: number;
  slaSeconds: number;
  maxAttempts: number;
}

/** Writes one accepted submission, its first job and its idempotency claim. */
export interface IngestBackend {
  readonly dialect: SqlDialect;
  writeOne(db: Db, command: IngestCommand, now: Date, policy: IngestPolicy): Promise<IngestOutcome>;
}

/**
 * Stores accepted submissions with their first job and idempotency record.
 *
 * Group commit: each submission is a unit of work for the store's commit batcher, which
 * writes everything submitted during one turn of the event loop (other submissions, job
 * claims and completions) in one transaction, each in its own savepoint. One durable
 * (fsync'd) commit thus acknowledges many requests, and no promise resolves before its
 * commit, so a 202 always means the rows are on disk.
 */
export class IngestWriter {
  constructor(
    private readonly backend: IngestBackend,
    private readonly committer: Committer,
    private readonly policy: IngestPolicy,
    private readonly clock: () => Date = () => new Date(),
    /** Called after each commit that created a submission (and so its first job). */
    private readonly onCommitted: () => void = () => {},
  ) {}

  async ingest(command: IngestCommand): Promise<IngestOutcome> {
    const outcome = await this.committer.submit(
      (trx) => this.backend.writeOne(trx, command, command.receivedAt ?? this.clock(), this.policy),
      // The same key always takes the same lane (PostgreSQL): its requests queue there.
      { urgent: true, lockKey: `${command.partnerId}:${command.idempotencyKeyHash}` },
    );
    if (outcome.kind === 'created') this.onCommitted();
    return outcome;
  }
}
