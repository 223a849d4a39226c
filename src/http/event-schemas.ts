import { z } from 'zod';
import type { EventDetailRecord, EventListRecord } from '../store/tenant-access.js';

/**
 * The partner's view of its `result.ready` events (issue 30, "Events and deliveries"): a list
 * item (metadata), the detail (the exact signed body and every attempt kept), a recovery and its
 * progress. No health data: the body names ids, references, a status and a time only.
 */

const isoTime = z.iso.datetime({ offset: true });

export const EVENT_TYPES = ['result.ready'] as const;
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'endpoint_disabled'] as const;

const deliveryStatus = z.enum(DELIVERY_STATUSES).meta({
  description:
    'pending: a delivery is queued or running; delivered: your callback endpoint answered 2xx; failed: every ' +
    'scheduled attempt failed, or no callback endpoint was registered (failureReason says which); ' +
    'endpoint_disabled: held while your callback endpoint is disabled. Every status but delivered can be recovered.',
});

export const eventListItemSchema = z
  .object({
    eventId: z
      .uuid()
      .meta({ description: 'The id every delivery carries (webhook-id, X-Healthspan-Event-Id)' }),
    type: z.enum(EVENT_TYPES),
    resultId: z.uuid(),
    submissionId: z.uuid(),
    partnerSubmissionId: z.string().meta({ description: 'Your reference of the submission, as you sent it' }),
    partnerSubjectId: z
      .string()
      .meta({ description: "Your reference of the submission's subject, as you sent it" }),
    deliveryStatus,
    failureReason: z
      .enum(['no_endpoint', 'attempts_exhausted'])
      .nullable()
      .meta({ description: 'Why a failed event failed; null unless deliveryStatus is failed' }),
    createdAt: isoTime,
    updatedAt: isoTime,
    deliveredAt: isoTime.nullable(),
    attemptCount: z.number().int().min(0).meta({ description: 'Attempts kept (older ones are deleted)' }),
  })
  .meta({ id: 'EventListItem' });

export const eventPageSchema = z
  .object({
    items: z.array(eventListItemSchema),
    nextCursor: z.string().nullable().meta({
      description: 'Pass as cursor (with the same filters) for the next, older page; null on the last page',
    }),
  })
  .meta({ id: 'EventPage' });

export const eventAttemptSchema = z
  .object({
    deliveryId: z.uuid().meta({ description: 'Different for every attempt (X-Healthspan-Delivery-Id)' }),
    attempt: z.number().int().min(1).meta({ description: 'The attempt number within its delivery' }),
    kind: z
      .enum(['delivery', 'listen'])
      .meta({ description: 'delivery: sent by the service; listen: forwarded by healthspan listen' }),
    at: isoTime.meta({ description: 'When the attempt started' }),
    url: z.string().meta({ description: 'Where it was sent' }),
    statusCode: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Your callback endpoint’s HTTP status; null without an answer' }),
    errorClass: z
      .string()
      .nullable()
      .meta({
        description:
          'Why it did not get a 2xx: http_status, timeout, dns, connection_refused, connection_reset, tls, ' +
          'blocked_address, invalid_url, transport; null when delivered',
      }),
    durationMs: z.number().int().min(0),
    outcome: z.enum(['delivered', 'failed']),
    responseSnippet: z
      .string()
      .nullable()
      .meta({
        description:
          'The first 1 KiB of what your callback endpoint answered, as text with control characters removed; null when ' +
          'it answered nothing. Kept as long as the attempt (WEBHOOK_ATTEMPT_RETENTION)',
      }),
  })
  .meta({ id: 'EventAttempt' });

export const eventDetailSchema = eventListItemSchema
  .extend({
    body: z.string().meta({
      description: 'The event body exactly as it was signed and sent (every attempt sends these bytes)',
    }),
    attempts: z.array(eventAttemptSchema).meta({ description: 'Oldest first' }),
  })
  .meta({ id: 'EventDetail' });

export type EventListItem = z.infer<typeof eventListItemSchema>;
export type EventPage = z.infer<typeof eventPageSchema>;
export type EventDetail = z.infer<typeof eventDetailSchema>;

export function eventListItem(record: EventListRecord): EventListItem {
  return {
    eventId: record.eventId,
    type: record.type as EventListItem['type'],
    resultId: record.resultId,
    submissionId: record.submissionId,
    partnerSubmissionId: record.partnerSubmissionId,
    partnerSubjectId: record.partnerSubjectId,
    deliveryStatus: record.deliveryStatus,
    failureReason: record.failureReason,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    deliveredAt: record.deliveredAt,
    attemptCount: record.attemptCount,
  };
}

export function eventDetail(record: EventDetailRecord): EventDetail {
  return {
    ...eventListItem(record),
    body: record.body,
    attempts: record.attempts.map((a) => ({
      deliveryId: a.deliveryId,
      attempt: a.attempt,
      kind: a.kind as EventDetail['attempts'][number]['kind'],
      at: a.startedAt,
      url: a.url,
      statusCode: a.statusCode,
      errorClass: a.errorClass,
      durationMs: a.latencyMs,
      outcome: a.outcome as EventDetail['attempts'][number]['outcome'],
      responseSnippet: a.responseSnippet,
    })),
  };
}

const exampleItem: EventListItem = {
  eventId: '5b1d2c3e-4f50-5a61-8b72-9c83d4e5f607',
  type: 'result.ready',
  resultId: '9d407152-3e6f-4081-9cad-2e3f4a5b6c73',
  submissionId: '0f6b2c1e-8d4a-4b7e-9c3f-1a2b3c4d5e6f',
  partnerSubmissionId: 'sub-000124',
  partnerSubjectId: 'subj-9f8e7d',
  deliveryStatus: 'failed',
  failureReason: 'attempts_exhausted',
  createdAt: '2026-11-21T12:05:00.412Z',
  updatedAt: '2026-11-21T18:05:01.020Z',
  deliveredAt: null,
  attemptCount: 6,
};

export const eventPageExample: EventPage = {
  items: [exampleItem],
  nextCursor: null,
};

export const eventDetailExample: EventDetail = {
  ...exampleItem,
  attemptCount: 1,
  body:
    '{"eventType":"result.ready","resultId":"9d407152-3e6f-4081-9cad-2e3f4a5b6c73",' +
    '"submissionId":"0f6b2c1e-8d4a-4b7e-9c3f-1a2b3c4d5e6f","partnerSubmissionId":"sub-000124",' +
    '"status":"completed","statusLabel":"Completed","completedAt":"2026-11-21T12:05:00.412Z",' +
    '"reportId":"7c2e9a10-1b3c-4d5e-8f60-718293a4b5c6"}',
  attempts: [
    {
      deliveryId: '3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7',
      attempt: 1,
      kind: 'delivery',
      at: '2026-11-21T12:05:00.500Z',
      url: 'https://hooks.example.com/healthspan',
      statusCode: 503,
      errorClass: 'http_status',
      durationMs: 84,
      outcome: 'failed',
      responseSnippet: '<html><body><h1>503 Service Unavailable</h1> upstream is down</body></html>',
    },
  ],
};
