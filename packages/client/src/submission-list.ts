import type { components, operations } from './generated/openapi.js';

export type SubmissionListItem = components['schemas']['SubmissionListItem'];
export type SubmissionPage = components['schemas']['SubmissionPage'];
type ListQuery = NonNullable<operations['listSubmissions']['parameters']['query']>;

/**
 * What to find: `status`, `partnerSubjectId`, `partnerSubmissionId`, and the received window
 * (`receivedAfter` inclusive, `receivedBefore` exclusive; a `Date` or an ISO 8601 string with
 * its offset). `limit` is the page size (1 to 200, default 50).
 */
export type SubmissionFilters = Omit<ListQuery, 'cursor' | 'receivedAfter' | 'receivedBefore'> & {
  receivedAfter?: Date | string;
  receivedBefore?: Date | string;
};

/** One page's query: the filters, and `cursor`, the previous page's `nextCursor` (none or null: the first). */
export type SubmissionListQuery = SubmissionFilters & { cursor?: string | null | undefined };

/** The query as the API takes it (times as ISO 8601 text). */
function queryOf(filters: SubmissionFilters, cursor: string | null | undefined): ListQuery {
  const { receivedAfter, receivedBefore, ...rest } = filters;
  const time = (t: Date | string | undefined) => (t instanceof Date ? t.toISOString() : t);
  const query: ListQuery = { ...rest };
  if (receivedAfter !== undefined) query.receivedAfter = time(receivedAfter);
  if (receivedBefore !== undefined) query.receivedBefore = time(receivedBefore);
  if (cursor !== undefined && cursor !== null) query.cursor = cursor;
  return query;
}

/**
 * `submissions.list` and `submissions.iterate`, on the client's page fetch (which carries its
 * key and retries). A walk sees every submission that existed when it started exactly once,
 * newest first, whatever arrives meanwhile: the cursor is a position, not an offset.
 */
export function submissionListing(fetchPage: (query: ListQuery) => Promise<SubmissionPage>) {
  return {
    /** One page, newest first; for the next, the same filters with `cursor: page.nextCursor`. */
    list(query: SubmissionListQuery = {}): Promise<SubmissionPage> {
      const { cursor, ...filters } = query;
      return fetchPage(queryOf(filters, cursor));
    },

    /** Every submission that matches, newest first, page after page: `for await (const s of …)`. */
    async *iterate(filters: SubmissionFilters = {}): AsyncGenerator<SubmissionListItem, void, undefined> {
      let cursor: string | null = null;
      do {
        const page = await fetchPage(queryOf(filters, cursor));
        yield* page.items;
        cursor = page.nextCursor;
      } while (cursor !== null);
    },
  };
}
