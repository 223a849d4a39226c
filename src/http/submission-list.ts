import { z } from 'zod';
import type { Clock } from '../clock.js';
import type { AuditOrigin } from '../domain/audit.js';
import { SUBMISSION_STATUSES } from '../domain/statuses.js';
import { type SubmissionFilters, submissionPage } from '../operations/submission-list.js';
import type { TenantAccess } from '../store/tenant-access.js';
import type { PageCursors } from './cursor.js';
import {
  listCursor,
  listLimit,
  parseListQuery,
  queryReference,
  queryTime,
  readList,
  timeMessages,
} from './list-query.js';
import { type SubmissionPage, submissionListItem } from './submission-list-item.js';

/** The submissions list as partners read it: the API's `GET /v1/submissions` and the console's Submissions page. */

export const submissionListQuery = z
  .object({
    status: z
      .enum(SUBMISSION_STATUSES)
      .optional()
      .meta({ description: 'Only submissions in this status (e.g. failed)' }),
    partnerSubjectId: queryReference(
      "Only this subject's submissions (your reference, exactly as submitted)",
    ),
    partnerSubmissionId: queryReference('Only submissions with this reference of yours'),
    receivedAfter: queryTime('Only submissions received at or after this time (ISO 8601 with offset)'),
    receivedBefore: queryTime('Only submissions received before this time (ISO 8601 with offset)'),
    limit: listLimit,
    cursor: listCursor,
  })
  .strict();

const MESSAGES: Readonly<Record<string, string>> = {
  status: `status must be one of ${SUBMISSION_STATUSES.join(', ')}.`,
  ...timeMessages('receivedAfter', 'receivedBefore'),
};

export interface SubmissionListOptions {
  cursors: PageCursors;
  clock: Clock;
}

export type SubmissionListParams = z.output<typeof submissionListQuery>;

/** The list's query as the API reads it (the console's filters too): `400`s name each bad parameter. */
export function parseSubmissionListQuery(query: unknown): SubmissionListParams {
  return parseListQuery(submissionListQuery, query, MESSAGES);
}

/**
 * One page of the account's submissions for the parsed query: what the route answers, and what
 * the console's page shows (issue 31) with the same cursors. Throws `400`s naming the parameter.
 */
export async function findSubmissions(
  tenant: TenantAccess,
  q: SubmissionListParams,
  origin: AuditOrigin,
  opts: SubmissionListOptions,
): Promise<SubmissionPage> {
  const filters: SubmissionFilters = {
    status: q.status,
    partnerSubjectId: q.partnerSubjectId,
    partnerSubmissionId: q.partnerSubmissionId,
  };
  const window = {
    names: ['receivedAfter', 'receivedBefore'],
    after: q.receivedAfter,
    before: q.receivedBefore,
  } as const;
  const now = opts.clock();
  return readList(
    opts.cursors,
    { list: 'submissions', tenantId: tenant.tenantId, limit: q.limit, cursor: q.cursor, filters, window },
    (r) => submissionPage(tenant, filters, r, origin),
    (record) => ({ at: record.receivedAt, id: record.submissionId }),
    (record) => submissionListItem(record, now),
  );
}
