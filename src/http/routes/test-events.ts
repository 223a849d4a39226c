import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import type { AuditOrigin } from '../../domain/audit.js';
import type { TenantAccess } from '../../store/tenant-access.js';
import { originOf, principalOf, tenantOf } from '../auth.js';
import { ApiError, parseBody, TEST_CALLBACK_NOT_CONFIGURED } from '../errors.js';
import { errorResponses, KEYED_OPERATION, successHeaders } from '../openapi-errors.js';

export const testEventRequestSchema = z
  .strictObject({
    type: z.literal('result.ready').meta({ description: 'The event to send; result.ready is the only one' }),
    resultId: z.uuid().optional().meta({
      description: 'A completed result of your test data; your most recently completed one when left out',
    }),
  })
  .meta({ id: 'TestEventRequest' });

export const testEventSentSchema = z
  .object({
    eventId: z
      .uuid()
      .meta({ description: 'The id the delivery carries (X-Healthspan-Event-Id, webhook-id)' }),
    type: z.literal('result.ready'),
    resultId: z.uuid(),
  })
  .meta({ id: 'TestEventSent' });

/** What the route needs to send an event: resolved within the account it is handed, only. */
export interface TestEventSender {
  send(
    tenant: TenantAccess,
    resultId: string | undefined,
    origin: AuditOrigin,
  ): Promise<
    | { ok: true; eventId: string; resultId: string }
    | { ok: false; reason: 'no_result' | 'not_found' | 'not_ready' | 'no_endpoint' }
  >;
}

export const testEventPaths: ZodOpenApiPathsObject = {
  '/v1/test/events': {
    post: {
      operationId: 'sendTestEvent',
      summary: 'Send a signed test event to your test callback now (test keys only)',
      description:
        'Sends the result.ready event of a completed test result to the callback registered for test ' +
        'mode, signed as every delivery is, with X-Healthspan-Mode: test. The event has the same id ' +
        'each time it is sent for the same result, so your receiver can practise deduplicating. ' +
        'Answers 202 once the delivery is queued; it follows the usual retry schedule. Live keys get 403.',
      tags: ['Test mode'],
      requestBody: { required: true, content: { 'application/json': { schema: testEventRequestSchema } } },
      responses: {
        '202': {
          description: 'The delivery is queued',
          headers: successHeaders(true),
          content: { 'application/json': { schema: testEventSentSchema } },
        },
        ...errorResponses({
          ...KEYED_OPERATION,
          codes: [
            ...KEYED_OPERATION.codes,
            'VALIDATION_ERROR',
            'UNSUPPORTED_MEDIA_TYPE',
            'PAYLOAD_TOO_LARGE',
            'TEST_MODE_ONLY',
            'NOT_FOUND',
            'RESULT_NOT_READY',
            'WEBHOOK_NOT_CONFIGURED',
          ],
          meanings: { NOT_FOUND: 'no result with this resultId in your test data' },
        }),
      },
    },
  },
};

const REFUSALS = {
  not_found: () => ApiError.notFound('No result with this id in this account’s test data.'),
  no_result: () =>
    new ApiError(
      409,
      'RESULT_NOT_READY',
      'No test result has completed yet. Send a test submission first, or name a completed resultId.',
    ),
  not_ready: () =>
    new ApiError(409, 'RESULT_NOT_READY', 'This result is not completed yet; send the event once it is.'),
  no_endpoint: () => new ApiError(409, 'WEBHOOK_NOT_CONFIGURED', TEST_CALLBACK_NOT_CONFIGURED),
} as const;

export async function testEventRoutes(
  app: FastifyInstance,
  opts: { sender: TestEventSender },
): Promise<void> {
  app.post('/v1/test/events', { config: { auth: true } }, async (request, reply) => {
    if (principalOf(request).mode !== 'test') {
      throw new ApiError(
        403,
        'TEST_MODE_ONLY',
        'This endpoint takes test keys (hs_test_…) only; live data never receives test events.',
      );
    }
    const { resultId } = parseBody(
      testEventRequestSchema,
      request.body,
      'The request does not match the test event schema.',
    );
    const sent = await opts.sender.send(tenantOf(request), resultId, originOf(request));
    if (!sent.ok) throw REFUSALS[sent.reason]();
    reply.code(202);
    return { eventId: sent.eventId, type: 'result.ready' as const, resultId: sent.resultId };
  });
}
