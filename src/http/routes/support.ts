import type { FastifyInstance } from 'fastify';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import type { Clock } from '../../clock.js';
import { type ReadinessCheck, readiness } from '../../readiness.js';
import { ApiError, sendError } from '../errors.js';
import { errorResponses, SUPPORT_OPERATION, successHeaders } from '../openapi-errors.js';
import { healthSchema, readySchema } from '../schemas.js';

export const supportPaths: ZodOpenApiPathsObject = {
  '/health': {
    get: {
      operationId: 'getHealth',
      summary: 'Liveness',
      description: 'Answers while the process runs; does not check the database.',
      tags: ['Support'],
      security: [],
      responses: {
        '200': {
          description: 'Alive',
          headers: successHeaders(false),
          content: { 'application/json': { schema: healthSchema } },
        },
        ...errorResponses(SUPPORT_OPERATION),
      },
    },
  },
  '/ready': {
    get: {
      operationId: 'getReadiness',
      summary: 'Readiness',
      description:
        'Ready when the database answers and every migration is applied, and, on a process that runs a worker, when its queue reads succeed.',
      tags: ['Support'],
      security: [],
      responses: {
        '200': {
          description: 'Ready',
          headers: successHeaders(false),
          content: { 'application/json': { schema: readySchema } },
        },
        ...errorResponses({
          ...SUPPORT_OPERATION,
          codes: [...SUPPORT_OPERATION.codes, 'SERVICE_UNAVAILABLE'],
        }),
      },
    },
  },
  '/openapi.json': {
    get: {
      operationId: 'getOpenApiJson',
      summary: 'This API description (OpenAPI 3.1.0, JSON)',
      tags: ['Support'],
      security: [],
      responses: {
        '200': {
          description: 'The OpenAPI document',
          headers: successHeaders(false),
          content: {
            'application/json': {
              schema: {
                type: 'object',
                description: 'An OpenAPI 3.1.0 document',
                additionalProperties: true,
              },
            },
          },
        },
        ...errorResponses(SUPPORT_OPERATION),
      },
    },
  },
  '/openapi.yaml': {
    get: {
      operationId: 'getOpenApiYaml',
      summary: 'This API description (OpenAPI 3.1.0, YAML)',
      tags: ['Support'],
      security: [],
      responses: {
        '200': {
          description: 'The OpenAPI document',
          headers: successHeaders(false),
          content: {
            'application/yaml': { schema: { type: 'string', description: 'An OpenAPI 3.1.0 document' } },
          },
        },
        ...errorResponses(SUPPORT_OPERATION),
      },
    },
  },
};

export async function supportRoutes(
  app: FastifyInstance,
  opts: {
    isReady: () => Promise<{ ok: boolean; reason?: string }>;
    checks?: ReadinessCheck[];
    clock: Clock;
    /** This API's description (`openapi.ts`, which reads this module's paths). */
    openApi: { json(): object; yaml(): string };
  },
): Promise<void> {
  app.get('/health', async () => ({ status: 'ok', timestamp: opts.clock().toISOString() }));

  app.get('/ready', async (request, reply) => {
    const ready = await readiness(opts.isReady, opts.checks);
    if (ready.ok) {
      const checks: { database: 'ok'; queue?: 'ok' } = { database: 'ok' };
      for (const c of opts.checks ?? []) checks[c.name] = 'ok';
      return { status: 'ready', checks };
    }
    return sendError(
      request,
      reply,
      new ApiError(503, 'SERVICE_UNAVAILABLE', `Not ready: ${ready.reason ?? 'unknown'}.`),
    );
  });

  app.get('/openapi.json', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(opts.openApi.json()),
  );
  app.get('/openapi.yaml', async (_request, reply) =>
    reply.type('application/yaml; charset=utf-8').send(opts.openApi.yaml()),
  );
}
