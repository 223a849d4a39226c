import type { FastifyInstance } from 'fastify';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { errorResponses, KEYED_OPERATION, successHeaders } from '../openapi-errors.js';

export const probePaths: ZodOpenApiPathsObject = {
  '/v1/partner-auth-probe': {
    get: {
      operationId: 'probeCredentials',
      summary: 'Validate credentials',
      description: '204 with an empty body when the key is valid and the account active.',
      tags: ['Partner'],
      responses: {
        '204': { description: 'Key valid, account active', headers: successHeaders(true) },
        ...errorResponses(KEYED_OPERATION),
      },
    },
  },
};

export async function probeRoutes(app: FastifyInstance): Promise<void> {
  app.get('/v1/partner-auth-probe', { config: { auth: true } }, async (_request, reply) =>
    reply.code(204).send(),
  );
}
