import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { errorResponses, KEYED_OPERATION, successHeaders } from '../openapi-errors.js';

/** What `healthspan listen` reports after forwarding an event (Stripe's `webhook_response`). */
export const listenAnswerSchema = z
  .strictObject({
    deliveryId: z.uuid().meta({ description: 'The deliveryId of the streamed message that was forwarded' }),
    url: z
      .url()
      .max(2048)
      .meta({ description: 'Where it was forwarded, e.g. http://localhost:3000/webhooks' }),
    statusCode: z
      .int()
      .min(100)
      .max(599)
      .nullable()
      .meta({ description: 'The HTTP status your receiver answered; null when it did not answer' }),
    error: z
      .string()
      .regex(/^[a-z_]{1,40}$/)
      .optional()
      .meta({ description: 'Why there was no answer, e.g. connection_refused or timeout' }),
    durationMs: z.int().min(0).max(3_600_000).meta({ description: 'How long the forward took' }),
    body: z.string().max(65_536).optional().meta({
      description: 'Your receiver’s answer; the first 1 KiB is kept as text, control characters removed',
    }),
  })
  .meta({ id: 'ListenAnswer' });

const STREAM_EXAMPLE = [
  'retry: 1000',
  'id: WyIyMDI2LTExLTI2VDE4OjU5OjU4LjAwMFoiLCIwMDAwIl0.z9x8c7v6b5n4m3l2k1j0',
  'event: listen.started',
  'data: {"listenSecret":"whsec_0n3Zb7x0kPq4o8W1M6sX9bq2r5c8f1h4j7l0n3p6s9u=","mode":"test"}',
  '',
  'event: result.ready',
  'id: WyIyMDI2LTExLTI2VDE5OjAwOjAwLjAwMFoiLCI2YjNhIl0.q1w2e3r4t5y6u7i8o9p0',
  'data: {"eventId":"9f0e0a52-58d4-5a0c-9a55-1c7b0f0f4d0e","deliveryId":"2d0f8e9a-6a4b-4b8e-9d1c-3f5e7a9b1c2d","headers":{"Content-Type":"application/json","X-Healthspan-Event":"result.ready","…":"…"},"body":"{\\"eventType\\":\\"result.ready\\",…}"}',
  '',
  ': keep-alive',
  '',
].join('\n');

export const listenPaths: ZodOpenApiPathsObject = {
  '/v1/test/events/stream': {
    get: {
      operationId: 'streamTestEvents',
      summary: 'Stream your test events as they happen (Server-Sent Events; test keys only)',
      description:
        'What `npx healthspan listen` holds open. Every result.ready event of your test data, whether or not a test ' +
        'callback is registered, is sent as an SSE message with event `result.ready`, an `id`, and as data a ' +
        'JSON object: eventId, deliveryId (new for every message; report the answer with it), headers (those of a real ' +
        'test-mode delivery: X-Healthspan-Signature and webhook-signature, timestamps, ids, X-Healthspan-Mode: test, ' +
        'signed with the listen secret of your API key) and body (the exact request body, byte for byte). ' +
        'The first message (`listen.started`) carries that listen secret, and as its id where the stream starts; the secret stays the same for the key, so configure ' +
        'your local receiver with it once. It is never one of your callback endpoint’s signing secrets. Events are sent as ' +
        'soon as they are committed, in the order they were written, and none is skipped however late it commits. ' +
        'After a dropped connection, reconnect with the last id you received in Last-Event-ID: the stream resumes ' +
        'after that event, with none lost and none repeated. Without it the stream starts after every event already ' +
        'committed. A comment line (`: keep-alive`) is sent every ' +
        '15 seconds while it is quiet. One key may hold 5 streams open at once. Live keys get 403.',
      tags: ['Test mode'],
      requestParams: {
        header: z.object({
          'last-event-id': z
            .string()
            .optional()
            .meta({ description: 'The id of the last message received, to resume after it' }),
        }),
      },
      responses: {
        '200': {
          description: 'The stream; it stays open until you close it or the service restarts',
          headers: successHeaders(true),
          content: {
            'text/event-stream': {
              schema: z.string().meta({
                description:
                  'Server-Sent Events; the data of each result.ready message is a JSON object {eventId, deliveryId, headers, body}',
              }),
              examples: { stream: { summary: 'The start of a stream', value: STREAM_EXAMPLE } },
            },
          },
        },
        ...errorResponses({
          ...KEYED_OPERATION,
          codes: [...KEYED_OPERATION.codes, 'VALIDATION_ERROR', 'TEST_MODE_ONLY'],
          meanings: {
            ...KEYED_OPERATION.meanings,
            VALIDATION_ERROR:
              'Last-Event-ID is not an id this stream sent to this key (or one sent before the service was upgraded), or a query parameter was given',
            RATE_LIMITED:
              'too many requests for this API key, or the key already holds 5 streams open; wait for the Retry-After delay',
          },
        }),
      },
    },
  },
  '/v1/test/events/{eventId}/answers': {
    post: {
      operationId: 'reportListenAnswer',
      summary: 'Report what your local receiver answered to a forwarded test event (test keys only)',
      description:
        'Sent by `healthspan listen` after each forward. The answer is shown among the event’s attempts as a ' +
        '`listen` attempt (status, duration, the first 1 KiB of the answer); the event’s delivery status does not ' +
        'change. Reporting the same deliveryId again records nothing new. Live keys get 403.',
      tags: ['Test mode'],
      requestParams: { path: z.object({ eventId: z.uuid().meta({ description: 'The event forwarded' }) }) },
      requestBody: { required: true, content: { 'application/json': { schema: listenAnswerSchema } } },
      responses: {
        '204': { description: 'Recorded', headers: successHeaders(true) },
        ...errorResponses({
          ...KEYED_OPERATION,
          codes: [
            ...KEYED_OPERATION.codes,
            'VALIDATION_ERROR',
            'UNSUPPORTED_MEDIA_TYPE',
            'PAYLOAD_TOO_LARGE',
            'TEST_MODE_ONLY',
            'NOT_FOUND',
          ],
          meanings: { NOT_FOUND: 'no event with this id in your test data' },
        }),
      },
    },
  },
};
