import type { Transaction } from 'kysely';
import type { ClaimedJob } from '../jobs/types.js';
import type { Database } from '../store/database.js';
import type { JobsRepository } from '../store/repositories/jobs.js';
import { retryDelayMs } from './backoff.js';
import {
  DependencyUnavailableError,
  ExpectedJobError,
  type JobDefinition,
  PermanentJobError,
} from './types.js';

const DEFAULT_SUMMARY = 'This step failed because of an internal error.';
export const STOPPED_SUMMARY =
  'The worker processing this step stopped before finishing; it will be retried.';

/** A worker stopped mid-step (it died, or its lease ran out): retryable, with its own summary. */
export class WorkerStoppedError extends Error {
  constructor() {
    super(STOPPED_SUMMARY);
  }
}

export interface RetryPolicy {
  retryBaseMs: number;
  retryCapMs: number;
}

/** What happens to a failed attempt: retried at `nextAttemptAt`, or failed for good (null). */
export interface FailurePlan {
  summary: string;
  nextAttemptAt: Date | null;
}

export function planFailure(
  job: ClaimedJob,
  def: JobDefinition | undefined,
  error: unknown,
  now: Date,
  policy: RetryPolicy,
): FailurePlan {
  const permanent = error instanceof PermanentJobError;
  const interrupted = error instanceof WorkerStoppedError;
  const summary = permanent
    ? error.summary
    : interrupted
      ? STOPPED_SUMMARY
      : (def?.summarize?.(error) ?? DEFAULT_SUMMARY);
  const outlasts = error instanceof DependencyUnavailableError;
  if (permanent || (job.attempt >= job.maxAttempts && !outlasts)) return { summary, nextAttemptAt: null };
  // An attempt its worker never finished (it died or stopped) did not fail: it runs again at
  // once, and keeps its place in line (due since it was accepted) rather than waiting for the
  // step's retry schedule behind everything queued meanwhile.
  if (interrupted) {
    return { summary, nextAttemptAt: new Date(Math.min(Date.parse(job.acceptedAt), now.getTime())) };
  }
  const delay =
    def?.retryDelayMs?.(job.attempt) ?? retryDelayMs(job.attempt, policy.retryBaseMs, policy.retryCapMs);
  return { summary, nextAttemptAt: new Date(now.getTime() + delay) };
}

/** Records the plan in `trx`: a retry, or a final failure with the step's `onFailed` writes. */
export async function recordFailure(
  trx: Transaction<Database>,
  jobs: JobsRepository,
  job: ClaimedJob,
  def: JobDefinition | undefined,
  error: unknown,
  plan: FailurePlan,
  now: Date,
): Promise<void> {
  if (plan.nextAttemptAt === null) {
    if (await jobs.fail(trx, job, plan.summary, now)) await def?.onFailed?.(trx, job, plan.summary, error);
  } else {
    await jobs.retryLater(trx, job, plan.nextAttemptAt, plan.summary, now);
  }
}

/** Expected failures are named by class; anything else keeps its stack for whoever debugs it. */
function describeFailure(error: unknown): Record<string, unknown> {
  if (error instanceof ExpectedJobError) return { errorClass: error.errorClass };
  if (error instanceof PermanentJobError || error instanceof WorkerStoppedError) {
    return { errorClass: error.constructor.name };
  }
  return { err: error };
}

/** The log line of a recorded failure. */
export function logFailure(
  log: { warn(obj: object, msg: string): void },
  error: unknown,
  plan: FailurePlan,
): void {
  const cause = describeFailure(error);
  if (plan.nextAttemptAt === null) log.warn({ ...cause, summary: plan.summary }, 'job failed for good');
  else
    log.warn(
      { ...cause, summary: plan.summary, nextAttemptAt: plan.nextAttemptAt.toISOString() },
      'job failed; will retry',
    );
}
