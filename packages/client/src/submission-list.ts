import type { components, operations } from './generated/openapi.js';
import { type ListFilters, listing, type PageQuery } from './listing.js';

export type SubmissionListItem = components['schemas']['SubmissionListItem'];
export type SubmissionPage = components['schemas']['SubmissionPage'];
type ListQuery = NonNullable<operations['listSubmissions']['parameters']['query']>;

/**
 * What to find: `status`, `partnerSubjectId`, `partnerSubmissionId`, and the received window
 * (`receivedAfter` inclusive, `receivedBefore` exclusive; a `Date` or an ISO 8601 string with
 * its offset). `limit` is the page size (1 to 200, default 50).
 */
export type SubmissionFilters = ListFilters<ListQuery, 'receivedAfter' | 'receivedBefore'>;

/** One page's query: the filters, and `cursor`, the previous page's `nextCursor` (none or null: the first). */
export type SubmissionListQuery = PageQuery<SubmissionFilters>;

/** `submissions.list` and `submissions.iterate` (`listing.ts`). */
export function submissionListing(fetchPage: (query: ListQuery) => Promise<SubmissionPage>) {
  return listing(fetchPage, ['receivedAfter', 'receivedBefore']);
}
