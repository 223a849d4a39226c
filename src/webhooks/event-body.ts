import { z } from 'zod';
import { SUBMISSION_STATUSES } from '../domain/statuses.js';
import { EVENT_TYPE } from './signing.js';

/**
 * The `result.ready` body (partner-api.md, "Events"). The outbox serialises every event through
 * this schema, so the API description's webhook entry and the bytes sent cannot drift apart.
 * Field order here is the order on the wire.
 */
export const resultReadyBodySchema = z
  .object({
    eventType: z.literal(EVENT_TYPE),
    resultId: z.uuid().meta({ description: 'Read it with GET /v1/results/{resultId} and your API key' }),
    submissionId: z.uuid(),
    partnerSubmissionId: z.string().nullable(),
    status: z.enum(SUBMISSION_STATUSES).meta({ description: 'The submission status' }),
    statusLabel: z.string().min(1),
    completedAt: z.iso.datetime({ offset: true }),
    reportId: z.uuid().optional().meta({
      description: 'A report artifact: the pdf when asked for, else json, else html; absent for scores only',
    }),
  })
  .meta({
    id: 'ResultReadyEvent',
    description: 'Sent once per result; nothing else (no tenant, job or model data).',
  });

export type ResultReadyBody = z.infer<typeof resultReadyBodySchema>;
