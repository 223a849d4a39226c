import { CompiledQuery, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { operatorOrigin } from '../../src/store/repositories/accounts.js';
import {
  type SubmissionListQuery,
  type SubmissionListRecord,
  TenantSubmissionList,
} from '../../src/store/repositories/submission-list.js';
import { testStoreKind } from '../helpers/database.js';
import { ingestCommand, openTestStore } from '../helpers/store.js';

/**
 * The submission list's keyset (`TenantSubmissionList`): ties on the received time are broken by
 * id, so a walk neither repeats nor skips one; and each filter is answered from its index.
 */
let store: Store;
let tenantId: string;
let partnerId: string;
const AT = new Date('2026-11-21T12:00:00.000Z');
const origin = operatorOrigin('test');
/** The store's recording of the read is the HTTP tests' business (test/http/submission-list.test.ts). */
const noAudit = async () => {};

beforeAll(async () => {
  store = await openTestStore();
  tenantId = (await store.system.accounts.createTenant('T')).tenantId;
  partnerId = (await store.system.accounts.createPartner(tenantId, 'P')).partnerId;
});
afterAll(async () => {
  await store?.close();
});

async function ingest(
  n: number,
  receivedAt: Date,
  refs: { partnerSubjectId?: string } = {},
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const outcome = await store.system.ingest.ingest(
      ingestCommand(
        { tenantId, partnerId },
        {
          idempotencyKeyHash: `k-${receivedAt.getTime()}-${i}-${refs.partnerSubjectId}`,
          receivedAt,
          ...refs,
        },
      ),
    );
    if (outcome.kind !== 'created') throw new Error('not created');
    ids.push(outcome.submissionId);
  }
  return ids;
}

async function walk(
  list: TenantSubmissionList,
  q: Omit<SubmissionListQuery, 'after'>,
): Promise<SubmissionListRecord[]> {
  const items: SubmissionListRecord[] = [];
  let after: SubmissionListQuery['after'];
  for (let pages = 0; pages < 100; pages++) {
    const page = await list.list({ ...q, after }, origin);
    items.push(...page.items);
    const last = page.items.at(-1);
    if (!page.more || !last) return items;
    after = { receivedAt: last.receivedAt, submissionId: last.submissionId };
  }
  throw new Error('the walk did not end');
}

describe('the submission list', () => {
  it('walks submissions received at the same instant by id, each once, around the page edges', async () => {
    const sameInstant = await ingest(5, AT);
    const before = await ingest(2, new Date(AT.getTime() - 1));
    const after = await ingest(1, new Date(AT.getTime() + 1));
    const expected = [...after, ...[...sameInstant].sort().reverse(), ...[...before].sort().reverse()];
    const list = new TenantSubmissionList(store.driver, tenantId, noAudit);
    for (const limit of [1, 2, 3, 50]) {
      expect(
        (await walk(list, { limit })).map((i) => i.submissionId),
        `limit ${limit}`,
      ).toEqual(expected);
    }
    expect(
      (await walk(list, { limit: 2, receivedAfter: AT, receivedBefore: new Date(AT.getTime() + 1) })).map(
        (i) => i.submissionId,
      ),
    ).toEqual([...sameInstant].sort().reverse());
    // Another account's list is another list.
    expect(
      (await new TenantSubmissionList(store.driver, partnerId, noAudit).list({ limit: 50 }, origin)).items,
    ).toEqual([]);
  });

  // SQLite keeps no statistics: its planner goes by the shape of the statement alone, and an
  // account-wide walk in list order looked cheaper to it than a reference's index. PostgreSQL plans
  // from its statistics (checked by hand on 120,000 rows: each filter takes its index there too),
  // so on a near-empty test database its choice would say nothing.
  it.runIf(testStoreKind() === 'sqlite')(
    'answers each filter from its index on SQLite (submissions_list_idx, _status_list_idx, _subject_idx, _partner_ref_idx)',
    async () => {
      await ingest(3, new Date(AT.getTime() + 10_000), { partnerSubjectId: 'subj-plan' });
      const statements: CompiledQuery[] = [];
      const capture: KyselyPlugin = {
        transformQuery: (args) => {
          statements.push(store.driver.db.getExecutor().compileQuery(args.node, args.queryId));
          return args.node;
        },
        transformResult: async (args) => args.result,
      };
      const list = new TenantSubmissionList(
        { readConsistent: (fn) => fn(store.driver.db.withPlugin(capture)) },
        tenantId,
        noAudit,
      );
      /** How SQLite finds the page's submissions: the index of each step that reads them. */
      async function plan(q: SubmissionListQuery): Promise<string[]> {
        statements.length = 0;
        await list.list(q, origin);
        const page = statements.find((s) => s.sql.includes('"submissions" as "s"'))!;
        const explained = await store.driver.db.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`explain query plan ${page.sql}`, [...page.parameters]),
        );
        return explained.rows
          .map((r) => r.detail)
          .filter((d) => /^(SEARCH|SCAN) (s|submissions)\b/.test(d))
          .map((d) => /USING (?:COVERING )?INDEX (\w+)/.exec(d)?.[1] ?? d);
      }
      const after = { receivedAt: AT.toISOString(), submissionId: '0190a7e0-0000-7000-8000-000000000000' };
      expect(await plan({ limit: 50 })).toEqual(['submissions_list_idx']);
      expect(await plan({ limit: 50, after })).toEqual(['submissions_list_idx']);
      expect(await plan({ limit: 50, status: 'failed', after })).toEqual(['submissions_status_list_idx']);
      // By a reference: the few ids its index finds, then each by its key (not the account's walk).
      const byKey = 'sqlite_autoindex_submissions_1';
      expect(await plan({ limit: 50, partnerSubjectId: 'subj-plan', after })).toEqual([
        byKey,
        'submissions_subject_idx',
      ]);
      expect(await plan({ limit: 50, partnerSubmissionId: 'ps', status: 'failed' })).toEqual([
        byKey,
        'submissions_partner_ref_idx',
      ]);
      expect(
        (
          await walk(new TenantSubmissionList(store.driver, tenantId, noAudit), {
            limit: 2,
            partnerSubjectId: 'subj-plan',
          })
        ).length,
      ).toBe(3);
    },
  );
});
