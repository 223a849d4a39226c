import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import type { Clock } from '../../clock.js';
import { createConsoleLink, DEFAULT_TTL_SECONDS, MAX_TTL_SECONDS } from '../../operations/console-links.js';
import type { ConsoleGateway } from '../../store/tenant-access.js';
import { originOf, principalOf } from '../auth.js';
import { ApiError, parseBody } from '../errors.js';
import { errorResponses, KEYED_OPERATION, successHeaders } from '../openapi-errors.js';

export const consoleSessionRequestSchema = z
  .object({
    scope: z.enum(['read', 'manage']).meta({
      description: 'read: sees everything but secrets, changes nothing; manage: may also change settings',
    }),
    ttlSeconds: z
      .number()
      .int()
      .min(300)
      .max(MAX_TTL_SECONDS)
      .optional()
      .meta({
        description: `How long the session may last from sign-in, 300 to ${MAX_TTL_SECONDS} seconds (default ${DEFAULT_TTL_SECONDS})`,
      }),
  })
  .strict()
  .meta({ id: 'ConsoleSessionRequest' });

export const consoleSessionLinkSchema = z
  .object({
    url: z.string().meta({
      description:
        'The one-time sign-in link: usable once, within 5 minutes. Send your user there; never log or store it.',
    }),
    expiresAt: z.iso.datetime({ offset: true }).meta({
      description: 'Until when the link may be opened (the session then lasts ttlSeconds from sign-in)',
    }),
  })
  .meta({ id: 'ConsoleSessionLink' });

export const consoleSessionPaths: ZodOpenApiPathsObject = {
  '/v1/console-sessions': {
    post: {
      operationId: 'createConsoleSession',
      summary: 'A one-time link that signs a person into the console of your account',
      description:
        'Answers with a link your backend hands to one of your people (support, engineers). Opening it ' +
        'signs them into the console of this account, in the mode of this key, for ttlSeconds at most, ' +
        'ending after 30 minutes without use. The link works once, within 5 minutes. Revoking this key ' +
        'ends the sessions it made. Every link, sign-in and page read is in your audit trail.',
      tags: ['Partner'],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: consoleSessionRequestSchema } },
      },
      responses: {
        '201': {
          description: 'The link',
          headers: successHeaders(true),
          content: { 'application/json': { schema: consoleSessionLinkSchema } },
        },
        ...errorResponses({
          ...KEYED_OPERATION,
          codes: [
            ...KEYED_OPERATION.codes,
            'VALIDATION_ERROR',
            'UNSUPPORTED_MEDIA_TYPE',
            'PAYLOAD_TOO_LARGE',
            'NOT_FOUND',
          ],
          meanings: { ...KEYED_OPERATION.meanings, NOT_FOUND: 'the console is turned off on this service' },
        }),
      },
    },
  },
};

export interface ConsoleLinkOptions {
  sessions: ConsoleGateway;
  clock: Clock;
  publicBaseUrl: string;
  enabled: boolean;
}

export async function consoleLinkRoutes(app: FastifyInstance, opts: ConsoleLinkOptions): Promise<void> {
  app.post('/v1/console-sessions', { config: { auth: true } }, async (request, reply) => {
    if (!opts.enabled) throw ApiError.notFound('The console is turned off on this service.');
    const body = parseBody(
      consoleSessionRequestSchema,
      request.body,
      'The request does not match the console session schema.',
    );
    const principal = principalOf(request);
    const link = await createConsoleLink(
      opts.sessions,
      { tenantId: principal.tenantId, keyId: principal.keyId, ...body },
      { now: opts.clock(), publicBaseUrl: opts.publicBaseUrl, origin: originOf(request) },
    );
    reply.code(201);
    return link;
  });
}
