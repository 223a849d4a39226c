import { z } from 'zod';
import type { AuditEvent } from '../domain/audit.js';
import { type AuditFilters, auditPage } from '../operations/audit-search.js';
import type { TenantAccess } from '../store/tenant-access.js';
import type { PageCursors } from './cursor.js';
import {
  type ListAnswer,
  listCursor,
  listLimit,
  parseListQuery,
  queryReference,
  readList,
} from './list-query.js';

/** The audit trail as a partner searches it: the API's `GET /v1/audit-events` and the console's Audit page. */

export const auditQuery = z
  .object({
    partnerSubmissionId: queryReference(
      'Only the events about submissions with this reference of yours (exact match) and about their results, ' +
        'reports and callback events',
    ),
    partnerSubjectId: queryReference(
      "Only the events about this subject's submissions (your reference, exact match) and about their " +
        'results, reports and callback events',
    ),
    limit: listLimit,
    cursor: listCursor,
  })
  .strict();

export type AuditListParams = z.output<typeof auditQuery>;

/** The API's audit query (references, limit, cursor), or its `400` naming each bad parameter. */
export function parseAuditQuery(query: unknown): AuditListParams {
  return parseListQuery(auditQuery, query);
}

export interface AuditListOptions {
  cursors: PageCursors;
}

/** A page of the account's audit trail, newest first: the API's answer and the console's list. */
export function findAuditEvents(
  tenant: TenantAccess,
  q: AuditListParams,
  opts: AuditListOptions,
): Promise<ListAnswer<AuditEvent>> {
  const filters: AuditFilters = {
    partnerSubmissionId: q.partnerSubmissionId,
    partnerSubjectId: q.partnerSubjectId,
  };
  return readList(
    opts.cursors,
    { list: 'audit-events', tenantId: tenant.tenantId, limit: q.limit, cursor: q.cursor, filters },
    (r) => auditPage(tenant, filters, r),
    (event) => ({ at: event.occurredAt, id: event.eventId }),
    (event) => event,
  );
}
