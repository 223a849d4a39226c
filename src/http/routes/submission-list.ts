import type { FastifyInstance } from 'fastify';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { originOf, tenantOf } from '../auth.js';
import { errorResponses, KEYED_OPERATION, successHeaders } from '../openapi-errors.js';
import {
  findSubmissions,
  parseSubmissionListQuery,
  type SubmissionListOptions,
  submissionListQuery,
} from '../submission-list.js';
import { submissionPageExample, submissionPageSchema } from '../submission-list-item.js';

export const submissionListPaths: ZodOpenApiPathsObject = {
  '/v1/submissions': {
    get: {
      operationId: 'listSubmissions',
      summary: "Your account's submissions, newest first",
      description:
        'Finds submissions by status, subject, your reference or the time they were received, newest first ' +
        '(by receivedAt, then submissionId). Each item holds ids, references, status, times, the result id, ' +
        'why processing failed and the SLA: never submitted data (read one submission for its steps). ' +
        'Pages are walked with nextCursor, which is bound to the key’s account and mode and to the filters: ' +
        'submissions received while you walk never make a page repeat or skip one. Each page read is audited.',
      tags: ['Partner'],
      requestParams: { query: submissionListQuery },
      responses: {
        '200': {
          description: 'A page of submissions',
          headers: successHeaders(true),
          content: {
            'application/json': {
              schema: submissionPageSchema,
              examples: {
                page: { summary: 'A failed and a completed submission', value: submissionPageExample },
              },
            },
          },
        },
        ...errorResponses({
          ...KEYED_OPERATION,
          codes: [...KEYED_OPERATION.codes, 'VALIDATION_ERROR'],
          meanings: {
            ...KEYED_OPERATION.meanings,
            VALIDATION_ERROR:
              'a query parameter is unknown or out of range, a time has no offset, receivedBefore is not after ' +
              'receivedAfter, or the cursor was issued for another account, mode or filter set (details.fieldErrors names it)',
          },
          messages: { VALIDATION_ERROR: 'The query parameters are not valid.' },
        }),
      },
    },
  },
};

export async function submissionListRoutes(app: FastifyInstance, opts: SubmissionListOptions): Promise<void> {
  app.get('/v1/submissions', { config: { auth: true } }, async (request) =>
    findSubmissions(tenantOf(request), parseSubmissionListQuery(request.query), originOf(request), opts),
  );
}
