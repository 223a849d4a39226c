import type { FastifyInstance } from 'fastify';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { errorResponses, rateLimitHeaders } from '../responses.js';

export const probePaths: ZodOpenApiPathsObject = {
  '/v1/partner-auth-probe': {
    get: {
      operationId: 'probeCredentials',
      summary: 'Validate credentials',
      description: '204 with an empty body when the key is valid and the account active.',
      tags: ['Partner'],
      responses: {
        '204': { description: 'Key valid, account active', headers: rateLimitHeaders },
        ...errorResponses('401', '403', '429', '500'),
      },
    },
  },
};

export async function probeRoutes(app: FastifyInstance): Promise<void> {
  app.get('/v1/partner-auth-probe', { config: { auth: true } }, async (_request, reply) =>
    reply.code(204).send(),
  );
}
