import { jobStatusLabel, jobTypeLabel, submissionStatusLabel } from '../domain/statuses.js';
import type { JobRecord, SubmissionRecord } from '../store/tenant-access.js';
import type { JobSummary, SubmissionDetail } from './schemas.js';

/** Partner-facing shapes: labels for every enumerated value, no internal fields. */
export function jobSummary(job: JobRecord, now: Date): JobSummary {
  const finishedAt = job.completedAt ?? job.failedAt;
  const deadline = job.slaDeadlineAt === null ? null : Date.parse(job.slaDeadlineAt);
  // A step that failed before its deadline finished in time: only finishing late, or still
  // being unfinished past the deadline, is a breach (docs/pipeline.md).
  const slaBreached =
    deadline !== null && (finishedAt ? Date.parse(finishedAt) > deadline : now.getTime() > deadline);
  return {
    jobId: job.jobId,
    type: job.type as JobSummary['type'],
    typeLabel: jobTypeLabel(job.type),
    status: job.status as JobSummary['status'],
    statusLabel: jobStatusLabel(job.status),
    correlationId: job.correlationId,
    queuedAt: job.queuedAt,
    acceptedAt: job.acceptedAt,
    startedAt: job.startedAt,
    completedAt: job.completedAt,
    failedAt: job.failedAt,
    slaDeadlineAt: job.slaDeadlineAt,
    processingDurationMs:
      finishedAt && job.startedAt ? Math.max(0, Date.parse(finishedAt) - Date.parse(job.startedAt)) : null,
    slaBreached,
    attempts: job.attempts,
    maxAttempts: job.maxAttempts,
    errorSummary: job.errorSummary,
  };
}

export function submissionDetail(record: SubmissionRecord, now: Date): SubmissionDetail {
  const detail: SubmissionDetail = {
    submissionId: record.submissionId,
    subjectId: record.subjectId,
    partnerSubmissionId: record.partnerSubmissionId,
    partnerSubjectId: record.partnerSubjectId,
    status: record.status as SubmissionDetail['status'],
    statusLabel: submissionStatusLabel(record.status),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    counts: { documents: record.documentCount, results: record.resultCount, artifacts: record.artifactCount },
    jobs: record.jobs.map((j) => jobSummary(j, now)),
  };
  if (record.resultId !== null) detail.resultId = record.resultId;
  return detail;
}
