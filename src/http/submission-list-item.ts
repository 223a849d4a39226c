import { z } from 'zod';
import { SUBMISSION_STATUS_LABELS, submissionStatusLabel } from '../domain/statuses.js';
import type { SubmissionListRecord } from '../store/tenant-access.js';
import { acceptedSubmissionSchema, jobSummarySchema, submissionDetailSchema } from './schemas.js';

/**
 * A submission as `GET /v1/submissions` lists it: the detail's fields that are not health data
 * (ids, references, status, times, the result's id, why it failed, its SLA), from the detail's
 * and the job summary's own field schemas so the two cannot drift apart. No markers, no subject
 * block, no counts: a list is for finding a submission, the detail for reading it.
 */
const detail = submissionDetailSchema.shape;
const step = jobSummarySchema.shape;

export const submissionListItemSchema = z
  .object({
    submissionId: detail.submissionId,
    partnerSubmissionId: detail.partnerSubmissionId,
    partnerSubjectId: detail.partnerSubjectId,
    status: detail.status,
    statusLabel: detail.statusLabel,
    receivedAt: acceptedSubmissionSchema.shape.receivedAt,
    updatedAt: detail.updatedAt,
    completedAt: step.completedAt.meta({
      description: 'When the result was completed (the result’s completedAt); null until then',
    }),
    resultId: detail.resultId.unwrap().nullable().meta({ description: 'Null until a result exists' }),
    errorSummary: step.errorSummary.meta({
      description: 'Plain-language reason of the latest failed processing step; null when none failed',
    }),
    slaDeadlineAt: step.slaDeadlineAt.meta({ description: 'Processing deadline set at acceptance' }),
    slaBreached: step.slaBreached.meta({
      description: 'Finished after the deadline, or still unfinished past it',
    }),
  })
  .meta({ id: 'SubmissionListItem' });

export const submissionPageSchema = z
  .object({
    items: z.array(submissionListItemSchema),
    nextCursor: z.string().nullable().meta({
      description: 'Pass as cursor (with the same filters) for the next, older page; null on the last page',
    }),
  })
  .meta({ id: 'SubmissionPage' });

export type SubmissionListItem = z.infer<typeof submissionListItemSchema>;
export type SubmissionPage = z.infer<typeof submissionPageSchema>;

export function submissionListItem(record: SubmissionListRecord, now: Date): SubmissionListItem {
  const deadline = record.slaDeadlineAt === null ? null : Date.parse(record.slaDeadlineAt);
  const slaBreached =
    deadline !== null &&
    (record.finishedAt !== null ? Date.parse(record.finishedAt) > deadline : now.getTime() > deadline);
  return {
    submissionId: record.submissionId,
    partnerSubmissionId: record.partnerSubmissionId,
    partnerSubjectId: record.partnerSubjectId,
    status: record.status as SubmissionListItem['status'],
    statusLabel: submissionStatusLabel(record.status),
    receivedAt: record.receivedAt,
    updatedAt: record.updatedAt,
    completedAt: record.completedAt,
    resultId: record.resultId,
    errorSummary: record.errorSummary,
    slaDeadlineAt: record.slaDeadlineAt,
    slaBreached,
  };
}

export const submissionPageExample: SubmissionPage = {
  items: [
    {
      submissionId: '0f6b2c1e-8d4a-4b7e-9c3f-1a2b3c4d5e6f',
      partnerSubmissionId: 'sub-000124',
      partnerSubjectId: 'subj-9f8e7d',
      status: 'completed',
      statusLabel: SUBMISSION_STATUS_LABELS.completed,
      receivedAt: '2026-11-21T12:05:00.000Z',
      updatedAt: '2026-11-21T12:05:00.412Z',
      completedAt: '2026-11-21T12:05:00.412Z',
      resultId: '9d407152-3e6f-4081-9cad-2e3f4a5b6c73',
      errorSummary: null,
      slaDeadlineAt: '2026-11-21T12:10:00.000Z',
      slaBreached: false,
    },
    {
      submissionId: '1a7c3e52-6f80-4a93-9b1c-2d3e4f5a6b7c',
      partnerSubmissionId: 'sub-000123',
      partnerSubjectId: 'subj-4c2a1b',
      status: 'failed',
      statusLabel: SUBMISSION_STATUS_LABELS.failed,
      receivedAt: '2026-11-21T12:00:00.000Z',
      updatedAt: '2026-11-21T12:00:03.210Z',
      completedAt: null,
      resultId: null,
      errorSummary: 'Scoring failed because of an internal error.',
      slaDeadlineAt: '2026-11-21T12:05:00.000Z',
      slaBreached: false,
    },
  ],
  // The position of the last item, signed for this account, list and filter set.
  nextCursor:
    'WyIyMDI2LTExLTIxVDEyOjAwOjAwLjAwMFoiLCIxYTdjM2U1Mi02ZjgwLTRhOTMtOWIxYy0yZDNlNGY1YTZiN2MiXQ.q1w2e3r4t5y6u7i8o9p0aQ',
};
