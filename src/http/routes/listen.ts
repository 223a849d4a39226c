import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Clock } from '../../clock.js';
import { isUuid } from '../../domain/ids.js';
import type { ListenPosition } from '../../store/tenant-access.js';
import { originOf, principalOf, tenantOf } from '../auth.js';
import type { CursorScope, PageCursors } from '../cursor.js';
import { ApiError, parseBody } from '../errors.js';
import { parseListQuery } from '../list-query.js';
import { type ListenStreams, sseMessage } from '../listen-stream.js';
import { listenAnswerSchema } from './listen-docs.js';

/** Streams one key may hold open in a process at once: a loop of reconnects cannot pile up. */
export const MAX_STREAMS_PER_KEY = 5;

export interface ListenRouteOptions {
  streams: ListenStreams;
  /** The listen secret of an API key (by its id): stable, and never an endpoint's secret. */
  listenSecret(keyId: string): string;
  cursors: PageCursors;
  clock: Clock;
}

/** Live keys are refused: live data never reaches a developer's machine. */
function requireTestKey(request: FastifyRequest): void {
  if (principalOf(request).mode !== 'test') {
    throw new ApiError(
      403,
      'TEST_MODE_ONLY',
      'This endpoint takes test keys (hs_test_…) only; live data never reaches healthspan listen.',
    );
  }
}

const scopeOf = (tenantId: string): CursorScope => ({ list: 'listen', tenantId, filters: {} });

/** A position's `at`: a decimal `listen_position` (an `xid8` is 64 bits: at most 20 digits). */
const POSITION = /^\d{1,20}$/;

function refuseId(message: string, reason: string): ApiError {
  return new ApiError(400, 'VALIDATION_ERROR', message, {
    formErrors: [],
    fieldErrors: { 'header.last-event-id': [reason] },
  });
}

/** Where a stream starts: after `Last-Event-ID`'s event, else now (only events from here on). */
async function startPosition(request: FastifyRequest, opts: ListenRouteOptions): Promise<ListenPosition> {
  const header = request.headers['last-event-id'];
  const lastEventId = Array.isArray(header) ? header[0] : header;
  const tenant = tenantOf(request);
  if (lastEventId === undefined || lastEventId === '') return tenant.listen.now();
  const value = opts.cursors.decode(scopeOf(tenant.tenantId), lastEventId);
  const [at, eventId] = value ?? [];
  if (typeof at === 'string' && !POSITION.test(at) && !Number.isNaN(Date.parse(at))) {
    // Ids sent before 0.1.0's stream order (a timestamp, not a position) cannot be placed in it.
    throw refuseId(
      'The Last-Event-ID header comes from a stream opened before the service was upgraded; reconnect without it to receive events from now on.',
      'an id from before an upgrade',
    );
  }
  if (typeof at !== 'string' || !POSITION.test(at) || typeof eventId !== 'string' || !isUuid(eventId)) {
    throw refuseId(
      'The Last-Event-ID header is not an id this stream sent to this key; reconnect without it.',
      'not an id this stream sent',
    );
  }
  return { at, eventId };
}

async function openStream(request: FastifyRequest, reply: FastifyReply, opts: ListenRouteOptions) {
  requireTestKey(request);
  parseListQuery(z.object({}).strict(), request.query, {});
  const { keyId } = principalOf(request);
  const tenant = tenantOf(request);
  const position = await startPosition(request, opts);
  if (opts.streams.openFor(keyId) >= MAX_STREAMS_PER_KEY) {
    throw new ApiError(
      429,
      'RATE_LIMITED',
      `This API key already holds ${MAX_STREAMS_PER_KEY} test event streams open; close one and retry.`,
      undefined,
      { 'retry-after': '5' },
    );
  }
  await tenant.listen.started(keyId, originOf(request));
  const secret = opts.listenSecret(keyId);
  reply.hijack();
  reply.raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    // nginx and similar proxies pass each message on at once instead of buffering the stream.
    'x-accel-buffering': 'no',
  });
  const idOf = (p: ListenPosition) => opts.cursors.encode(scopeOf(tenant.tenantId), [p.at, p.eventId]);
  // First a reconnect delay for EventSource clients, then the secret the forwards are signed
  // with. Its id is where the stream starts: a client that loses the connection before any event
  // came resumes from there, and misses none made meanwhile.
  const started = sseMessage(idOf(position), 'listen.started', { listenSecret: secret, mode: 'test' });
  reply.raw.write(`retry: 1000\n${started}`);
  await opts.streams.run(reply.raw, {
    keyId,
    tenant,
    secret,
    position,
    idAfter: (event) => idOf({ at: event.at, eventId: event.eventId }),
  });
}

export async function listenRoutes(app: FastifyInstance, opts: ListenRouteOptions): Promise<void> {
  // Open streams end first on shutdown, so closing the server does not wait on them.
  app.addHook('preClose', (done) => {
    opts.streams.endAll();
    done();
  });
  app.get('/v1/test/events/stream', { config: { auth: true } }, (request, reply) =>
    openStream(request, reply, opts),
  );
  app.post<{ Params: { eventId: string } }>(
    '/v1/test/events/:eventId/answers',
    { config: { auth: true } },
    async (request, reply) => {
      requireTestKey(request);
      const { eventId } = request.params;
      if (!isUuid(eventId)) throw ApiError.notFound('No event with this id in this account’s test data.');
      const answer = parseBody(
        listenAnswerSchema,
        request.body,
        'The request does not match the listen answer schema.',
      );
      const recorded = await tenantOf(request).listen.recordAnswer({
        eventId,
        deliveryId: answer.deliveryId,
        url: answer.url,
        statusCode: answer.statusCode,
        errorClass: answer.error ?? null,
        latencyMs: answer.durationMs,
        responseText: answer.body ?? null,
        startedAt: new Date(opts.clock().getTime() - answer.durationMs),
      });
      if (!recorded) throw ApiError.notFound('No event with this id in this account’s test data.');
      reply.code(204).send();
    },
  );
}
