import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { TenantSubmissionList } from '../../src/store/repositories/submission-list.js';
import { openTestStore } from '../helpers/store.js';
import { ingestAt, listOrigin, walkList } from '../helpers/submission-list.js';

/**
 * The submission list's keyset (`TenantSubmissionList`): ties on the received time are broken by
 * id, so a walk neither repeats nor skips one; and each filter is answered from its index.
 */
let store: Store;
let tenantId: string;
let partnerId: string;
const AT = new Date('2026-11-21T12:00:00.000Z');
const origin = listOrigin;
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

describe('the submission list', () => {
  it('walks submissions received at the same instant by id, each once, around the page edges', async () => {
    const sameInstant = await ingestAt(store, { tenantId, partnerId }, 5, AT);
    const before = await ingestAt(store, { tenantId, partnerId }, 2, new Date(AT.getTime() - 1));
    const after = await ingestAt(store, { tenantId, partnerId }, 1, new Date(AT.getTime() + 1));
    const expected = [...after, ...[...sameInstant].sort().reverse(), ...[...before].sort().reverse()];
    const list = new TenantSubmissionList(store.driver, tenantId, noAudit);
    for (const limit of [1, 2, 3, 50]) {
      expect(
        (await walkList(list, { limit })).map((i) => i.submissionId),
        `limit ${limit}`,
      ).toEqual(expected);
    }
    expect(
      (await walkList(list, { limit: 2, receivedAfter: AT, receivedBefore: new Date(AT.getTime() + 1) })).map(
        (i) => i.submissionId,
      ),
    ).toEqual([...sameInstant].sort().reverse());
    // Another account's list is another list.
    expect(
      (await new TenantSubmissionList(store.driver, partnerId, noAudit).list({ limit: 50 }, origin)).items,
    ).toEqual([]);
  });
});
