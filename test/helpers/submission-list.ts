import type { Store } from '../../src/store/index.js';
import { operatorOrigin } from '../../src/store/repositories/accounts.js';
import type {
  SubmissionListQuery,
  SubmissionListRecord,
  TenantSubmissionList,
} from '../../src/store/repositories/submission-list.js';
import { ingestCommand } from './store.js';

/** The submission list's store tests: submissions ingested straight into the store, and a whole walk. */
export const listOrigin = operatorOrigin('test');

/** Stores `n` submissions of one account received at `receivedAt`; answers their ids. */
export async function ingestAt(
  store: Store,
  account: { tenantId: string; partnerId: string },
  n: number,
  receivedAt: Date,
  refs: { partnerSubjectId?: string } = {},
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const outcome = await store.system.ingest.ingest(
      ingestCommand(account, {
        idempotencyKeyHash: `k-${receivedAt.getTime()}-${i}-${refs.partnerSubjectId}`,
        receivedAt,
        ...refs,
      }),
    );
    if (outcome.kind !== 'created') throw new Error('not created');
    ids.push(outcome.submissionId);
  }
  return ids;
}

/** Every item of a list, page by page, following the keyset as the route's cursor would. */
export async function walkList(
  list: TenantSubmissionList,
  q: Omit<SubmissionListQuery, 'after'>,
): Promise<SubmissionListRecord[]> {
  const items: SubmissionListRecord[] = [];
  let after: SubmissionListQuery['after'];
  for (let pages = 0; pages < 100; pages++) {
    const page = await list.list({ ...q, after }, listOrigin);
    items.push(...page.items);
    const last = page.items.at(-1);
    if (!page.more || !last) return items;
    after = { at: last.receivedAt, id: last.submissionId };
  }
  throw new Error('the walk did not end');
}
