import type { Kysely, Transaction } from 'kysely';
import type { SqlDialect } from '../codec.js';
import type { CommitBatcher } from '../commit-batcher.js';
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
    /**
     * Commit lanes. SQLite has one connection and so one lane. On PostgreSQL several lanes
     * commit at once on their own connections: a lane's batch is a round trip per submission
     * plus a commit that holds the server's notification lock until its WAL flush (the job
     * trigger's NOTIFY), so one lane would cap ingest at what one connection can do in turn.
     */
    private readonly lanes: readonly CommitBatcher[],
    private readonly policy: IngestPolicy,
    private readonly clock: () => Date = () => new Date(),
    /** Called after each commit that created a submission (and so its first job). */
    private readonly onCommitted: () => void = () => {},
  ) {}

  async ingest(command: IngestCommand): Promise<IngestOutcome> {
    const lockKey = `${command.partnerId}:${command.idempotencyKeyHash}`;
    // The same key always takes the same lane: its requests queue behind each other there.
    const lane = this.lanes[laneOf(lockKey, this.lanes.length)]!;
    const outcome = await lane.submit(
      (trx) => this.backend.writeOne(trx, command, this.clock(), this.policy),
      {
        urgent: true,
        lockKey,
      },
    );
    if (outcome.kind === 'created') this.onCommitted();
    return outcome;
  }
}

function laneOf(key: string, lanes: number): number {
  if (lanes === 1) return 0;
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (Math.imul(h, 31) + key.charCodeAt(i)) | 0;
  return Math.abs(h) % lanes;
}
