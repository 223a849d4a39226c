/** State sets fixed by the contract and decisions.md, with the plain-language labels partners see. */

export const SUBMISSION_STATUSES = [
  'received',
  'validating',
  'validated',
  'processing',
  'completed',
  'failed',
  'rejected',
] as const;
export type SubmissionStatus = (typeof SUBMISSION_STATUSES)[number];

export const SUBMISSION_STATUS_LABELS: Record<SubmissionStatus, string> = {
  received: 'Received',
  validating: 'Checking the submission',
  validated: 'Checked, processing is starting',
  processing: 'Scoring and preparing reports',
  completed: 'Completed',
  failed: 'Processing failed',
  rejected: 'Rejected',
};

export const JOB_TYPES = [
  'pipeline.ingest_validate',
  'pipeline.score',
  'pipeline.render_reports',
  'webhook.deliver',
] as const;
export type JobType = (typeof JOB_TYPES)[number];

/** A submission's first job, enqueued with it at ingest. */
export const INGEST_JOB_TYPE: JobType = 'pipeline.ingest_validate';

/** Job types a partner sees on a submission; deliveries are the service's own business. */
export const SUBMISSION_JOB_TYPES = [
  'pipeline.ingest_validate',
  'pipeline.score',
  'pipeline.render_reports',
] as const;

export const JOB_TYPE_LABELS: Record<JobType, string> = {
  'pipeline.ingest_validate': 'Checking and preparing the submission',
  'pipeline.score': 'Scoring wellbeing outcomes',
  'pipeline.render_reports': 'Preparing reports',
  'webhook.deliver': 'Notifying the partner',
};

export const JOB_STATUSES = ['pending', 'running', 'completed', 'failed', 'retrying'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const JOB_STATUS_LABELS: Record<JobStatus, string> = {
  pending: 'Waiting to start',
  running: 'In progress',
  completed: 'Completed',
  failed: 'Failed',
  retrying: 'Waiting to retry',
};

export function submissionStatusLabel(status: string): string {
  return SUBMISSION_STATUS_LABELS[status as SubmissionStatus] ?? 'Unknown';
}

export function jobTypeLabel(type: string): string {
  return JOB_TYPE_LABELS[type as JobType] ?? 'Processing step';
}

export function jobStatusLabel(status: string): string {
  return JOB_STATUS_LABELS[status as JobStatus] ?? 'Unknown';
}
