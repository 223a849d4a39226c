import type { Clock } from '../../clock.js';
import { type ClaimedJob, type NewJob, PermanentJobError } from '../../queue/types.js';
import type { SystemStore } from '../../store/index.js';
import type { ReportRenderer } from '../report-renderer.js';

export interface PipelineDeps {
  store: SystemStore;
  renderer: ReportRenderer;
  maxAttempts: number;
  /** The service's clock, for the hooks that run outside a step (a final failure). */
  clock: Clock;
  /** `WEBHOOK_RETRY_SCHEDULE`, for the `result.ready` deliveries a completed result enqueues. */
  webhookScheduleMs: number[];
}

/** A stored submission that fails the checks it passed at ingest: `rejected`, not `failed`. */
export class RejectedSubmission extends PermanentJobError {}

export function requireSubmissionId(job: ClaimedJob): string {
  if (!job.submissionId) throw new PermanentJobError('This step has no submission to work on.');
  return job.submissionId;
}

export function nextJob(job: ClaimedJob, type: NewJob['type'], maxAttempts: number): NewJob {
  // Later steps keep the acceptance time and deadline of the submission they serve.
  return {
    type,
    tenantId: job.tenantId,
    submissionId: job.submissionId,
    correlationId: job.correlationId,
    requestId: job.requestId,
    acceptedAt: job.acceptedAt,
    slaDeadlineAt: job.slaDeadlineAt,
    maxAttempts,
  };
}
