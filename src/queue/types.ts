import type { Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { SubmissionStatus } from '../domain/statuses.js';
import type { ClaimedJob, NewJob } from '../jobs/types.js';
import type { Database } from '../store/database.js';

export type { ClaimedJob, NewJob } from '../jobs/types.js';

export interface CompletionContext {
  /**
   * Enqueues a follow-up job in the completing transaction. The worker that completes the
   * current job claims it in the same transaction and starts it right after the commit, so a
   * chain of steps costs no extra claim round (another worker may still take it if this one
   * dies: the lease covers it like any claim). Resolves true when this worker claimed it and
   * its start status was written in this transaction, false when it waits in the queue.
   *
   * `handOver` is what this step already holds that the next one would otherwise read again
   * (the loaded submission): the worker hands it to that attempt alone (`HandlerContext`).
   */
  enqueue(job: NewJob, handOver?: unknown): Promise<boolean>;
  /** Runs `fn` once the completing transaction has committed (not if it rolls back). */
  afterCommit(fn: () => Promise<void>): void;
  /**
   * The status the job's submission takes with this completion, written by the statement that
   * marks the job completed (the unit's last write) rather than one of its own. A read in the
   * same transaction before that still sees the old status.
   */
  endSubmission(status: SubmissionStatus): void;
}

/**
 * Writes run in the transaction that completes a job: results, status changes, next jobs. It
 * runs inside the worker's commit unit, so it may run twice, the first attempt rolled back
 * (`CommitUnit`): it writes through `trx`, enqueues and defers through `ctx` (which the worker
 * empties before each attempt), and decides from what it reads in `trx` or what `run` computed.
 */
export type Completion = (trx: Transaction<Database>, ctx: CompletionContext) => Promise<void>;

/** What a step handler runs with: taken from the job's work context, never made up by the step. */
export interface HandlerContext {
  /** Aborted when the lease is lost or the worker shuts down: stop and throw. */
  signal: AbortSignal;
  /** Carries the job's ids (request, correlation, tenant, submission, job), and any the step adds. */
  readonly log: Logger;
  /** The service's clock: what a step stamps or signs reads this, never `new Date()`. */
  clock: Clock;
  /**
   * What the step that chained this job handed over in memory (`CompletionContext.enqueue`),
   * as of the commit that created the job: only on the attempt that commit claimed, started by
   * the same worker right after it. A retry, a rescue or another process starts without it and
   * reads the store. A step checks what it is given before using it.
   */
  handOver?: unknown;
}

/** A failure that retrying cannot fix: the job fails at once with this plain-language summary. */
export class PermanentJobError extends Error {
  constructor(readonly summary: string) {
    super(summary);
  }
}

/**
 * A failure the step expects now and then (the receiver did not answer 2xx, a network error):
 * retried like any failure, logged with its class and no stack trace, which would say nothing.
 */
export class ExpectedJobError extends Error {
  constructor(
    message: string,
    readonly errorClass: string,
  ) {
    super(message);
  }
}

/**
 * A service outside ours that the step needs (the object store) is unavailable: retried with
 * the usual backoff but never failed for good for it, however many attempts it takes, since
 * nothing is wrong with the job itself and what it would fail (a submission's reports) comes
 * back once the service does.
 */
export class DependencyUnavailableError extends ExpectedJobError {}

export interface JobDefinition {
  /**
   * Does the step's work outside any transaction (it may be CPU-heavy) and returns the writes
   * that record its outcome; those run in the transaction that marks the job completed.
   */
  run(job: ClaimedJob, ctx: HandlerContext): Promise<Completion>;
  /**
   * The status the job's submission takes when an attempt starts, written with the claim (one
   * statement for every job the claim took) or in the statement that chains the job.
   */
  startStatus?: SubmissionStatus;
  /** Called in the transaction that marks the job failed for good (a `CommitUnit`: may run twice). */
  onFailed?(trx: Transaction<Database>, job: ClaimedJob, summary: string, error: unknown): Promise<void>;
  /** Called once a final failure (and its `onFailed` writes) committed: for what it reports. */
  afterFailed?(job: ClaimedJob, error: unknown): void;
  /**
   * Delay before the next attempt after failed attempt number `attempt` (1-based), for steps
   * with their own schedule (webhook deliveries); others back off exponentially with jitter.
   */
  retryDelayMs?(attempt: number): number;
  /**
   * The step acts outside the database (a callback sent): its completion is committed at once
   * on a lane of its own instead of joining the next group commit, so a crash between the act
   * and its record, which makes the act happen twice, has the shortest window there is.
   */
  commitsUrgently?: boolean;
  /** Plain-language summary of an error for `errorSummary`; never a stack trace. */
  summarize?(error: unknown): string;
}
