import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import type { Clock } from '../../clock.js';
import type { AuditOrigin } from '../../domain/audit.js';
import { SUBMISSION_STATUSES } from '../../domain/statuses.js';
import type { TenantAccess } from '../../store/tenant-access.js';
import { originOf, tenantOf } from '../auth.js';
import type { PageCursors } from '../cursor.js';
import { listCursor, listLimit, parseListQuery, queryTime, readList, timeMessages } from '../list-query.js';
import { errorResponses, KEYED_OPERATION, successHeaders } from '../openapi-errors.js';
import {
  type SubmissionPage,
  submissionListItem,
  submissionPageExample,
  submissionPageSchema,
} from '../submission-list-item.js';

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
  ...timeMessages('receivedAfter', 'receivedBefore'),
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
  const filters = {
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
    (r) =>
      tenant.submissions.list(
        { ...filters, receivedAfter: r.from, receivedBefore: r.to, limit: r.limit, after: r.after },
        origin,
      ),
    (record) => ({ at: record.receivedAt, id: record.submissionId }),
    (record) => submissionListItem(record, now),
  );
}

export async function submissionListRoutes(app: FastifyInstance, opts: SubmissionListOptions): Promise<void> {
  app.get('/v1/submissions', { config: { auth: true } }, async (request) =>
    findSubmissions(tenantOf(request), parseSubmissionListQuery(request.query), originOf(request), opts),
  );
}
