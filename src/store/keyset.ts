import { type SelectQueryBuilder, type StringReference, sql } from 'kysely';

/**
 * One keyset page for every list (submissions, events, audit events, erasures): newest first by
 * a time column and the id, continued strictly below the last item of the previous page. The
 * position is compared as a row value, `(time, id) < (?, ?)`: on both databases a range on the
 * list's `(tenant_id, time, id)` index, so items added during a walk never shift it (no
 * duplicates, no gaps). `limit + 1` rows are read to know whether more follow.
 */

/** Where a page starts: strictly after (below) this item's time and id. */
export interface KeysetPosition {
  at: string;
  id: string;
}

/** The columns a list is ordered by, both descending: its time, then its id. */
export interface KeysetColumns<DB, TB extends keyof DB> {
  at: StringReference<DB, TB>;
  id: StringReference<DB, TB>;
}

export interface KeysetPage<T> {
  items: T[];
  /** Whether another page follows this one. */
  more: boolean;
}

/** Runs `query` as one page: the keyset predicate, the order, `limit + 1` rows, the slice. */
export async function keysetPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  columns: KeysetColumns<DB, TB>,
  page: { after?: KeysetPosition | undefined; limit: number },
): Promise<KeysetPage<O>> {
  const at = sql.ref(String(columns.at));
  const id = sql.ref(String(columns.id));
  const { after } = page;
  const bounded = after ? query.where(sql<boolean>`(${at}, ${id}) < (${after.at}, ${after.id})`) : query;
  const rows = await bounded
    .orderBy(at, 'desc')
    .orderBy(id, 'desc')
    .limit(page.limit + 1)
    .execute();
  return { items: rows.slice(0, page.limit), more: rows.length > page.limit };
}
