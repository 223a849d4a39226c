import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { type EventSender, type Recovery, redeliverEvent } from '../../operations/event-resend.js';
import { originOf, tenantOf } from '../auth.js';
import { parseBody } from '../errors.js';
import { errorResponses, KEYED_OPERATION, successHeaders } from '../openapi-errors.js';

const isoTime = z.iso.datetime({ offset: true });

export const redeliverAcceptedSchema = z
  .object({
    eventId: z.uuid().meta({ description: 'The event, sent again under the same id' }),
    deliveryStatus: z.literal('pending'),
  })
  .meta({ id: 'RedeliveryAccepted' });

/** An empty object, or no body at all. */
const redeliverRequestSchema = z.strictObject({}).meta({ id: 'RedeliverRequest' });

export const recoveryStartedSchema = z
  .object({
    recoveryId: z.uuid(),
    eventCount: z.number().int().min(0).meta({ description: 'Events queued to be sent again' }),
  })
  .meta({ id: 'RecoveryStarted' });

/** The API's description of a `Recovery` (`operations/event-resend.ts` builds it). */
export const recoverySchema: z.ZodType<Recovery> = z
  .object({
    recoveryId: z.uuid(),
    status: z
      .enum(['running', 'finished'])
      .meta({ description: 'running while any recovered event is still pending' }),
    since: isoTime,
    until: isoTime.nullable(),
    createdAt: isoTime,
    eventCount: z.number().int().min(0),
    progress: z
      .object({
        pending: z.number().int().min(0),
        delivered: z.number().int().min(0),
        failed: z.number().int().min(0),
        endpointDisabled: z.number().int().min(0),
      })
      .meta({ description: 'The recovered events by their delivery status now' }),
  })
  .meta({ id: 'Recovery' });

const eventIdParam = z.object({ eventId: z.string().meta({ description: 'The event id' }) });
const recoveryIdParam = z.object({ recoveryId: z.string().meta({ description: 'The recovery id' }) });

const SENDING_ERRORS = [
  ...KEYED_OPERATION.codes,
  'WEBHOOK_NOT_CONFIGURED',
  'WEBHOOK_ENDPOINT_DISABLED',
] as const;

