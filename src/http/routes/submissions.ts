import stableStringify from 'fast-json-stable-stringify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import type { Clock } from '../../clock.js';
import { addToContext } from '../../context.js';
import { checkPanel, parseSubmission, submissionRequestSchema } from '../../domain/submission/index.js';
import { sha256Hex } from '../../hash.js';
import { readJsonText } from '../../json/read-json.js';
import { inSpan } from '../../telemetry/tracing.js';
import { originOf, principalOf, tenantOf } from '../auth.js';
import { ApiError, findOr404, type ValidationDetails } from '../errors.js';
import { errorResponses, KEYED_OPERATION, successHeaders } from '../openapi-errors.js';
import { acceptedExample, exampleSubmission, submissionDetailExample } from '../openapi-examples.js';
import { submissionDetail } from '../presenters.js';
import { acceptedSubmissionSchema, submissionDetailSchema } from '../schemas.js';

const HEADER_MAX = 255;

const submissionIdParam = z.object({
  submissionId: z.uuid().meta({ description: 'Service-assigned submission id' }),
});

const postHeaders = z.object({
  'x-correlation-id': z
    .string()
    .min(1)
    .max(HEADER_MAX)
    .meta({ description: 'Your id for tracing this request across systems (required)' }),
  'idempotency-key': z.string().min(1).max(HEADER_MAX).meta({
    description: 'Unique per logical submission; a retry with the same body returns the same ids (24 h)',
  }),
  'x-request-id': z
    .string()
    .optional()
    .meta({ description: 'Echoed on the response; generated when absent' }),
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
      requestParams: { header: postHeaders },
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

function header(request: FastifyRequest, name: string): string | undefined {
  const raw = request.headers[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value === undefined || value.trim() === '' ? undefined : value;
}

function headerErrors(request: FastifyRequest): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const name of ['x-correlation-id', 'idempotency-key']) {
    const value = header(request, name);
    if (value === undefined)
      errors[`headers.${name}`] = [`The ${name} header is required and must not be empty.`];
    else if (value.length > HEADER_MAX)
      errors[`headers.${name}`] = [`The ${name} header must be at most ${HEADER_MAX} characters.`];
  }
  return errors;
}

export async function submissionRoutes(app: FastifyInstance, opts: { clock: Clock }): Promise<void> {
  app.post('/v1/submissions', { config: { auth: true } }, async (request, reply) => {
    const principal = principalOf(request);
    const fieldErrorsFromHeaders = headerErrors(request);
    const receivedAt = opts.clock();
    const parsed = parseSubmission(request.body, { now: receivedAt });
    if (!parsed.ok || Object.keys(fieldErrorsFromHeaders).length > 0) {
      const details: ValidationDetails = parsed.ok
        ? { formErrors: [], fieldErrors: fieldErrorsFromHeaders }
        : {
            formErrors: parsed.error.formErrors,
            fieldErrors: { ...fieldErrorsFromHeaders, ...parsed.error.fieldErrors },
          };
      throw ApiError.validation(details);
    }
    if (parsed.value.partnerId.toLowerCase() !== principal.namedPartnerId.toLowerCase()) {
      throw new ApiError(
        403,
        'PARTNER_ID_MISMATCH',
        'partnerId does not match the partner this API key belongs to.',
      );
    }
    const panel = checkPanel(parsed.value);
    if (!panel.ok) {
      throw new ApiError(400, 'SUBMISSION_VALIDATION_ERROR', 'The marker panel is not valid.', panel.details);
    }

    const rawBody = request.rawBody ?? JSON.stringify(request.body);
    const outcome = await inSpan('ingest.commit', {}, () =>
      tenantOf(request).submissions.ingest({
        partnerId: principal.partnerId,
        keyId: principal.keyId,
        idempotencyKeyHash: sha256Hex(header(request, 'idempotency-key')!),
        requestHash: sha256Hex(rawBody),
        // "Identical" means the same JSON value: key order and whitespace do not matter. Only
        // computed when a key is reused with different bytes, so it stays off the hot path.
        sameBody: (stored) => {
          const read = readJsonText(stored);
          return read.ok && stableStringify(read.value) === stableStringify(request.body);
        },
        correlationId: header(request, 'x-correlation-id')!,
        requestId: request.id,
        partnerSubmissionId: parsed.value.partnerSubmissionId,
        partnerSubjectId: parsed.value.partnerSubjectId,
        originalBody: rawBody,
        normalisedBody: JSON.stringify(panel.value),
        documentCount: panel.value.reportDocuments?.length ?? 0,
        markerCount: panel.value.markers.length,
        receivedAt,
      }),
    );
    if (outcome.kind === 'mismatch') {
      throw new ApiError(
        409,
        'IDEMPOTENCY_MISMATCH',
        'This Idempotency-Key was already used with a different body. Use a new key for a new submission.',
      );
    }
    if (outcome.kind === 'erased') {
      throw new ApiError(
        410,
        'SUBMISSION_ERASED',
        'The submission this Idempotency-Key created was erased on request. Use a new key to submit again.',
      );
    }
    request.submissionLog = { submissionId: outcome.submissionId, replayed: outcome.kind === 'replayed' };
    addToContext({ submissionId: outcome.submissionId });
    if (outcome.kind === 'replayed') reply.header('idempotent-replayed', 'true');
    reply.header('location', `/v1/submissions/${outcome.submissionId}`);
    return reply.code(202).send({
      submissionId: outcome.submissionId,
      jobId: outcome.jobId,
      partnerSubmissionId: outcome.partnerSubmissionId,
      partnerSubjectId: outcome.partnerSubjectId,
      status: 'accepted',
      receivedAt: outcome.receivedAt,
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
