import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import type { Clock } from '../../clock.js';
import { addToContext } from '../../context.js';
import { submissionRequestSchema } from '../../domain/submission/index.js';
import { acceptSubmission, type Refusal, submissionHeadersSchema } from '../../ingest/index.js';
import { originOf, principalOf, tenantOf } from '../auth.js';
import { ApiError, findOr404, type ValidationDetails } from '../errors.js';
import { errorResponses, KEYED_OPERATION, successHeaders } from '../openapi-errors.js';
import { acceptedExample, exampleSubmission, submissionDetailExample } from '../openapi-examples.js';
import { submissionDetail } from '../presenters.js';
import { acceptedSubmissionSchema, submissionDetailSchema } from '../schemas.js';

const submissionIdParam = z.object({
  submissionId: z.uuid().meta({ description: 'Service-assigned submission id' }),
});

export const submissionPaths: ZodOpenApiPathsObject = {
  '/v1/submissions': {
    post: {
      operationId: 'createSubmission',
      summary: 'Submit a payload',
      description:
        'Validates synchronously (schema, then partner id, then the 14-marker panel), stores the submission ' +
        'and its first job durably, and answers 202. Processing continues asynchronously.',
      tags: ['Partner'],
      requestParams: { header: submissionHeadersSchema },
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: submissionRequestSchema,
            examples: { submission: { summary: 'The example submission', value: exampleSubmission() } },
          },
        },
      },
      responses: {
        '202': {
          description: 'Accepted: persisted and enqueued (a replay returns the original ids)',
          headers: {
            ...successHeaders(true),
            Location: {
              description: 'The submission: /v1/submissions/{submissionId}',
              required: true,
              schema: { type: 'string' },
            },
            'Idempotent-Replayed': {
              description:
                'true when this answer replays an earlier submission with the same Idempotency-Key',
              schema: { type: 'string', enum: ['true'] },
            },
          },
          content: {
            'application/json': {
              schema: acceptedSubmissionSchema,
              examples: { accepted: { summary: 'Accepted', value: acceptedExample } },
            },
          },
        },
        ...errorResponses({
          ...KEYED_OPERATION,
          codes: [
            ...KEYED_OPERATION.codes,
            'VALIDATION_ERROR',
            'SUBMISSION_VALIDATION_ERROR',
            'PARTNER_ID_MISMATCH',
            'IDEMPOTENCY_MISMATCH',
            'SUBMISSION_ERASED',
            'PAYLOAD_TOO_LARGE',
            'UNSUPPORTED_MEDIA_TYPE',
          ],
        }),
      },
    },
  },
  '/v1/submissions/{submissionId}': {
    get: {
      operationId: 'getSubmission',
      summary: 'Submission status and jobs',
      tags: ['Partner'],
      requestParams: { path: submissionIdParam },
      responses: {
        '200': {
          description: 'The submission',
          headers: successHeaders(true),
          content: {
            'application/json': {
              schema: submissionDetailSchema,
              examples: { completed: { summary: 'A completed submission', value: submissionDetailExample } },
            },
          },
        },
        ...errorResponses({ ...KEYED_OPERATION, codes: [...KEYED_OPERATION.codes, 'NOT_FOUND'] }),
      },
    },
  },
};

/** The two headers every submission carries, as partners write them (fields are `headers.<lowercase>`). */
const HEADER_NAMES: Readonly<Record<string, string>> = {
  'headers.x-correlation-id': 'X-Correlation-Id',
  'headers.idempotency-key': 'Idempotency-Key',
};

/**
 * The headline of a refused submission: a missing header is named in it, not left to be found
 * in the details under a headline about the body's schema.
 */
export function invalidSubmissionMessage(details: ValidationDetails): string {
  const fields = Object.keys(details.fieldErrors);
  const headers = fields.filter((f) => f.startsWith('headers.')).map((f) => HEADER_NAMES[f] ?? f.slice(8));
  if (headers.length === 0) return 'The request does not match the submission schema.';
  const named =
    headers.length === 1
      ? `header ${headers[0]} is missing or not valid`
      : `headers ${headers.join(' and ')} are missing or not valid`;
  const bodyToo = details.formErrors.length > 0 || fields.length > headers.length;
  return bodyToo
    ? `The request does not match the submission schema, and the required ${named} (see details).`
    : `The required ${named}: every submission carries X-Correlation-Id and Idempotency-Key (see details).`;
}

/** What each reason ingest refuses a submission for is answered (docs/decisions.md). */
function refusalError(refusal: Refusal): ApiError {
  switch (refusal.reason) {
    case 'invalid':
      return ApiError.validation(refusal.details, invalidSubmissionMessage(refusal.details));
    case 'partner':
      return new ApiError(
        403,
        'PARTNER_ID_MISMATCH',
        'partnerId does not match the partner this API key belongs to.',
      );
    case 'panel':
      return new ApiError(
        400,
        'SUBMISSION_VALIDATION_ERROR',
        'The marker panel is not valid.',
        refusal.issues,
      );
    case 'mismatch':
      return new ApiError(
        409,
        'IDEMPOTENCY_MISMATCH',
        'This Idempotency-Key was already used with a different body. Use a new key for a new submission.',
      );
    case 'erased':
      return new ApiError(
        410,
        'SUBMISSION_ERASED',
        'The submission this Idempotency-Key created was erased on request. Use a new key to submit again.',
      );
  }
}

/** The route maps HTTP to ingest (`ingest/accept.ts`, where a submission is accepted) and back. */
export async function submissionRoutes(app: FastifyInstance, opts: { clock: Clock }): Promise<void> {
  app.post('/v1/submissions', { config: { auth: true, bodyAsBytes: true } }, async (request, reply) => {
    const verdict = await acceptSubmission(
      {
        headers: request.headers,
        body: Buffer.isBuffer(request.body) ? request.body : undefined,
        requestId: request.id,
        sender: principalOf(request),
      },
      { submissions: tenantOf(request).submissions, clock: opts.clock },
    );
    if (verdict.kind === 'refused') throw refusalError(verdict.refusal);
    const replayed = verdict.kind === 'replayed';
    request.submissionLog = { submissionId: verdict.submissionId, replayed };
    addToContext({ submissionId: verdict.submissionId });
    if (replayed) reply.header('idempotent-replayed', 'true');
    reply.header('location', `/v1/submissions/${verdict.submissionId}`);
    return reply.code(202).send({
      submissionId: verdict.submissionId,
      jobId: verdict.jobId,
      partnerSubmissionId: verdict.partnerSubmissionId,
      partnerSubjectId: verdict.partnerSubjectId,
      status: 'accepted',
      receivedAt: verdict.receivedAt,
    });
  });

  app.get<{ Params: { submissionId: string } }>(
    '/v1/submissions/:submissionId',
    { config: { auth: true } },
    async (request) => {
      const { submissions } = tenantOf(request);
      const record = await findOr404(
        request.params.submissionId,
        (id) => submissions.get(id, originOf(request)),
        'No submission with this id in this account.',
      );
      return submissionDetail(record, opts.clock());
    },
  );
}
