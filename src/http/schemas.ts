import { z } from 'zod';
import { JOB_STATUSES, JOB_TYPES, SUBMISSION_STATUSES } from '../domain/statuses.js';

/** Response shapes: they describe the bodies in the OpenAPI document and are checked in tests. */

const isoDateTime = z.iso.datetime({ offset: true }).meta({ description: 'ISO-8601 timestamp' });

export const validationDetailsSchema = z
  .object({
    formErrors: z.array(z.string()).meta({ description: 'Problems with the request as a whole' }),
    fieldErrors: z
      .record(z.string(), z.array(z.string()))
      .meta({ description: 'Problems keyed by JSON path, e.g. subject.history.smoking.stopAge' }),
  })
  .meta({ id: 'ValidationErrorDetails' });

export const panelDetailsSchema = z
  .array(z.object({ field: z.string(), message: z.string() }))
  .meta({ id: 'PanelErrorDetails', description: 'One entry per marker-panel problem' });

export const healthSchema = z
  .object({ status: z.literal('ok'), timestamp: isoDateTime })
  .meta({ id: 'Health' });

export const readySchema = z
  .object({
    status: z.enum(['ready', 'unavailable']),
    reason: z.string().optional(),
    checks: z
      .object({
        database: z.literal('ok'),
        queue: z.literal('ok').optional().meta({ description: 'Present on processes that run a worker' }),
      })
      .optional(),
  })
  .meta({ id: 'Readiness' });

export const acceptedSubmissionSchema = z
  .object({
    submissionId: z.uuid(),
    jobId: z.uuid().meta({ description: 'The enqueued pipeline job' }),
    partnerSubmissionId: z.string(),
    partnerSubjectId: z.string(),
    status: z.literal('accepted').meta({ description: 'Ingestion outcome, not a pipeline status' }),
    receivedAt: isoDateTime,
  })
  .meta({ id: 'AcceptedSubmission' });

export const jobSummarySchema = z
  .object({
    jobId: z.uuid(),
    type: z.enum(JOB_TYPES),
    typeLabel: z.string().min(1),
    status: z.enum(JOB_STATUSES),
    statusLabel: z.string().min(1),
    correlationId: z.string().nullable(),
    queuedAt: isoDateTime,
    acceptedAt: isoDateTime,
    startedAt: isoDateTime.nullable(),
    completedAt: isoDateTime.nullable(),
    failedAt: isoDateTime.nullable(),
    slaDeadlineAt: isoDateTime.nullable(),
    processingDurationMs: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'From start to completion or failure' }),
    slaBreached: z.boolean(),
    attempts: z.number().int(),
    maxAttempts: z.number().int(),
    errorSummary: z.string().nullable().meta({ description: 'Plain-language reason when the job failed' }),
  })
  .meta({ id: 'JobSummary' });

export const submissionDetailSchema = z
  .object({
    submissionId: z.uuid(),
    subjectId: z.uuid().meta({ description: 'Stable per partnerSubjectId within the account' }),
    partnerSubmissionId: z.string(),
    partnerSubjectId: z.string(),
    status: z.enum(SUBMISSION_STATUSES),
    statusLabel: z.string().min(1),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
    counts: z.object({
      documents: z.number().int(),
      results: z.number().int(),
      artifacts: z.number().int(),
    }),
    jobs: z.array(jobSummarySchema),
    resultId: z.uuid().optional().meta({ description: 'Present once a result exists' }),
  })
  .meta({ id: 'SubmissionDetail' });

export type AcceptedSubmission = z.infer<typeof acceptedSubmissionSchema>;
export type JobSummary = z.infer<typeof jobSummarySchema>;
export type SubmissionDetail = z.infer<typeof submissionDetailSchema>;

export const ARTIFACT_TYPE_LABELS: Record<string, string> = {
  json: 'Report data (JSON)',
  html: 'Report (web page)',
  pdf: 'Report (PDF)',
  unknown: 'Other file',
};

export const AVAILABILITY_LABELS: Record<string, string> = {
  available: 'Ready to download',
  pending: 'Being prepared',
  unavailable: 'Could not be prepared',
};

export const artifactSchema = z
  .object({
    artifactId: z.uuid(),
    type: z.enum(['json', 'html', 'pdf', 'unknown']),
    typeLabel: z.string().min(1),
    availability: z.enum(['available', 'pending', 'unavailable']),
    availabilityLabel: z.string().min(1),
    access: z
      .object({
        downloadUrl: z.string().meta({ description: 'Time-limited signed link; needs no API key' }),
        expiresAt: isoDateTime,
      })
      .nullable()
      .meta({ description: 'Present when available; each result read issues fresh links' }),
    generatedAt: isoDateTime.nullable(),
  })
  .meta({ id: 'Artifact' });
