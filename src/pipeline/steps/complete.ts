import type { Transaction } from 'kysely';
import type { ClaimedJob, CompletionContext, NewJob } from '../../queue/types.js';
import type { Database } from '../../store/database.js';
import { emit } from '../../telemetry/events.js';
import { recordResultReady } from '../../webhooks/outbox.js';
import { type PipelineDeps, RejectedSubmission, requireSubmissionId } from './common.js';

/** Where a step's completion may enqueue: the worker's, or a plain enqueue after a final failure. */
export type Enqueuer = {
  enqueue(next: NewJob): Promise<unknown>;
  afterCommit?: CompletionContext['afterCommit'];
  /** The worker's: the status written with the job's completion (absent after a final failure). */
  endSubmission?: CompletionContext['endSubmission'];
};

/** How a submission ends, shared by the steps: completed, failed or rejected. */
export interface SubmissionEnd {
  /** The submission's result is ready (see `completeSubmission`). */
  complete(trx: Transaction<Database>, job: ClaimedJob, now: Date, completion: Enqueuer): Promise<void>;
  /** A step gave up: the submission is `rejected` (its stored body fails the checks) or `failed`. */
  fail(trx: Transaction<Database>, job: ClaimedJob, error: unknown): Promise<void>;
  /** For the latency and SLA metrics, once a final failure committed. */
  afterFailed(job: ClaimedJob, error: unknown): void;
  /** A submission reached its final state: for the latency and SLA metrics. */
  finished(job: ClaimedJob, status: 'completed' | 'failed' | 'rejected', at: Date): void;
}

export function submissionEnd(deps: PipelineDeps): SubmissionEnd {
  const { store, clock } = deps;
  const finished: SubmissionEnd['finished'] = (job, status, at) => {
    emit('submission.finished', {
      status,
      receivedAtMs: Date.parse(job.acceptedAt),
      finishedAtMs: at.getTime(),
      slaDeadlineMs: job.slaDeadlineAt === null ? null : Date.parse(job.slaDeadlineAt),
    });
  };
  const finalStatus = (error: unknown) => (error instanceof RejectedSubmission ? 'rejected' : 'failed');
  return {
    finished,
    afterFailed: (job, error) => finished(job, finalStatus(error), clock()),
    async fail(trx, job, error) {
      if (!job.submissionId) return;
      await store.pipeline.setStatus(trx, job.submissionId, finalStatus(error), clock());
    },
    /**
     * `completed`, and in the same transaction its `result.ready` event and delivery job when the
     * partner has a callback (the outbox).
     */
    async complete(trx, job, now, completion) {
      const submissionId = requireSubmissionId(job);
      if (completion.endSubmission) completion.endSubmission('completed');
      else await store.pipeline.setStatus(trx, submissionId, 'completed', now);
      completion.afterCommit?.(async () => finished(job, 'completed', now));
      await recordResultReady(
        store,
        trx,
        {
          submissionId,
          status: 'completed',
          now,
          ids: { correlationId: job.correlationId, requestId: job.requestId },
          policy: { scheduleMs: deps.webhookScheduleMs },
        },
        completion.enqueue,
      );
    },
  };
}
