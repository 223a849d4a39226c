import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import type { AuditOrigin } from '../../domain/audit.js';
import { isUuid } from '../../domain/ids.js';
import type { TenantAccess } from '../../store/tenant-access.js';
import { originOf, tenantOf } from '../auth.js';
import type { PageCursors } from '../cursor.js';
import { ApiError } from '../errors.js';
import {
  DELIVERY_STATUSES,
  EVENT_TYPES,
  type EventDetail,
  type EventPage,
  eventDetail,
  eventDetailExample,
  eventDetailSchema,
  eventListItem,
  eventPageExample,
  eventPageSchema,
} from '../event-schemas.js';
import { listCursor, listLimit, parseListQuery, queryTime, readList, timeMessages } from '../list-query.js';
import { errorResponses, KEYED_OPERATION, successHeaders } from '../openapi-errors.js';

const eventListQuery = z
  .object({
    type: z.enum(EVENT_TYPES).optional().meta({ description: 'Only events of this type' }),
    deliveryStatus: z
      .enum(DELIVERY_STATUSES)
      .optional()
      .meta({ description: 'Only events in this delivery status (e.g. failed)' }),
    createdAfter: queryTime('Only events created at or after this time (ISO 8601 with offset)'),
    createdBefore: queryTime('Only events created before this time (ISO 8601 with offset)'),
    partnerSubmissionId: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .meta({ description: 'Only the events of submissions with this reference of yours (exact match)' }),
    partnerSubjectId: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .meta({ description: "Only the events of this subject's submissions (your reference, exact match)" }),
    limit: listLimit,
    cursor: listCursor,
  })
  .strict();

const MESSAGES: Readonly<Record<string, string>> = {
  type: `type must be one of ${EVENT_TYPES.join(', ')}.`,
  deliveryStatus: `deliveryStatus must be one of ${DELIVERY_STATUSES.join(', ')}.`,
  ...timeMessages('createdAfter', 'createdBefore'),
  partnerSubmissionId: 'partnerSubmissionId must be 1 to 512 characters.',
  partnerSubjectId: 'partnerSubjectId must be 1 to 512 characters.',
};

export type EventListParams = z.output<typeof eventListQuery>;

const eventIdParam = z.object({
  eventId: z.string().meta({ description: 'The event id (a UUID; anything else answers 404)' }),
});

export const eventReadPaths: ZodOpenApiPathsObject = {
  '/v1/events': {
    get: {
      operationId: 'listEvents',
      summary: "Your account's callback events, newest first",
      description:
        'Every result.ready event of the key’s account and mode, whether or not a callback endpoint was ' +
        'registered when it was created, newest first (by createdAt, then eventId), filtered by type, delivery ' +
        'status, creation time or your references (partnerSubmissionId, partnerSubjectId: exact match). Items ' +
        'hold ids, your references, status and times, never the body (read one event for it and ' +
        'its attempts). Pages are walked with nextCursor, bound to the key’s account and mode and to the ' +
        'filters: events created while you walk never make a page repeat or skip one. Each page read is audited.',
      tags: ['Events'],
      requestParams: { query: eventListQuery },
      responses: {
        '200': {
          description: 'A page of events',
          headers: successHeaders(true),
          content: {
            'application/json': {
              schema: eventPageSchema,
              examples: { page: { summary: 'An event whose every attempt failed', value: eventPageExample } },
            },
          },
        },
        ...errorResponses({
          ...KEYED_OPERATION,
          codes: [...KEYED_OPERATION.codes, 'VALIDATION_ERROR'],
          meanings: {
            ...KEYED_OPERATION.meanings,
            VALIDATION_ERROR:
              'a query parameter is unknown or out of range, a time has no offset, createdBefore is not after ' +
              'createdAfter, or the cursor was issued for another account, mode or filter set (details.fieldErrors names it)',
          },
          messages: { VALIDATION_ERROR: 'The query parameters are not valid.' },
        }),
      },
    },
  },
  '/v1/events/{eventId}': {
    get: {
      operationId: 'getEvent',
      summary: 'One event: the exact body that was signed, and its delivery attempts',
      description:
        'The event as it was signed and sent (body, a string of the exact bytes: verify a signature you ' +
        'recorded against it), and every attempt kept: when, where, your callback endpoint’s status or why there was ' +
        'none, how long it took, and the first 1 KiB of what your callback endpoint answered. Attempts are deleted after ' +
        'WEBHOOK_ATTEMPT_RETENTION (30 days by default). The read is audited.',
      tags: ['Events'],
      requestParams: { path: eventIdParam },
      responses: {
        '200': {
          description: 'The event and its attempts',
          headers: successHeaders(true),
          content: {
            'application/json': {
              schema: eventDetailSchema,
              examples: { failed: { summary: 'An attempt answered 503', value: eventDetailExample } },
            },
          },
        },
        ...errorResponses({
          ...KEYED_OPERATION,
          codes: [...KEYED_OPERATION.codes, 'NOT_FOUND'],
          meanings: {
            ...KEYED_OPERATION.meanings,
            NOT_FOUND: 'no event with this id in this account and mode',
          },
        }),
      },
    },
  },
};

/** The list's query as the API reads it (the console's filter form goes through this too). */
export function parseEventListQuery(query: unknown): EventListParams {
  return parseListQuery(eventListQuery, query, MESSAGES);
}

export interface EventListOptions {
  cursors: PageCursors;
}

/**
 * One page of the account's events for the parsed query: what the route answers, and what the
 * console's page shows with the same cursors. Throws `400`s naming the parameter.
 */
export async function findEvents(
  tenant: TenantAccess,
  q: EventListParams,
  origin: AuditOrigin,
  opts: EventListOptions,
): Promise<EventPage> {
  const filters = {
    type: q.type,
    deliveryStatus: q.deliveryStatus,
    partnerSubmissionId: q.partnerSubmissionId,
    partnerSubjectId: q.partnerSubjectId,
  };
  const window = {
    names: ['createdAfter', 'createdBefore'],
    after: q.createdAfter,
    before: q.createdBefore,
  } as const;
  return readList(
    opts.cursors,
    { list: 'events', tenantId: tenant.tenantId, limit: q.limit, cursor: q.cursor, filters, window },
    (r) =>
      tenant.events.list(
        { ...filters, createdAfter: r.from, createdBefore: r.to, limit: r.limit, after: r.after },
        origin,
      ),
    (record) => ({ at: record.createdAt, id: record.eventId }),
    eventListItem,
  );
}

/** The event with its attempts, or `404` for an id that is not one of this account's events. */
export async function readEvent(
  tenant: TenantAccess,
  eventId: string,
  origin: AuditOrigin,
): Promise<EventDetail> {
  const found = isUuid(eventId) ? await tenant.events.get(eventId, origin) : undefined;
  if (!found) throw ApiError.notFound('No event with this id in this account.');
  return eventDetail(found);
}

export async function eventReadRoutes(app: FastifyInstance, opts: EventListOptions): Promise<void> {
  app.get('/v1/events', { config: { auth: true } }, async (request) =>
    findEvents(tenantOf(request), parseEventListQuery(request.query), originOf(request), opts),
  );
  app.get<{ Params: { eventId: string } }>(
    '/v1/events/:eventId',
    { config: { auth: true } },
    async (request) => readEvent(tenantOf(request), request.params.eventId, originOf(request)),
  );
}
