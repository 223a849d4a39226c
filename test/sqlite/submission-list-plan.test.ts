import { CompiledQuery, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import {
  type SubmissionListQuery,
  TenantSubmissionList,
} from '../../src/store/repositories/submission-list.js';
import { openTestStore } from '../helpers/store.js';
import { ingestAt, listOrigin as origin, walkList } from '../helpers/submission-list.js';

/** The submission list's plans on SQLite (the list itself: test/store/submission-list.test.ts). */
let store: Store;
let tenantId: string;
let partnerId: string;
const AT = new Date('2026-11-21T12:00:00.000Z');
const noAudit = async () => {};

beforeAll(async () => {
  store = await openTestStore();
  tenantId = (await store.system.accounts.createTenant('T')).tenantId;
  partnerId = (await store.system.accounts.createPartner(tenantId, 'P')).partnerId;
});
afterAll(async () => {
  await store?.close();
});

describe('the submission list on SQLite', () => {
  // SQLite keeps no statistics: its planner goes by the shape of the statement alone, and an
  // account-wide walk in list order looked cheaper to it than a reference's index. PostgreSQL plans
  // from its statistics (checked by hand on 120,000 rows: each filter takes its index there too),
  // so on a near-empty test database its choice would say nothing.
  it('answers each filter from its index on SQLite (submissions_list_idx, _status_list_idx, _subject_idx, _partner_ref_idx)', async () => {
    await ingestAt(store, { tenantId, partnerId }, 3, new Date(AT.getTime() + 10_000), {
      partnerSubjectId: 'subj-plan',
    });
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
    const after = { at: AT.toISOString(), id: '0190a7e0-0000-7000-8000-000000000000' };
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
        await walkList(new TenantSubmissionList(store.driver, tenantId, noAudit), {
          limit: 2,
          partnerSubjectId: 'subj-plan',
        })
      ).length,
    ).toBe(3);
  });
});
