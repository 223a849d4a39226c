import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import type { Clock } from '../../clock.js';
import type { AuditOrigin } from '../../domain/audit.js';
import { SUBMISSION_STATUSES } from '../../domain/statuses.js';
import type { TenantAccess } from '../../store/tenant-access.js';
import { originOf, tenantOf } from '../auth.js';
import type { CursorScope, PageCursors } from '../cursor.js';
import {
  cursorPosition,
  listCursor,
  listLimit,
  parseListQuery,
  queryTime,
  timeWindow,
} from '../list-query.js';
import { errorResponses, KEYED_OPERATION, successHeaders } from '../openapi-errors.js';
import {
  type SubmissionPage,
  submissionListItem,
  submissionPageExample,
  submissionPageSchema,
} from '../submission-list-item.js';

const TIME_FORMAT = 'an ISO 8601 time with its offset, e.g. 2026-11-21T12:00:00Z (send + as %2B)';

const submissionListQuery = z
  .object({
    status: z
      .enum(SUBMISSION_STATUSES)
      .optional()
      .meta({ description: 'Only submissions in this status (e.g. failed)' }),
    partnerSubjectId: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .meta({ description: "Only this subject's submissions (your reference, exactly as submitted)" }),
    partnerSubmissionId: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .meta({ description: 'Only submissions with this reference of yours' }),
    receivedAfter: queryTime('Only submissions received at or after this time (ISO 8601 with offset)'),
    receivedBefore: queryTime('Only submissions received before this time (ISO 8601 with offset)'),
    limit: listLimit,
    cursor: listCursor,
  })
  .strict();

const MESSAGES: Readonly<Record<string, string>> = {
  status: `status must be one of ${SUBMISSION_STATUSES.join(', ')}.`,
  partnerSubjectId: 'partnerSubjectId must be 1 to 512 characters.',
  partnerSubmissionId: 'partnerSubmissionId must be 1 to 512 characters.',
  receivedAfter: `receivedAfter must be ${TIME_FORMAT}.`,
  receivedBefore: `receivedBefore must be ${TIME_FORMAT}.`,
  limit: 'limit must be a whole number from 1 to 200.',
  cursor: 'cursor must be nextCursor from the previous page, as it was given.',
};

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
  const window = timeWindow(['receivedAfter', 'receivedBefore'], q.receivedAfter, q.receivedBefore);
  const receivedAfter = window.after;
  const receivedBefore = window.before;
  // The filters as the list applies them (times in UTC): the same walk gives the same cursor.
  const filters = {
    status: q.status,
    partnerSubjectId: q.partnerSubjectId,
    partnerSubmissionId: q.partnerSubmissionId,
    receivedAfter: receivedAfter?.toISOString(),
    receivedBefore: receivedBefore?.toISOString(),
  };
  const scope: CursorScope = { list: 'submissions', tenantId: tenant.tenantId, filters };
  const position = cursorPosition(opts.cursors, scope, q.cursor);
  const after = position && { receivedAt: position.at, submissionId: position.id };
  const page = await tenant.submissions.list(
    { ...filters, receivedAfter, receivedBefore, limit: q.limit, after },
    origin,
  );
  const now = opts.clock();
  const last = page.items.at(-1);
  return {
    items: page.items.map((record) => submissionListItem(record, now)),
    nextCursor: page.more && last ? opts.cursors.encode(scope, [last.receivedAt, last.submissionId]) : null,
  };
}

export async function submissionListRoutes(app: FastifyInstance, opts: SubmissionListOptions): Promise<void> {
  app.get('/v1/submissions', { config: { auth: true } }, async (request) =>
    findSubmissions(
      tenantOf(request),
      parseListQuery(submissionListQuery, request.query, MESSAGES),
      originOf(request),
      opts,
    ),
  );
}
