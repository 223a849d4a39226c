import { z } from 'zod';
import { partnerOutcomeSchema, toPartnerOutcome } from '../domain/model/partner-view.js';
import { SUBMISSION_STATUSES, submissionStatusLabel } from '../domain/statuses.js';
import type { ResultRecord } from '../store/tenant-access.js';
import type { DownloadLinks } from './download-links.js';
import { ARTIFACT_TYPE_LABELS, AVAILABILITY_LABELS, artifactSchema } from './schemas.js';

/** A result as a partner reads it: the API's `GET /v1/results/{id}` and the console's submission page. */
export const resultSchema = z
  .object({
    resultId: z.uuid(),
    submissionId: z.uuid(),
    partnerSubmissionId: z.string(),
    status: z.enum(SUBMISSION_STATUSES),
    statusLabel: z.string().min(1),
    completedAt: z.iso
      .datetime({ offset: true })
      .meta({ description: 'Time the result row was last updated' }),
    outcome: partnerOutcomeSchema.nullable().meta({ description: 'The primary (first) outcome' }),
    outcomes: z
      .array(partnerOutcomeSchema)
      .optional()
      .meta({ description: 'Present only when more than one outcome was scored, in requested order' }),
    artifacts: z.object({ items: z.array(artifactSchema) }),
  })
  .meta({ id: 'Result' });

export type ResultBody = z.infer<typeof resultSchema>;

export function presentResult(record: ResultRecord, links: DownloadLinks, now: Date): ResultBody {
  const outcomes = record.bundle.outcomes.map(toPartnerOutcome);
  const body: ResultBody = {
    resultId: record.resultId,
    submissionId: record.submissionId,
    partnerSubmissionId: record.partnerSubmissionId,
    status: record.submissionStatus as ResultBody['status'],
    statusLabel: submissionStatusLabel(record.submissionStatus),
    completedAt: record.updatedAt,
    outcome: outcomes[0] ?? null,
    artifacts: {
      items: record.artifacts.map((a) => ({
        artifactId: a.artifactId,
        type: (a.type in ARTIFACT_TYPE_LABELS ? a.type : 'unknown') as 'json' | 'html' | 'pdf' | 'unknown',
        typeLabel: ARTIFACT_TYPE_LABELS[a.type] ?? ARTIFACT_TYPE_LABELS.unknown!,
        availability: a.availability as 'available' | 'pending' | 'unavailable',
        availabilityLabel: AVAILABILITY_LABELS[a.availability] ?? 'Unknown',
        access: a.availability === 'available' ? links.issue(a.artifactId, now) : null,
        generatedAt: a.generatedAt,
      })),
    },
  };
  if (outcomes.length > 1) body.outcomes = outcomes;
  return body;
}
