import type { SqlDialect } from '../codec.js';

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

/**
 * Writes a batch in one transaction. A command that fails yields its own Error and leaves its
 * neighbours committed.
 */
export interface IngestBackend {
  readonly dialect: SqlDialect;
  writeBatch(
    commands: IngestCommand[],
    now: Date,
    policy: IngestPolicy,
  ): Promise<Array<IngestOutcome | Error>>;
}

interface Pending {
  command: IngestCommand;
  resolve(outcome: IngestOutcome): void;
  reject(error: unknown): void;
}

/**
 * Stores accepted submissions with their first job and idempotency record.
 *
 * Group commit: every command that arrives during one turn of the event loop is written in one
 * transaction, so one durable (fsync'd) commit acknowledges many requests. No promise resolves
 * before its transaction has committed, so a 202 always means the rows are on disk.
 */
export class IngestWriter {
  private queue: Pending[] = [];
  private scheduled = false;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly backend: IngestBackend,
    private readonly policy: IngestPolicy & { maxBatch: number },
    private readonly clock: () => Date = () => new Date(),
  ) {}

  ingest(command: IngestCommand): Promise<IngestOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ command, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.flushing = this.flushing.then(() => this.flush());
        });
      }
    });
  }

  /** Resolves once everything queued so far is committed (used at shutdown). */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.scheduled) {
      await new Promise((r) => setImmediate(r));
      await this.flushing;
    }
    await this.flushing;
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.policy.maxBatch);
      let results: Array<IngestOutcome | Error>;
      try {
        results = await this.backend.writeBatch(
          batch.map((p) => p.command),
          this.clock(),
          this.policy,
        );
      } catch (error) {
        for (const p of batch) p.reject(error);
        continue;
      }
      for (const [i, p] of batch.entries()) {
        const result = results[i]!;
        if (result instanceof Error) p.reject(result);
        else p.resolve(result);
      }
    }
  }
}
