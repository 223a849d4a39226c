import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submissionListItem } from '../../src/http/submission-list-item.js';
import { SkewedClock } from '../helpers/clock.js';
import { waitUntil } from '../helpers/pipeline.js';
import {
  bodyFor,
  createAccount,
  errorOf,
  getJson,
  postSubmission,
  startTestService,
  type TestAccount,
  type TestService,
  testKeyFor,
} from '../helpers/service.js';

/**
 * `GET /v1/submissions` (issue 30, "Finding submissions"): newest first, filtered, paged with
 * signed cursors bound to the account, mode and filters, metadata only, audited per page.
 */

interface Item {
  submissionId: string;
  partnerSubmissionId: string;
  partnerSubjectId: string;
  status: string;
  statusLabel: string;
  receivedAt: string;
  updatedAt: string;
  completedAt: string | null;
  resultId: string | null;
  errorSummary: string | null;
  slaDeadlineAt: string | null;
  slaBreached: boolean;
}
interface Page {
  items: Item[];
  nextCursor: string | null;
}

const ITEM_KEYS = [
  'completedAt',
  'errorSummary',
  'partnerSubjectId',
  'partnerSubmissionId',
  'receivedAt',
  'resultId',
  'slaBreached',
  'slaDeadlineAt',
  'status',
  'statusLabel',
  'submissionId',
  'updatedAt',
];

/** The service's clock runs ahead on demand, so submissions get received times a second apart. */
const clock = new SkewedClock();
let service: TestService;

beforeAll(async () => {
  service = await startTestService(
    { RATE_LIMIT_PER_MINUTE: '0', JOB_MAX_ATTEMPTS: '2', JOB_RETRY_BASE_MS: '10' },
    'all',
    { clock: clock.date },
  );
});
afterAll(async () => {
  await service?.stop();
});

async function submit(
  account: TestAccount,
  refs: { partnerSubmissionId?: string; partnerSubjectId?: string } = {},
): Promise<{ submissionId: string; receivedAt: string }> {
  const res = await postSubmission(
    service,
    bodyFor(account, (b) => Object.assign(b, refs)),
    { apiKey: account.apiKey },
  );
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  // The next one is received a second later, whatever the machine's speed.
  clock.advance(1000);
  return { submissionId: res.json.submissionId as string, receivedAt: res.json.receivedAt as string };
}

async function list(
  account: TestAccount,
  query = '',
): Promise<{ status: number; page: Page; json: Record<string, unknown> }> {
  const res = await getJson(service, `/v1/submissions${query}`, { 'x-api-key': account.apiKey });
  return { status: res.status, page: res.json as unknown as Page, json: res.json };
}

