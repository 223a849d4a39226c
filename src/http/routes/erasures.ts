import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import {
  ledgerUnavailableText,
  readErasure,
  requestErasure,
  SUBJECT_MAX,
} from '../../operations/erasures.js';
import type { ErasureRecord } from '../../store/tenant-access.js';
import { originOf, tenantOf } from '../auth.js';
import { ApiError } from '../errors.js';
import { errorResponses, KEYED_OPERATION, successHeaders } from '../openapi-errors.js';

const isoDateTime = z.iso.datetime({ offset: true });

const erasureStatus = z.enum(['pending', 'completed']).meta({
  description: 'pending while submissions are being erased; completed once everything is gone',
});

export const erasureRequestedSchema = z
  .object({
    erasureId: z.uuid(),
    partnerSubjectId: z.string(),
    status: erasureStatus,
    requestedAt: isoDateTime,
  })
  .meta({ id: 'ErasureRequested' });

export const erasureSchema = z
  .object({
    erasureId: z.uuid(),
    partnerSubjectId: z.string(),
    status: erasureStatus,
    requestedAt: isoDateTime,
    completedAt: isoDateTime.nullable(),
    counts: z
      .object({
        submissions: z.number().int(),
        results: z.number().int(),
        artifacts: z.number().int(),
      })
      .meta({ description: 'What this erasure removed so far' }),
  })
  .meta({ id: 'Erasure' });

const subjectParam = z.object({
  partnerSubjectId: z
    .string()
    .min(1)
    .max(SUBJECT_MAX)
    .meta({ description: 'The partnerSubjectId your submissions carried, URL-encoded' }),
});

export const erasurePaths: ZodOpenApiPathsObject = {
  '/v1/subjects/{partnerSubjectId}': {
    delete: {
      operationId: 'eraseSubject',
      summary: 'Erase everything stored about a subject',
      description:
        'Erases every submission of this subject in your account, with its results, reports, jobs and ' +
        'callback events. Answers 202 at once; follow the erasure at Location. Repeating the request ' +
        'returns the same pending erasure, or a new one when new submissions arrived since. A subject ' +
        'with nothing stored gets a completed erasure of zero items. No webhook is sent for an erasure.',
      tags: ['Partner'],
      requestParams: { path: subjectParam },
      responses: {
        '202': {
          description: 'The erasure, pending (or completed when there was nothing to erase)',
          headers: {
            ...successHeaders(true),
            Location: {
              description: 'The erasure: /v1/erasures/{erasureId}',
              required: true,
              schema: { type: 'string' },
            },
          },
          content: { 'application/json': { schema: erasureRequestedSchema } },
        },
        ...errorResponses({
          ...KEYED_OPERATION,
          codes: [...KEYED_OPERATION.codes, 'VALIDATION_ERROR', 'SERVICE_UNAVAILABLE'],
          retryAfterOn503: true,
          meanings: {
            ...KEYED_OPERATION.meanings,
            SERVICE_UNAVAILABLE:
              'the erasure cannot be recorded just now (nothing of it was recorded); retry after the Retry-After delay',
          },
          messages: { SERVICE_UNAVAILABLE: ledgerUnavailableText(30) },
        }),
      },
    },
  },
  '/v1/erasures/{erasureId}': {
    get: {
      operationId: 'getErasure',
      summary: 'Erasure status and counts',
      tags: ['Partner'],
      requestParams: { path: z.object({ erasureId: z.uuid() }) },
      responses: {
        '200': {
          description: 'The erasure',
          headers: successHeaders(true),
          content: { 'application/json': { schema: erasureSchema } },
        },
        ...errorResponses({ ...KEYED_OPERATION, codes: [...KEYED_OPERATION.codes, 'NOT_FOUND'] }),
      },
    },
  },
};

function presentErasure(e: ErasureRecord): z.infer<typeof erasureSchema> {
  return {
    erasureId: e.erasureId,
    partnerSubjectId: e.partnerSubjectId,
    status: e.status,
    requestedAt: e.requestedAt,
    completedAt: e.completedAt,
    counts: e.counts,
  };
}

export async function erasureRoutes(app: FastifyInstance): Promise<void> {
  app.delete<{ Params: { partnerSubjectId: string } }>(
    '/v1/subjects/:partnerSubjectId',
    { config: { auth: true } },
    async (request, reply) => {
      const requested = await requestErasure(
        tenantOf(request).erasures,
        request.params.partnerSubjectId,
        originOf(request),
      );
      if (!requested.ok && requested.reason === 'ledger_unavailable') {
        request.log.error(requested.operatorMessage);
        throw new ApiError(
          503,
          'SERVICE_UNAVAILABLE',
          ledgerUnavailableText(requested.retryAfterSeconds),
          undefined,
          { 'retry-after': String(requested.retryAfterSeconds) },
        );
      }
      if (!requested.ok) {
        throw ApiError.validation({
          formErrors: [],
          fieldErrors: {
            'path.partnerSubjectId': [`partnerSubjectId must be 1 to ${SUBJECT_MAX} characters.`],
          },
        });
      }
      const { erasure } = requested;
      reply.header('location', `/v1/erasures/${erasure.erasureId}`);
      return reply.code(202).send({
        erasureId: erasure.erasureId,
        partnerSubjectId: erasure.partnerSubjectId,
        status: erasure.status,
        requestedAt: erasure.requestedAt,
      });
    },
  );

  app.get<{ Params: { erasureId: string } }>(
    '/v1/erasures/:erasureId',
    { config: { auth: true } },
    async (request) => {
      const { erasures } = tenantOf(request);
      const erasure = await readErasure(request.params.erasureId, (id) => erasures.get(id));
      if (!erasure) throw ApiError.notFound('No erasure with this id in this account.');
      return presentErasure(erasure);
    },
  );
}
