import fs from 'node:fs';
import {
  OUTCOME_FOCUS,
  OUTCOME_STATUS_LABELS,
  PLACEMENT_LABELS,
  TIER_LABELS,
} from '../domain/model/partner-view.js';
import { NOTICES } from '../domain/model/text/notices.js';
import { JOB_STATUS_LABELS, JOB_TYPE_LABELS, SUBMISSION_STATUS_LABELS } from '../domain/statuses.js';
import type { ResultReadyBody } from '../webhooks/event-body.js';
import type { AcceptedSubmission, SubmissionDetail } from './schemas.js';

/**
 * Examples for the API description. Labels come from the same tables the presenters use; the
 * tests check each example against its schema and against the shape of a real answer.
 */

/** The repository's example submission, the one the README walkthrough sends. */
export function exampleSubmission(): unknown {
  return JSON.parse(fs.readFileSync(new URL('../../examples/submission.json', import.meta.url), 'utf8'));
}

const IDS = {
  submission: '0f6b2c1e-8d4a-4b7e-9c3f-1a2b3c4d5e6f',
  subject: '3c9e7a10-5b2d-4f61-8e4a-7d6c5b4a3f21',
  ingestJob: '6a1d4e2f-0b3c-4d5e-8f7a-9b0c1d2e3f40',
  scoreJob: '7b2e5f30-1c4d-4e6f-9a8b-0c1d2e3f4a51',
  reportJob: '8c3f6041-2d5e-4f70-8b9c-1d2e3f4a5b62',
  result: '9d407152-3e6f-4081-9cad-2e3f4a5b6c73',
  pdf: 'ae518263-4f70-4192-8dbe-3f4a5b6c7d84',
} as const;

export const acceptedExample: AcceptedSubmission = {
  submissionId: IDS.submission,
  jobId: IDS.ingestJob,
  partnerSubmissionId: 'sub-000123',
  partnerSubjectId: 'subj-9f8e7d',
  status: 'accepted',
  receivedAt: '2026-11-21T12:00:00.000Z',
};

function job(
  jobId: string,
  type: 'pipeline.ingest_validate' | 'pipeline.score' | 'pipeline.render_reports',
  startedAt: string,
  completedAt: string,
  ms: number,
) {
  return {
    jobId,
    type,
    typeLabel: JOB_TYPE_LABELS[type],
    status: 'completed' as const,
    statusLabel: JOB_STATUS_LABELS.completed,
    correlationId: 'corr-7f3a',
    queuedAt: '2026-11-21T12:00:00.000Z',
    acceptedAt: '2026-11-21T12:00:00.000Z',
    startedAt,
    completedAt,
    failedAt: null,
    slaDeadlineAt: '2026-11-21T12:15:00.000Z',
    processingDurationMs: ms,
    slaBreached: false,
    attempts: 1,
    maxAttempts: 5,
    errorSummary: null,
  };
}

export const submissionDetailExample: SubmissionDetail = {
  submissionId: IDS.submission,
  subjectId: IDS.subject,
  partnerSubmissionId: 'sub-000123',
  partnerSubjectId: 'subj-9f8e7d',
  status: 'completed',
  statusLabel: SUBMISSION_STATUS_LABELS.completed,
  createdAt: '2026-11-21T12:00:00.000Z',
  updatedAt: '2026-11-21T12:00:00.412Z',
  counts: { documents: 0, results: 1, artifacts: 1 },
  jobs: [
    job(
      IDS.ingestJob,
      'pipeline.ingest_validate',
      '2026-11-21T12:00:00.010Z',
      '2026-11-21T12:00:00.030Z',
      20,
    ),
    job(IDS.scoreJob, 'pipeline.score', '2026-11-21T12:00:00.040Z', '2026-11-21T12:00:00.090Z', 50),
    job(
      IDS.reportJob,
      'pipeline.render_reports',
      '2026-11-21T12:00:00.100Z',
      '2026-11-21T12:00:00.400Z',
      300,
    ),
  ],
  resultId: IDS.result,
};

const outcome = {
  outcomeId: 'wellbeing.cardiovascular' as const,
  focus: OUTCOME_FOCUS['wellbeing.cardiovascular'],
  score: 0.612,
  referencePlacement: 'above_reference' as const,
  referencePlacementLabel: PLACEMENT_LABELS.above_reference,
  outcomeStatus: 'completed' as const,
  outcomeStatusLabel: OUTCOME_STATUS_LABELS.completed,
  band: { tier: 'high' as const, label: TIER_LABELS.high },
  notices: [{ message: NOTICES.educationAssumed }],
};

export const resultExample = {
  resultId: IDS.result,
  submissionId: IDS.submission,
  partnerSubmissionId: 'sub-000123',
  status: 'completed' as const,
  statusLabel: SUBMISSION_STATUS_LABELS.completed,
  completedAt: '2026-11-21T12:00:00.412Z',
  outcome,
  artifacts: {
    items: [
      {
        artifactId: IDS.pdf,
        type: 'pdf' as const,
        typeLabel: 'Report (PDF)',
        availability: 'available' as const,
        availabilityLabel: 'Ready to download',
        access: {
          downloadUrl: `http://localhost:8080/v1/artifacts/${IDS.pdf}/content?expires=1763730900&signature=3q2-7w_example`,
          expiresAt: '2026-11-21T13:15:00.000Z',
        },
        generatedAt: '2026-11-21T12:00:00.400Z',
      },
    ],
  },
};

export const resultReadyExample: ResultReadyBody = {
  eventType: 'result.ready',
  resultId: IDS.result,
  submissionId: IDS.submission,
  partnerSubmissionId: 'sub-000123',
  status: 'completed',
  statusLabel: SUBMISSION_STATUS_LABELS.completed,
  completedAt: '2026-11-21T12:00:00.412Z',
  reportId: IDS.pdf,
};
