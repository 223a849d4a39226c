import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import type { Clock } from '../../clock.js';
import { originOf, tenantOf } from '../auth.js';
import type { DownloadLinks } from '../download-links.js';
import { findOr404 } from '../errors.js';
import { errorResponses, KEYED_OPERATION, successHeaders } from '../openapi-errors.js';
import { resultExample } from '../openapi-examples.js';
import { presentResult, resultSchema } from '../result-body.js';

export const resultPaths: ZodOpenApiPathsObject = {
  '/v1/results/{resultId}': {
    get: {
      operationId: 'getResult',
      summary: 'Result with outcomes and artifacts',
      tags: ['Partner'],
      requestParams: { path: z.object({ resultId: z.uuid() }) },
      responses: {
        '200': {
          description: 'The result',
          headers: successHeaders(true),
          content: {
            'application/json': {
              schema: resultSchema,
              examples: { completed: { summary: 'A completed result', value: resultExample } },
            },
          },
        },
        ...errorResponses({ ...KEYED_OPERATION, codes: [...KEYED_OPERATION.codes, 'NOT_FOUND'] }),
      },
    },
  },
};

export async function resultRoutes(
  app: FastifyInstance,
  opts: { links: DownloadLinks; clock: Clock },
): Promise<void> {
  app.get<{ Params: { resultId: string } }>(
    '/v1/results/:resultId',
    { config: { auth: true } },
    async (request) => {
      const { results } = tenantOf(request);
      const record = await findOr404(
        request.params.resultId,
        (id) => results.get(id, originOf(request)),
        'No result with this id in this account.',
      );
      return presentResult(record, opts.links, opts.clock());
    },
  );
}
