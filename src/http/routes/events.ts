import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { originOf, tenantOf } from '../auth.js';
import {
  type EventListOptions,
  eventListQuery,
  findEvents,
  parseEventListQuery,
  readEvent,
} from '../event-list.js';
import {
  eventDetailExample,
  eventDetailSchema,
  eventPageExample,
  eventPageSchema,
} from '../event-schemas.js';
import { errorResponses, KEYED_OPERATION, successHeaders } from '../openapi-errors.js';

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