export const eventResendPaths: ZodOpenApiPathsObject = {
  '/v1/events/{eventId}/redeliver': {
    post: {
      operationId: 'redeliverEvent',
      summary: 'Send one event again now',
      description:
        'Queues a new attempt now, with the same event id (deduplicate on it) and signed with the secret in ' +
        'effect when it is sent; a delivery waiting for its next retry is brought forward instead. Any event ' +
        'can be sent again, delivered ones too. The body may be left out (or {}). Audited.',
      tags: ['Events'],
      requestParams: { path: eventIdParam },
      requestBody: { required: false, content: { 'application/json': { schema: redeliverRequestSchema } } },
      responses: {
        '202': {
          description: 'The delivery is queued',
          headers: successHeaders(true),
          content: {
            'application/json': {
              schema: redeliverAcceptedSchema,
              examples: {
                queued: {
                  summary: 'Queued now',
                  value: { eventId: '5b1d2c3e-4f50-5a61-8b72-9c83d4e5f607', deliveryStatus: 'pending' },
                },
              },
            },
          },
        },
        ...errorResponses({
          ...KEYED_OPERATION,
          codes: [...SENDING_ERRORS, 'VALIDATION_ERROR', 'UNSUPPORTED_MEDIA_TYPE', 'NOT_FOUND'],
          meanings: {
            ...KEYED_OPERATION.meanings,
            NOT_FOUND: 'no event with this id in this account and mode',
          },
        }),
      },
    },
  },
  '/v1/events/recover': {
    post: {
      operationId: 'recoverEvents',
      summary: 'Send again every event of a window that failed, was held or never went out',
      description:
        'Every event of the key’s account and mode created in [since, until) whose delivery failed, was held ' +
        'while your callback endpoint was disabled, or never started (no callback endpoint then) is queued again, oldest first, ' +
        'at the usual pace, each under its own id. An event already queued again (by an earlier recovery still ' +
        'running, or a redelivery) is not queued twice. Read progress with GET /v1/recoveries/{recoveryId}. Audited.',
      tags: ['Events'],
      requestBody: { required: true, content: { 'application/json': { schema: recoverRequestSchema } } },
      responses: {
        '202': {
          description: 'The window’s events are queued',
          headers: successHeaders(true),
          content: {
            'application/json': {
              schema: recoveryStartedSchema,
              examples: {
                started: {
                  summary: 'Twelve events queued',
                  value: { recoveryId: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', eventCount: 12 },
                },
              },
            },
          },
        },
        ...errorResponses({
          ...KEYED_OPERATION,
          codes: [...SENDING_ERRORS, 'VALIDATION_ERROR', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE'],
          meanings: {
            ...KEYED_OPERATION.meanings,
            VALIDATION_ERROR:
              'since or until is missing or not an ISO 8601 time with offset, until is not after since, or since is ' +
              'older than the attempt retention (details.fieldErrors names it)',
          },
          messages: { VALIDATION_ERROR: 'The recovery window is not valid.' },
        }),
      },
    },
  },
  '/v1/recoveries/{recoveryId}': {
    get: {
      operationId: 'getRecovery',
      summary: 'A recovery’s progress',
      description:
        'How many of the recovered events are still pending, delivered, failed again or held. Audited.',
      tags: ['Events'],
      requestParams: { path: recoveryIdParam },
      responses: {
        '200': {
          description: 'The recovery',
          headers: successHeaders(true),
          content: {
            'application/json': {
              schema: recoverySchema,
              examples: {
                running: {
                  summary: 'Nine of twelve sent again so far',
                  value: {
                    recoveryId: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
                    status: 'running',
                    since: '2026-11-17T00:00:00.000Z',
                    until: null,
                    createdAt: '2026-11-21T09:30:00.000Z',
                    eventCount: 12,
                    progress: { pending: 3, delivered: 9, failed: 0, endpointDisabled: 0 },
                  },
                },
              },
            },
          },
        },
        ...errorResponses({
          ...KEYED_OPERATION,
          codes: [...KEYED_OPERATION.codes, 'NOT_FOUND'],
          meanings: {
            ...KEYED_OPERATION.meanings,
            NOT_FOUND: 'no recovery with this id in this account and mode',
          },
        }),
      },
    },
  },
};

import {
  REFUSALS,
  readRecovery,
  recoverRequestSchema,
  recoveryWindow,
  startRecovery,
} from '../event-resend.js';

export async function eventResendRoutes(app: FastifyInstance, opts: { sender: EventSender }): Promise<void> {
  app.post<{ Params: { eventId: string } }>(
    '/v1/events/:eventId/redeliver',
    { config: { auth: true } },
    async (request, reply) => {
      parseBody(redeliverRequestSchema, request.body, 'A redelivery takes no fields; send no body or {}.');
      const sent = await redeliverEvent(
        opts.sender,
        tenantOf(request),
        request.params.eventId,
        originOf(request),
      );
      if (!sent.ok) throw REFUSALS[sent.reason]();
      reply.code(202);
      return { eventId: sent.eventId, deliveryStatus: 'pending' as const };
    },
  );
  app.post('/v1/events/recover', { config: { auth: true } }, async (request, reply) => {
    const started = await startRecovery(
      opts.sender,
      tenantOf(request),
      recoveryWindow(request.body),
      originOf(request),
    );
    reply.code(202);
    return started;
  });
  app.get<{ Params: { recoveryId: string } }>(
    '/v1/recoveries/:recoveryId',
    { config: { auth: true } },
    async (request) => readRecovery(tenantOf(request), request.params.recoveryId, originOf(request)),
  );
}
