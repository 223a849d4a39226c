/**
 * How every list of the API is read: one page at a time with `list`, or the whole walk with
 * `iterate`, following `nextCursor` until it is null. Time parameters may be given as a `Date`
 * (sent as ISO 8601 text); everything else is passed as the API takes it.
 */

type Time = Date | string;

/** A list's filters: its query without `cursor`, with its time parameters as a `Date` or a string. */
export type ListFilters<Q, K extends keyof Q> = Omit<Q, 'cursor' | K> & { [P in K]?: Time };

/** One page's query: the filters, and `cursor`, the previous page's `nextCursor` (none or null: the first). */
export type PageQuery<F> = F & { cursor?: string | null | undefined };

interface Page {
  items: unknown[];
  nextCursor: string | null;
}

/**
 * `list` and `iterate` of one list, on the client's page fetch (which carries its key and
 * retries). A walk sees every item that existed when it started exactly once, newest first,
 * whatever arrives meanwhile: the cursor is a position, not an offset.
 */
export function listing<Q extends { cursor?: string }, K extends keyof Q & string, P extends Page>(
  fetchPage: (query: Q) => Promise<P>,
  timeParams: readonly K[],
) {
  type Filters = ListFilters<Q, K>;
  function queryOf(filters: Filters, cursor: string | null | undefined): Q {
    const query: Record<string, unknown> = { ...filters };
    for (const name of timeParams) {
      const value = query[name];
      if (value === undefined) delete query[name];
      else if (value instanceof Date) query[name] = value.toISOString();
    }
    if (cursor !== undefined && cursor !== null) query.cursor = cursor;
    return query as Q;
  }
  return {
    /** One page, newest first; for the next, the same filters with `cursor: page.nextCursor`. */
    list(query: PageQuery<Filters> = {} as PageQuery<Filters>): Promise<P> {
      const { cursor, ...filters } = query;
      return fetchPage(queryOf(filters as Filters, cursor));
    },

    /** Every item that matches, newest first, page after page: `for await (const x of …)`. */
    async *iterate(filters: Filters = {} as Filters): AsyncGenerator<P['items'][number], void, undefined> {
      let cursor: string | null = null;
      do {
        const page: P = await fetchPage(queryOf(filters, cursor));
        yield* page.items as P['items'][number][];
        cursor = page.nextCursor;
      } while (cursor !== null);
    },
  };
}
