import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import {
  AUDIT_ACTIONS,
  AUDIT_ACTOR_TYPES,
  AUDIT_OUTCOMES,
  AUDIT_RESOURCE_TYPES,
} from '../../domain/audit.js';
import { type AuditListOptions, auditQuery, findAuditEvents, parseAuditQuery } from '../audit-list.js';
import { tenantOf } from '../auth.js';
import { errorResponses, KEYED_OPERATION, successHeaders } from '../openapi-errors.js';

const isoDateTime = z.iso.datetime({ offset: true });

export const auditEventSchema = z
  .object({
    eventId: z.uuid(),
    occurredAt: isoDateTime,
    tenantId: z.uuid(),
    action: z.enum(AUDIT_ACTIONS),
    resourceType: z.enum(AUDIT_RESOURCE_TYPES),
    resourceId: z
      .string()
      .meta({ description: "The service's id of the resource (never your own references)" }),
    actor: z.object({
      type: z.enum(AUDIT_ACTOR_TYPES),
      id: z
        .uuid()
        .optional()
        .meta({ description: 'The console session that acted (type console_session): its id' }),
      keyId: z
        .uuid()
        .optional()
        .meta({
          description:
            'The API key that acted, or for a console session the key that asked for its link (its id, never ' +
            "the key); absent for an operator's",
        }),
    }),
    requestId: z.string(),
    correlationId: z.string().optional(),
    outcome: z.enum(AUDIT_OUTCOMES),
  })
  .meta({ id: 'AuditEvent' });

export const auditPageSchema = z
  .object({
    items: z.array(auditEventSchema),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as cursor for the next (older) page; null on the last page' }),
  })
  .meta({ id: 'AuditEventPage' });

export const auditPaths: ZodOpenApiPathsObject = {
  '/v1/audit-events': {
    get: {
      operationId: 'listAuditEvents',
      summary: "Your account's audit trail, newest first",
      description:
        'Who read, created, downloaded or erased what in your account, and the operator changes to its keys ' +
        'and callbacks. Events hold ids only, never submitted data. Filtered by your references ' +
        '(partnerSubmissionId, partnerSubjectId: exact match), only the events about the matching submissions and ' +
        'their results, reports and callback events are listed (an erased submission matches nothing). Pages are ' +
        'walked with nextCursor, bound to the key’s account and mode and to the filters.',
      tags: ['Partner'],
      requestParams: { query: auditQuery },
      responses: {
        '200': {
          description: 'A page of events',
          headers: successHeaders(true),
          content: { 'application/json': { schema: auditPageSchema } },
        },
        ...errorResponses({
          ...KEYED_OPERATION,
          codes: [...KEYED_OPERATION.codes, 'VALIDATION_ERROR'],
          meanings: {
            ...KEYED_OPERATION.meanings,
            VALIDATION_ERROR:
              'a query parameter is unknown or out of range, or the cursor was issued for another account, mode, ' +
              'list or filter set (details.fieldErrors names it)',
          },
          messages: { VALIDATION_ERROR: 'The query parameters are not valid.' },
        }),
      },
    },
  },
};

export async function auditRoutes(app: FastifyInstance, opts: AuditListOptions): Promise<void> {
  app.get('/v1/audit-events', { config: { auth: true } }, async (request) =>
    findAuditEvents(tenantOf(request), parseAuditQuery(request.query), opts),
  );
}
