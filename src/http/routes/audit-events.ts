import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import {
  AUDIT_ACTIONS,
  AUDIT_ACTOR_TYPES,
  AUDIT_OUTCOMES,
  AUDIT_RESOURCE_TYPES,
  type AuditEvent,
} from '../../domain/audit.js';
import { isUuid } from '../../domain/ids.js';
import type { AuditCursor, TenantAccess } from '../../store/tenant-access.js';
import { tenantOf } from '../auth.js';
import { ApiError } from '../errors.js';
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

const auditQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .default(50)
    .meta({ description: 'Events per page, 1 to 200' }),
  cursor: z.string().min(1).max(200).optional().meta({ description: 'nextCursor of the previous page' }),
});

export const auditPaths: ZodOpenApiPathsObject = {
  '/v1/audit-events': {
    get: {
      operationId: 'listAuditEvents',
      summary: "Your account's audit trail, newest first",
      description:
        'Who read, created, downloaded or erased what in your account, and the operator changes to its keys ' +
        'and callbacks. Events hold ids only, never submitted data.',
      tags: ['Partner'],
      requestParams: { query: auditQuery },
      responses: {
        '200': {
          description: 'A page of events',
          headers: successHeaders(true),
          content: { 'application/json': { schema: auditPageSchema } },
        },
        ...errorResponses({ ...KEYED_OPERATION, codes: [...KEYED_OPERATION.codes, 'VALIDATION_ERROR'] }),
      },
    },
  },
};

function encodeCursor(c: AuditCursor): string {
  return Buffer.from(JSON.stringify([c.occurredAt, c.eventId]), 'utf8').toString('base64url');
}

function decodeCursor(text: string): AuditCursor | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 2) return undefined;
    const [occurredAt, eventId] = value as unknown[];
    if (typeof occurredAt !== 'string' || !isoDateTime.safeParse(occurredAt).success) return undefined;
    if (typeof eventId !== 'string' || !isUuid(eventId)) return undefined;
    return { occurredAt, eventId };
  } catch {
    return undefined;
  }
}

/** The API's audit query (limit, cursor), or its `400` with the field errors. */
export function parseAuditQuery(query: unknown): { limit: number; after: AuditCursor | undefined } {
  const parsed = auditQuery.safeParse(query);
  const cursor =
    parsed.success && parsed.data.cursor !== undefined ? decodeCursor(parsed.data.cursor) : undefined;
  if (!parsed.success || (parsed.data.cursor !== undefined && !cursor)) {
    const fieldErrors: Record<string, string[]> = {};
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const key = `query.${issue.path.join('.')}`;
        fieldErrors[key] = [
          key === 'query.limit' ? 'limit must be a whole number from 1 to 200.' : 'cursor is not valid.',
        ];
      }
    } else {
      fieldErrors['query.cursor'] = ['cursor is not valid; pass nextCursor from the previous page as it is.'];
    }
    throw ApiError.validation({ formErrors: [], fieldErrors });
  }
  return { limit: parsed.data.limit, after: cursor };
}

/** A page of the account's audit trail, newest first: the API's answer and the console's list. */
export async function findAuditEvents(
  tenant: TenantAccess,
  query: { limit: number; after: AuditCursor | undefined },
): Promise<{ items: AuditEvent[]; nextCursor: string | null }> {
  const page = await tenant.audit.list(query);
  const last = page.items.at(-1);
  return {
    items: page.items,
    nextCursor:
      page.more && last ? encodeCursor({ occurredAt: last.occurredAt, eventId: last.eventId }) : null,
  };
}

export async function auditRoutes(app: FastifyInstance): Promise<void> {
  app.get('/v1/audit-events', { config: { auth: true } }, async (request) =>
    findAuditEvents(tenantOf(request), parseAuditQuery(request.query)),
  );
}