/** Every page of a walk with `limit`, following nextCursor: the items in the order given. */
async function walk(
  account: TestAccount,
  filters: string,
  limit: number,
): Promise<{ items: Item[]; pages: number }> {
  const items: Item[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const q = `?${filters}${filters ? '&' : ''}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await list(account, q);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.page.items.length).toBeLessThanOrEqual(limit);
    items.push(...res.page.items);
    cursor = res.page.nextCursor;
    pages += 1;
    // A cursor that does not move on would walk for ever.
    expect(pages, 'pages of one walk').toBeLessThan(100);
  } while (cursor !== null);
  return { items, pages };
}

async function finalDetail(account: TestAccount, submissionId: string): Promise<Record<string, unknown>> {
  return waitUntil(
    async () => {
      const r = await getJson(service, `/v1/submissions/${submissionId}`, { 'x-api-key': account.apiKey });
      return ['completed', 'failed', 'rejected'].includes(r.json.status as string) ? r.json : undefined;
    },
    60_000,
    `submission ${submissionId} to finish`,
  );
}

async function fieldErrorsOf(account: TestAccount, query: string): Promise<Record<string, string[]>> {
  const res = await list(account, query);
  expect(res.status, query).toBe(400);
  const error = errorOf(res.json);
  expect(error.code, query).toBe('VALIDATION_ERROR');
  return (error.details as { fieldErrors: Record<string, string[]> }).fieldErrors;
}

describe('GET /v1/submissions', () => {
  it('lists newest first, walks every page once with the cursor, and shows the detail’s non-health fields', async () => {
    const account = await createAccount(service);
    const made: string[] = [];
    for (let i = 0; i < 5; i++)
      made.push((await submit(account, { partnerSubmissionId: `order-${i}` })).submissionId);
    const newestFirst = [...made].reverse();

    const all = await list(account);
    expect(all.status).toBe(200);
    expect(all.page.items.map((i) => i.submissionId)).toEqual(newestFirst);
    expect(all.page.nextCursor).toBeNull();

    const walked = await walk(account, '', 2);
    expect(walked.pages).toBe(3);
    expect(walked.items.map((i) => i.submissionId)).toEqual(newestFirst);

    // A finished item holds what its detail and its result say, and nothing else.
    const detail = await finalDetail(account, made[4]!);
    expect(detail.status).toBe('completed');
    const result = await getJson(service, `/v1/results/${detail.resultId}`, { 'x-api-key': account.apiKey });
    const item = (await list(account, '?limit=1')).page.items[0]!;
    expect(Object.keys(item).sort()).toEqual(ITEM_KEYS);
    const jobs = detail.jobs as Array<{ slaDeadlineAt: string }>;
    expect(item).toEqual({
      submissionId: detail.submissionId,
      partnerSubmissionId: detail.partnerSubmissionId,
      partnerSubjectId: detail.partnerSubjectId,
      status: 'completed',
      statusLabel: detail.statusLabel,
      receivedAt: detail.createdAt,
      updatedAt: detail.updatedAt,
      completedAt: result.json.completedAt,
      resultId: detail.resultId,
      errorSummary: null,
      slaDeadlineAt: jobs[0]!.slaDeadlineAt,
      slaBreached: false,
    });
    // A submission not finished yet, or finished without a result: nulls, the same keys.
    for (const other of all.page.items) expect(Object.keys(other).sort()).toEqual(ITEM_KEYS);
  });

  it('never answers health data: no markers, subject block, counts or steps, and none of the submitted values', async () => {
    const account = await createAccount(service);
    const { submissionId } = await submit(account);
    await finalDetail(account, submissionId);
    const res = await getJson(service, '/v1/submissions', { 'x-api-key': account.apiKey });
    const text = JSON.stringify(res.json);
    for (const key of [
      'markers',
      'subject',
      'counts',
      'jobs',
      'subjectId',
      'reportDocuments',
      'sourceMetadata',
    ])
      expect(text).not.toContain(`"${key}"`);
    const body = bodyFor(account);
    for (const marker of body.markers as Array<{ code: string }>) expect(text).not.toContain(marker.code);
    expect(text).not.toContain(String(body.sourceMetadata.labName));
  });

  it('filters by status (a failed one carries its step’s plain reason), subject, reference and received window', async () => {
    const live = await createAccount(service);
    const test = await testKeyFor(service, live);
    const failing = await submit(test, { partnerSubmissionId: 'simulate:processing_failure-1' });
    const fine = await submit(test, { partnerSubmissionId: 'fine-1', partnerSubjectId: 'subj-a' });
    const other = await submit(test, { partnerSubmissionId: 'fine-2', partnerSubjectId: 'subj-b' });
    const later = await submit(test, { partnerSubmissionId: 'fine-3', partnerSubjectId: 'subj-a' });
    expect((await finalDetail(test, failing.submissionId)).status).toBe('failed');
    for (const s of [fine, other, later])
      expect((await finalDetail(test, s.submissionId)).status).toBe('completed');

    const failed = (await list(test, '?status=failed')).page.items;
    expect(failed.map((i) => i.submissionId)).toEqual([failing.submissionId]);
    expect(failed[0]).toMatchObject({
      status: 'failed',
      statusLabel: 'Processing failed',
      resultId: null,
      completedAt: null,
    });
    expect(failed[0]!.errorSummary).toContain('simulate:processing_failure');
    expect((await list(test, '?status=completed')).page.items.map((i) => i.submissionId)).toEqual([
      later.submissionId,
      other.submissionId,
      fine.submissionId,
    ]);
    expect((await list(test, '?status=rejected')).page.items).toEqual([]);

    const ids = async (q: string) => (await list(test, q)).page.items.map((i) => i.submissionId);
    expect(await ids('?partnerSubjectId=subj-a')).toEqual([later.submissionId, fine.submissionId]);
    expect(await ids('?partnerSubjectId=subj-a&partnerSubmissionId=fine-1')).toEqual([fine.submissionId]);
    expect(await ids('?partnerSubmissionId=fine-2')).toEqual([other.submissionId]);
    expect(await ids('?partnerSubjectId=SUBJ-A')).toEqual([]);
    // At or after receivedAfter, before receivedBefore; any offset, the same instant.
    const plusTwo = (iso: string) =>
      new Date(Date.parse(iso) + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
    expect(
      await ids(
        `?receivedAfter=${encodeURIComponent(plusTwo(fine.receivedAt))}&receivedBefore=${encodeURIComponent(later.receivedAt)}`,
      ),
    ).toEqual([other.submissionId, fine.submissionId]);
    expect(await ids(`?receivedAfter=${later.receivedAt}`)).toEqual([later.submissionId]);
    expect(await ids(`?receivedBefore=${fine.receivedAt}&status=failed`)).toEqual([failing.submissionId]);
    // Filters hold across pages, and the walk finds each match once.
    const walked = await walk(test, 'partnerSubjectId=subj-a', 1);
    expect(walked.items.map((i) => i.submissionId)).toEqual([later.submissionId, fine.submissionId]);
  });

  it('keeps accounts and modes apart, in items and in cursors', async () => {
    const a = await createAccount(service);
    const b = await createAccount(service);
    const aTest = await testKeyFor(service, a);
    const aLive = [await submit(a, { partnerSubmissionId: 'shared-ref' }), await submit(a)];
    const bLive = await submit(b, { partnerSubmissionId: 'shared-ref' });
    const aSandbox = await submit(aTest, { partnerSubmissionId: 'shared-ref' });
    const ids = async (who: TestAccount, q = '') =>
      (await list(who, q)).page.items.map((i) => i.submissionId);
    expect(await ids(a)).toEqual([aLive[1]!.submissionId, aLive[0]!.submissionId]);
    expect(await ids(b)).toEqual([bLive.submissionId]);
    expect(await ids(aTest)).toEqual([aSandbox.submissionId]);
    expect(await ids(a, '?partnerSubmissionId=shared-ref')).toEqual([aLive[0]!.submissionId]);
    expect(await ids(aTest, '?partnerSubmissionId=shared-ref')).toEqual([aSandbox.submissionId]);

    // A's first page's cursor: refused by B, by A's test key, and with other filters.
    const first = await list(a, '?limit=1');
    const cursor = encodeURIComponent(first.page.nextCursor!);
    expect((await list(a, `?limit=1&cursor=${cursor}`)).page.items.map((i) => i.submissionId)).toEqual([
      aLive[0]!.submissionId,
    ]);
    // The page size may change along the walk; the filters may not.
    expect((await list(a, `?limit=5&cursor=${cursor}`)).status).toBe(200);
    expect(Object.keys(await fieldErrorsOf(b, `?limit=1&cursor=${cursor}`))).toEqual(['query.cursor']);
    expect(Object.keys(await fieldErrorsOf(aTest, `?limit=1&cursor=${cursor}`))).toEqual(['query.cursor']);
    expect(Object.keys(await fieldErrorsOf(a, `?limit=1&status=received&cursor=${cursor}`))).toEqual([
      'query.cursor',
    ]);
    const filtered = await list(a, '?limit=1&partnerSubmissionId=shared-ref');
    expect(filtered.page.nextCursor).toBeNull();
    const subjectPage = await list(
      a,
      `?limit=1&partnerSubjectId=${encodeURIComponent(bodyFor(a).partnerSubjectId)}`,
    );
    const subjectCursor = encodeURIComponent(subjectPage.page.nextCursor!);
    expect(Object.keys(await fieldErrorsOf(a, `?limit=1&cursor=${subjectCursor}`))).toEqual(['query.cursor']);
    expect(
      Object.keys(await fieldErrorsOf(a, `?limit=1&partnerSubjectId=other&cursor=${subjectCursor}`)),
    ).toEqual(['query.cursor']);
  });

  it('answers 400 VALIDATION_ERROR naming the parameter for unknown, malformed and out-of-range input', async () => {
    const account = await createAccount(service);
    await submit(account);
    await submit(account);
    const cursor = (await list(account, '?limit=1')).page.nextCursor!;
    const [body, mac] = cursor.split('.');
    const forged = Buffer.from(
      JSON.stringify(['2099-01-01T00:00:00.000Z', '0190a7e0-0000-7000-8000-000000000000']),
    ).toString('base64url');
    const cases: Array<[string, string]> = [
      ['?sort=asc', 'query.sort'],
      ['?status=done', 'query.status'],
      ['?status=failed&status=completed', 'query.status'],
      ['?limit=0', 'query.limit'],
      ['?limit=201', 'query.limit'],
      ['?limit=ten', 'query.limit'],
      ['?limit=2.5', 'query.limit'],
      ['?receivedAfter=2026-11-21T12:00:00', 'query.receivedAfter'],
      ['?receivedAfter=yesterday', 'query.receivedAfter'],
      ['?receivedBefore=2026-11-21', 'query.receivedBefore'],
      ['?receivedAfter=2026-11-21T12:00:00Z&receivedBefore=2026-11-21T12:00:00Z', 'query.receivedBefore'],
      ['?partnerSubjectId=', 'query.partnerSubjectId'],
      [`?partnerSubmissionId=${'x'.repeat(513)}`, 'query.partnerSubmissionId'],
      ['?cursor=not-a-cursor', 'query.cursor'],
      [`?cursor=${forged}.${mac}`, 'query.cursor'],
      [`?cursor=${body}.${mac}x`, 'query.cursor'],
      [`?cursor=${'a'.repeat(600)}`, 'query.cursor'],
    ];
    for (const [query, param] of cases) {
      const errors = await fieldErrorsOf(account, query);
      expect(Object.keys(errors), query).toEqual([param]);
      expect(errors[param]![0], query).toMatch(/\w/);
    }
    const both = await fieldErrorsOf(account, '?limit=0&verbose=1');
    expect(Object.keys(both).sort()).toEqual(['query.limit', 'query.verbose']);
    // Without a key: 401 before the query is looked at.
    const anonymous = await getJson(service, '/v1/submissions?limit=0');
    expect(anonymous.status).toBe(401);
  });

  it('records one submission.listed event per page read, naming the account, and none for a refused query', async () => {
    const account = await createAccount(service);
    await submit(account);
    await submit(account);
    const events = async () =>
      (await service.store.system.audit.list(account.tenantId, { limit: 200, action: 'submission.listed' }))
        .items;
    expect(await events()).toEqual([]);
    const res = await getJson(service, '/v1/submissions?limit=1', {
      'x-api-key': account.apiKey,
      'x-request-id': 'list-page-1',
      'x-correlation-id': 'walk-1',
    });
    expect(res.status).toBe(200);
    await list(account, `?limit=1&cursor=${encodeURIComponent(res.json.nextCursor as string)}`);
    await fieldErrorsOf(account, '?limit=0');
    const recorded = await events();
    expect(recorded).toHaveLength(2);
    expect(recorded.find((e) => e.requestId === 'list-page-1')).toMatchObject({
      action: 'submission.listed',
      resourceType: 'tenant',
      resourceId: account.tenantId,
      actor: { type: 'api_key', keyId: account.keyId },
      correlationId: 'walk-1',
    });
  });
});

describe('a list item’s SLA', () => {
  const record = {
    submissionId: '0190a7e0-0000-7000-8000-000000000001',
    partnerSubmissionId: 'p',
    partnerSubjectId: 's',
    status: 'processing',
    receivedAt: '2026-11-21T12:00:00.000Z',
    updatedAt: '2026-11-21T12:00:01.000Z',
    completedAt: null,
    resultId: null,
    errorSummary: null,
    slaDeadlineAt: '2026-11-21T12:05:00.000Z',
    finishedAt: null,
  };
  const at = (iso: string) => new Date(iso);

  it('is breached once an unfinished submission is past its deadline, or when it finished after it', () => {
    expect(submissionListItem(record, at('2026-11-21T12:04:59.999Z')).slaBreached).toBe(false);
    expect(submissionListItem(record, at('2026-11-21T12:05:00.001Z')).slaBreached).toBe(true);
    const late = { ...record, status: 'failed', finishedAt: '2026-11-21T12:06:00.000Z' };
    expect(submissionListItem(late, at('2026-11-21T12:07:00.000Z')).slaBreached).toBe(true);
    const inTime = { ...record, status: 'completed', finishedAt: '2026-11-21T12:01:00.000Z' };
    expect(submissionListItem(inTime, at('2026-11-22T00:00:00.000Z')).slaBreached).toBe(false);
    expect(
      submissionListItem({ ...record, slaDeadlineAt: null }, at('2030-01-01T00:00:00Z')).slaBreached,
    ).toBe(false);
  });
});
