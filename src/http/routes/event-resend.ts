import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import type { AuditOrigin } from '../../domain/audit.js';
import { isUuid } from '../../domain/ids.js';
import type {
  RecoveryRecord,
  RecoveryWindow,
  ResendRefusal,
  TenantAccess,
} from '../../store/tenant-access.js';
import { originOf, tenantOf } from '../auth.js';
import { ApiError, parseBody } from '../errors.js';
import { errorResponses, KEYED_OPERATION, successHeaders } from '../openapi-errors.js';

/** What the routes need to send events again, within the account they are handed (`webhooks/events.ts`). */
export interface EventSender {
  redeliver(
    tenant: TenantAccess,
    eventId: string,
    origin: AuditOrigin,
  ): Promise<{ ok: true; eventId: string } | { ok: false; reason: ResendRefusal }>;
  recover(
    tenant: TenantAccess,
    window: RecoveryWindow,
    origin: AuditOrigin,
  ): Promise<
    | { ok: true; recoveryId: string; eventCount: number }
    | { ok: false; reason: 'no_endpoint' | 'endpoint_disabled' }
    | { ok: false; reason: 'too_old'; oldest: Date }
    | { ok: false; reason: 'in_future'; now: Date }
  >;
}

const isoTime = z.iso.datetime({ offset: true });

export const redeliverAcceptedSchema = z
  .object({
    eventId: z.uuid().meta({ description: 'The event, sent again under the same id' }),
    deliveryStatus: z.literal('pending'),
  })
  .meta({ id: 'RedeliveryAccepted' });

/** An empty object, or no body at all. */
const redeliverRequestSchema = z.strictObject({}).meta({ id: 'RedeliverRequest' });

export const recoverRequestSchema = z
  .strictObject({
    since: isoTime.meta({
      description:
        'Events created at or after this time (ISO 8601 with offset); no older than WEBHOOK_ATTEMPT_RETENTION (30 days), and not later than now',
    }),
    until: isoTime.optional().meta({ description: 'Events created before this time; now when left out' }),
  })
  .meta({ id: 'RecoverRequest' });

export const recoveryStartedSchema = z
  .object({
    recoveryId: z.uuid(),
    eventCount: z.number().int().min(0).meta({ description: 'Events queued to be sent again' }),
  })
  .meta({ id: 'RecoveryStarted' });

export const recoverySchema = z
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

export type Recovery = z.infer<typeof recoverySchema>;

function recoveryView(record: RecoveryRecord): Recovery {
  const s = record.byStatus;
  return {
    recoveryId: record.recoveryId,
    status: s.pending > 0 ? 'running' : 'finished',
    since: record.since,
    until: record.until,
    createdAt: record.createdAt,
    eventCount: record.eventCount,
    progress: {
      pending: s.pending,
      delivered: s.delivered,
      failed: s.failed,
      endpointDisabled: s.endpoint_disabled,
    },
  };
}

const REFUSALS: Record<ResendRefusal, () => ApiError> = {
  not_found: () => ApiError.notFound('No event with this id in this account.'),
  no_endpoint: () =>
    new ApiError(
      409,
      'WEBHOOK_NOT_CONFIGURED',
      'No callback URL is registered for this account and mode: set one (PUT /v1/webhook-endpoint) first.',
    ),
  endpoint_disabled: () =>
    new ApiError(
      409,
      'WEBHOOK_ENDPOINT_DISABLED',
      'Your callback endpoint is disabled after failing for days: enable it (POST /v1/webhook-endpoint/enable) first.',
    ),
};

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

/** The recovery window of a request body, or a `400` naming the field. */
export function recoveryWindow(body: unknown): RecoveryWindow {
  const parsed = parseBody(recoverRequestSchema, body, 'The recovery window is not valid.');
  const since = new Date(parsed.since);
  const until = parsed.until === undefined ? undefined : new Date(parsed.until);
  if (until && until <= since) {
    throw ApiError.validation(
      { formErrors: [], fieldErrors: { until: ['until must be later than since.'] } },
      'The recovery window is not valid.',
    );
  }
  return { since, until };
}

/** Starts a recovery of the window, or the refusal a partner can act on. */
export async function startRecovery(
  sender: EventSender,
  tenant: TenantAccess,
  window: RecoveryWindow,
  origin: AuditOrigin,
): Promise<{ recoveryId: string; eventCount: number }> {
  const started = await sender.recover(tenant, window, origin);
  if (started.ok) return { recoveryId: started.recoveryId, eventCount: started.eventCount };
  if (started.reason === 'too_old' || started.reason === 'in_future') {
    const message =
      started.reason === 'too_old'
        ? `since must be ${started.oldest.toISOString()} or later: attempts older than that are no longer kept.`
        : `since must not be later than now (${started.now.toISOString()}): no event is created in the future.`;
    throw ApiError.validation(
      { formErrors: [], fieldErrors: { since: [message] } },
      'The recovery window is not valid.',
    );
  }
  throw REFUSALS[started.reason]();
}

/** The recovery's progress, or `404` for an id that is not one of this account's recoveries. */
export async function readRecovery(
  tenant: TenantAccess,
  recoveryId: string,
  origin: AuditOrigin,
): Promise<Recovery> {
  const found = isUuid(recoveryId) ? await tenant.recoveries.get(recoveryId, origin) : undefined;
  if (!found) throw ApiError.notFound('No recovery with this id in this account.');
  return recoveryView(found);
}

export async function eventResendRoutes(app: FastifyInstance, opts: { sender: EventSender }): Promise<void> {
  app.post<{ Params: { eventId: string } }>(
    '/v1/events/:eventId/redeliver',
    { config: { auth: true } },
    async (request, reply) => {
      parseBody(redeliverRequestSchema, request.body, 'A redelivery takes no fields; send no body or {}.');
      const { eventId } = request.params;
      const sent = isUuid(eventId)
        ? await opts.sender.redeliver(tenantOf(request), eventId, originOf(request))
        : ({ ok: false, reason: 'not_found' } as const);
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
